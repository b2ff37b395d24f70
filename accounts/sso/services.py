"""Who an OpenID Connect sign-in is: the one rule that turns a provider's claims into one of our users.

Order (docs/directory.md): the e-mail address first, when the provider does not say it is unverified
(``email_verified`` false: ignored), then ``preferred_username`` against our usernames, both ignoring case and among
live users. Two live users with the matching value: refused (never a guess). No live match but a deleted user with
that e-mail or username: refused (the person was offboarded; a new account would bring them back). No match at all:
a user is created, without any permission, group or company, only when ``OIDC_CREATE_USERS`` is on.

Claims never change rights: only first and last name are taken from them (for users who are not super users); the
e-mail address, username, permissions, groups, company and activation are ours. A deactivated user is refused here,
and on every later request by the backend's ``get_user`` (as for a password sign-in).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User

#: Refusal codes and what the admin's login page says (the log gets the code and the provider's subject).
REFUSALS = {
    "no_identity": "The single sign-on provider sent neither a verified e-mail address nor a username.",
    "ambiguous": "More than one user matches your single sign-on account; ask an administrator to fix it.",
    "deleted": "Your account was deleted. Ask an administrator if you should still have access.",
    "deactivated": "Your account is deactivated. Ask an administrator if you should still have access.",
    "unknown": ("No user matches your single sign-on account ({who}), and new users are not created "
                "automatically. Ask an administrator to create your account."),
    "conflict": "Your account could not be created (its username was just taken); try again.",
}


class SSORefusedError(Exception):
    """The claims match nobody who may sign in; ``code`` is a key of :data:`REFUSALS`."""

    def __init__(self, code: str, who: str = "") -> None:
        self.code = code
        self.who = who
        super().__init__(REFUSALS[code].format(who=who or "unknown"))


def _text(claims: dict[str, Any], name: str, limit: int = 191) -> str:
    value = claims.get(name)
    return value.strip()[:limit] if isinstance(value, str) else ""


def email_is_verified(claims: dict[str, Any]) -> bool:
    """Whether the e-mail claim may identify someone: unless the provider says ``email_verified`` is false (some send
    it as a string). Entra ID sends no ``email_verified``: its e-mail is trusted as the directory's (docs)."""
    verified = claims.get("email_verified", True)
    if isinstance(verified, str):
        return verified.strip().lower() not in {"false", "0", "no", ""}
    return verified is not False and verified != 0


def identity(claims: dict[str, Any]) -> tuple[str, str]:
    """The (verified e-mail, preferred username) the claims offer for matching; either may be empty."""
    email = _text(claims, "email") if email_is_verified(claims) else ""
    return (email if "@" in email else ""), _text(claims, "preferred_username")


def _match(field: str, value: str) -> tuple[User | None, bool]:
    """The one live user whose ``field`` equals ``value`` (ignoring case), and whether a deleted one does."""
    if not value:
        return None, False
    rows = list(User.objects.filter(**{f"{field}__iexact": value}).order_by("deleted_at", "pk")[:3])
    alive = [user for user in rows if user.deleted_at is None]
    if len(alive) > 1:
        raise SSORefusedError("ambiguous", value)
    return (alive[0] if alive else None), any(user.deleted_at is not None for user in rows)


def sso_user_for_claims(claims: dict[str, Any]) -> tuple[User, bool]:
    """The user the claims sign in as, and whether they were created now. Raises :class:`SSORefusedError`."""
    email, username = identity(claims)
    if not email and not username:
        raise SSORefusedError("no_identity")
    user, deleted_email = _match("email", email)
    deleted_username = False
    if user is None:
        user, deleted_username = _match("username", username)
    if user is None:
        if deleted_email or deleted_username:
            raise SSORefusedError("deleted", email or username)
        if not settings.OIDC_CREATE_USERS:
            raise SSORefusedError("unknown", email or username)
        return sso_user_create(claims, email=email, username=username or email), True
    if not user.is_active:
        raise SSORefusedError("deactivated", user.username)
    sso_user_refresh(user, claims)
    return user, False


@transaction.atomic
def sso_user_create(claims: dict[str, Any], *, email: str, username: str) -> User:
    """A user for a first single sign-on: no permissions, groups or company (an administrator gives them), no usable
    password; one action-log row ("create", nobody as the actor, a note saying how)."""
    from activity.services import log_action

    user = User(username=username[:191], email=email, first_name=_text(claims, "given_name"),
                last_name=_text(claims, "family_name"), permissions={}, company=None, is_active=True)
    user.set_unusable_password()
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as exc:  # a concurrent sign-in or an administrator took the username meanwhile
        raise SSORefusedError("conflict", username) from exc
    log_action(action_type="create", item_type="user", item_id=user.pk, target_type="user", target_id=user.pk,
               actor=None, company_id=None, item=user, target=user, note="Created at the first single sign-on")
    return user


def sso_user_refresh(user: User, claims: dict[str, Any]) -> None:
    """Take first and last name from the claims when they are given and differ; never for a super user, never any
    other field (rights, e-mail and username stay ours)."""
    if user.is_superuser:
        return
    changes = {field: value for field, claim in (("first_name", "given_name"), ("last_name", "family_name"))
               if (value := _text(claims, claim)) and value != getattr(user, field)}
    if changes:
        User.objects.filter(pk=user.pk).update(**changes, updated_at=timezone.now())
        for field, value in changes.items():
            setattr(user, field, value)
