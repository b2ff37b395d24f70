"""Recent sign-in attempts for ``GET /settings/login-attempts`` (Snipe-IT's ``login_attempts`` table), read from
django-axes' logs: ``AccessLog`` (each successful password sign-in) and ``AccessFailureLog`` (each failure, kept
because ``AXES_ENABLE_ACCESS_FAILURE_LOG`` is on). Neither holds a password. Newest first."""

from __future__ import annotations

from axes.models import AccessFailureLog, AccessLog
from django.db.models import BooleanField, Value

COLUMNS = ("username", "ip_address", "user_agent", "attempt_time", "successful")
#: Snipe-IT's sortable columns → ours.
SORTS = {"username": "username", "remote_ip": "ip_address", "user_agent": "user_agent",
         "successful": "successful", "created_at": "attempt_time"}


def login_attempts(*, sort: str = "created_at", order: str = "desc"):
    """Every recorded attempt as ``{username, ip_address, user_agent, attempt_time, successful}`` rows."""
    succeeded = AccessLog.objects.annotate(successful=Value(True, output_field=BooleanField())).values(*COLUMNS)
    failed = AccessFailureLog.objects.annotate(successful=Value(False, output_field=BooleanField())).values(*COLUMNS)
    column = SORTS.get(sort, "attempt_time")
    direction = "" if order == "asc" else "-"
    tiebreak = "-attempt_time" if column != "attempt_time" else "username"
    return succeeded.union(failed, all=True).order_by(f"{direction}{column}", tiebreak)
