"""Helpers of the two-factor tests: the code an authenticator app would show for a device's key."""

from __future__ import annotations

import re
import time

from django_otp.oath import TOTP

from accounts.models import SealedTOTPDevice


def totp_code(device: SealedTOTPDevice, steps_ahead: int = 0) -> str:
    """The six digits the app shows now (``steps_ahead`` 30-second steps later: a code not used yet, within the
    one-step tolerance)."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():0{device.digits}d}"


def codes_on(html: str) -> list[str]:
    """The backup codes of the page that shows them once."""
    block = html.split('id="backup-codes"', 1)[1].split("</ol>", 1)[0]
    return re.findall(r"<li>([a-z0-9-]+)</li>", block)
