"""Domain verbs of two-factor sign-in: enrol a TOTP device, confirm it with a first code, issue backup codes,
verify a code, disable, and a super user's reset of someone else's devices.

Backup codes are django-otp static tokens stored as keyed hashes (:func:`_code_digest`), never as typed: the page
that issues them shows them once. The TOTP seed must stay readable by the server (it computes the codes from it),
so it is encrypted, not hashed: :class:`accounts.models.SealedTOTPDevice` keeps it as a Fernet token under
``FIELD_ENCRYPTION_KEY`` (:func:`totp_keys_reencrypt` rewrites it after a key rotation).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from base64 import b32encode

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken

from accounts.models import SealedTOTPDevice, User
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.crypto import Undecryptable
from assetsvc.models import SiteSettings, TwoFactorPolicy

BACKUP_CODE_COUNT = 10
#: Letters and digits nobody confuses when copying a code from paper (no 0/O, 1/I/L).
_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
_CODE_LENGTH = 10
DEVICE_NAME = "Authenticator app"
BACKUP_DEVICE_NAME = "Backup codes"


def two_factor_required(user: User) -> bool:
    """Whether the site setting ``two_factor`` makes ``user`` sign in with a second factor."""
    policy = _policy()
    if policy == TwoFactorPolicy.EVERYONE:
        return True
    if policy == TwoFactorPolicy.ADMINS:
        return bool(user.is_staff)
    return False


def _policy() -> str:
    """The setting alone, without creating the settings row (the middleware asks on every admin page, before the
    page itself has read the settings)."""
    row = SiteSettings.objects.filter(pk=1).values_list("two_factor", flat=True).first()
    return row or TwoFactorPolicy.OPTIONAL


def has_two_factor(user: User) -> bool:
    """``user`` has a confirmed authenticator (backup codes alone do not count: they come with one)."""
    return SealedTOTPDevice.objects.filter(user=user, confirmed=True).exists()


def totp_pending_device(*, user: User) -> SealedTOTPDevice:
    """The unconfirmed device an enrolment shows (one per person, kept across page loads so the QR code stays the
    same until a first code confirms it)."""
    device = SealedTOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    if device is None:
        device = SealedTOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)
    return device


def totp_secret_text(device: SealedTOTPDevice) -> str:
    """The key as authenticator apps take it typed: base32 in groups of four."""
    text = b32encode(device.bin_key).decode().rstrip("=")
    return " ".join(text[i:i + 4] for i in range(0, len(text), 4))


def _normalised(code: str) -> str:
    return "".join((code or "").split()).replace("-", "").lower()


def _code_digest(code: str) -> str:
    """What the database keeps of a backup code: 16 hex digits of an HMAC keyed with ``SECRET_KEY``."""
    return hmac.new(settings.SECRET_KEY.encode(), _normalised(code).encode(), hashlib.sha256).hexdigest()[:16]


def _new_code() -> str:
    code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(_CODE_LENGTH))
    return f"{code[:5]}-{code[5:]}"


@transaction.atomic
def backup_codes_issue(*, user: User) -> list[str]:
    """Replace ``user``'s backup codes with :data:`BACKUP_CODE_COUNT` new ones; returns them (shown once)."""
    device, _ = StaticDevice.objects.get_or_create(user=user, name=BACKUP_DEVICE_NAME, defaults={"confirmed": True})
    device.token_set.all().delete()
    codes = [_new_code() for _ in range(BACKUP_CODE_COUNT)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=_code_digest(code)) for code in codes)
    return codes


def backup_codes_left(user: User) -> int:
    return StaticToken.objects.filter(device__user=user).count()


@transaction.atomic
def totp_confirm(*, user: User, device: SealedTOTPDevice, code: str) -> list[str] | None:
    """Confirm ``device`` with its first ``code``: it replaces any earlier authenticator of ``user`` and new backup
    codes are issued (returned). ``None`` when the code is wrong."""
    device = SealedTOTPDevice.objects.select_for_update().get(pk=device.pk, user=user, confirmed=False)
    if not device.verify_token(_normalised(code)):
        return None
    SealedTOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    return backup_codes_issue(user=user)


def verify_code(*, user: User, code: str):
    """The device ``code`` is valid for (an authenticator's six digits, or an unused backup code, used up now), or
    ``None``. django-otp throttles each device after wrong codes."""
    code = _normalised(code)
    if code.isdigit():
        for device in SealedTOTPDevice.objects.filter(user=user, confirmed=True):
            if device.verify_token(code):
                return device
        return None
    for device in StaticDevice.objects.filter(user=user, confirmed=True):
        if device.verify_token(_code_digest(code)):
            return device
    return None


def code_wait_seconds(user: User) -> int:
    """Seconds until django-otp lets ``user``'s authenticator check a code again after wrong ones (0: now)."""
    wait = 0
    for device in SealedTOTPDevice.objects.filter(user=user, confirmed=True):
        allowed, data = device.verify_is_allowed()
        if not allowed and data and data.get("locked_until"):
            wait = max(wait, int((data["locked_until"] - timezone.now()).total_seconds()) + 1)
    return wait


@transaction.atomic
def two_factor_disable(*, user: User) -> int:
    """Remove ``user``'s authenticators and backup codes; returns how many devices went."""
    totp, _ = SealedTOTPDevice.objects.filter(user=user).delete()
    static, _ = StaticDevice.objects.filter(user=user).delete()
    return totp + static


@transaction.atomic
def two_factor_reset(*, actor: User, user: User) -> None:
    """``POST /users/two_factor_reset``: clear ``user``'s authenticators and backup codes (Snipe-IT clears the secret
    and the enrolled flag), logged as ``2FA reset``. Their next admin sign-in enrols again when 2FA is required."""
    user = User.objects.select_for_update().get(pk=user.pk)
    SealedTOTPDevice.objects.filter(user=user).delete()
    StaticDevice.objects.filter(user=user).delete()
    log_action(action_type=ActionType.TWO_FACTOR_RESET, item_type="user", item_id=user.pk, target_type="user",
               target_id=user.pk, actor=actor, company_id=user.company_id, item=user, target=user)


def totp_keys_reencrypt() -> tuple[int, int]:
    """Encrypt every authenticator seed again with the first key of ``FIELD_ENCRYPTION_KEY`` (after a key rotation,
    from ``manage.py reencrypt_custom_values``); returns ``(rewritten, unreadable)``. A seed no configured key opens
    is left as stored (that person's codes fail until the old key is configured again or they enrol anew)."""
    rewritten = unreadable = 0
    with transaction.atomic():
        for device in SealedTOTPDevice.objects.select_for_update().order_by("pk"):
            if isinstance(device.key, Undecryptable):
                unreadable += 1
                continue
            device.save(update_fields=["key"])  # the field encrypts with the first key
            rewritten += 1
    return rewritten, unreadable
