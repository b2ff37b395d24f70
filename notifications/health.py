"""The notification backlog, a check of ``/health/ready`` and of ``/health/worker`` (``assetsvc.health``): how many
notifications wait for a task worker and how old the oldest one is. Failing when the oldest has waited longer than
``WEBHOOK_BACKLOG_MAX_AGE`` seconds (default 300): no worker runs, or they cannot keep up. For the web nodes it is
not critical (issue 25: a dead worker made every web node answer 503, so a load balancer would drain a healthy API):
``/health/ready`` then answers 200 "degraded", and ``/health/worker`` answers 503 for monitoring."""

from __future__ import annotations

import os
from typing import Any

from django.db.models import Min
from django.utils import timezone


def max_age() -> int:
    return int(os.environ.get("WEBHOOK_BACKLOG_MAX_AGE", "300") or 300)


def backlog() -> dict[str, Any]:
    from django_tasks_db.models import DBTaskResult

    from notifications.delivery import deliver_notification

    waiting = DBTaskResult.objects.ready().filter(queue_name=deliver_notification.queue_name)
    found = waiting.aggregate(oldest=Min("enqueued_at"))
    count = waiting.count()
    oldest = found["oldest"]
    age = int((timezone.now() - oldest).total_seconds()) if oldest is not None else None
    return {"ok": age is None or age <= max_age(), "critical": False, "queued": count, "oldest_age_seconds": age,
            "max_age_seconds": max_age()}
