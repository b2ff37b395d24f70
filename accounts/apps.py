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
        register_managed_users()
        register_file_kinds()
        register_portal_pages()
        hide_internal_admins()


def register_managed_users() -> None:
    """A user who still manages live users cannot be deleted (Snipe-IT's ``DeleteUserRequest`` ``managed_users``,
    issue 31): their reports would keep a deleted manager."""
    from accounts.holdings import UserHolding, register_user_holding

    register_user_holding(UserHolding(
        name="managed_users", model_label="accounts.User", user_field="manager",
        blocks_delete=("This user still manages another user. Please select another manager for that user first.",
                       "This user still manages :count users. Please select another manager for them first."),
        messages_key="managed_users", code="user_manages_users", company_field=None,
    ))


def register_portal_pages() -> None:
    """The employees' portal's pages accounts owns (issue 32): the profile and the personal access tokens."""
    from accounts.portal import profile, tokens
    from accounts.portal.pages import PortalPage, register_portal_page

    register_portal_page(PortalPage("profile", "profile/", profile.profile, label="Profile", order=80))
    register_portal_page(PortalPage("tokens", "tokens/", tokens.tokens, label="API tokens", order=90,
                                    visible=tokens.may_use_api))
    register_portal_page(PortalPage("token-revoke", "tokens/<str:token_id>/revoke/", tokens.token_revoke))


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
