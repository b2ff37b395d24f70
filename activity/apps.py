from django.apps import AppConfig


class ActivityConfig(AppConfig):
    """The action log: one row per domain verb of every app. It sits just above the framework, so every app may
    write to it and it imports none of them."""

    name = "activity"
    verbose_name = "Action log"
