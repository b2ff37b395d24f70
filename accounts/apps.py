from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Users and access"

    def ready(self) -> None:
        from accounts import schema  # noqa: F401  (registers the OpenAPI authentication extension)
        from accounts.admin import hide_internal_admins
        from accounts.authentication import resolve_bearer
        from accounts.permissions import PERMISSION_KEY_SET, has_access
        from assetsvc.registry import register_hook
        from companies.counts import CountedKind, register_company_count

        # The framework layer (assetsvc) resolves tokens and checks keys through these hooks, never by import.
        register_hook("bearer_resolver", resolve_bearer)
        register_hook("permission_checker", has_access)
        register_hook("permission_keys", PERMISSION_KEY_SET)
        register_company_count(CountedKind("users_count", "accounts.User"))
        register_file_kinds()
        hide_internal_admins()


def register_file_kinds() -> None:
    """Users hold files (issue 27; ``activity.files``): ``/users/{id}/files`` and Snipe-IT's ``/users/{id}/upload``."""
    from accounts.models import User
    from accounts.services import USER_NOT_FOUND, ensure_may_manage
    from activity.files import FileKind, register_file_kind

    def check_write(actor, user) -> None:
        """As for any change to a user: not a user who holds rights the caller lacks (GHSA-5448-v74m-7mv7)."""
        ensure_may_manage(actor=actor, target=user)

    register_file_kind(FileKind("user", "accounts.User", ("users",), "users", "edit", USER_NOT_FOUND,
                                lambda user: User.objects.restrict(user).alive(), check_write=check_write))
