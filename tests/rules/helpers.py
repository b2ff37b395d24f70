"""Helpers for the rule tests: assert a refusal by its behaviour (the stable ``code`` or the field message), so the
tests do not depend on where the error classes live."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError as DRFValidationError


def refused(call: Callable[[], Any], code: str) -> Exception:
    """``call()`` raises a domain error whose ``code`` is ``code``; return it."""
    with pytest.raises(Exception) as info:  # noqa: B017,PT011 - the code below tells refusals apart
        call()
    assert getattr(info.value, "code", None) == code, repr(info.value)
    return info.value


def field_error(call: Callable[[], Any], field: str) -> list[str]:
    """``call()`` raises a validation error on ``field``; return its messages."""
    with pytest.raises((DjangoValidationError, DRFValidationError)) as info:
        call()
    exc = info.value
    detail = exc.message_dict if isinstance(exc, DjangoValidationError) else exc.detail
    assert field in detail, detail
    return [str(m) for m in detail[field]]


def denied(call: Callable[[], Any]) -> None:
    """``call()`` is refused as a privilege escalation (403 in the API)."""
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        call()

