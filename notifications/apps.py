from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        from assetsvc.health import register_readiness_check, register_worker_check
        from assetsvc.registry import register_hook
        from notifications import mail, mail_receivers, receivers  # noqa: F401  (the mail task, the receivers)
        from notifications.health import backlog

        register_readiness_check("notifications", backlog)
        register_worker_check("notifications", backlog)
        # accounts' password reset mails through the queue (accounts may not import notifications).
        register_hook("mail_sender", mail.queue_mail)
