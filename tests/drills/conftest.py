"""Drill fixtures: the real webhook receiver (shared with the notification tests) and the environment of the live
gunicorn and ``db_worker`` processes, whose webhook configuration comes from environment variables."""

from __future__ import annotations

import os

import pytest

from tests.live import live_env
from tests.notifications.conftest import (  # noqa: F401 - fixtures
    HOOK_PATH,
    _receiver_server,
    admin_user,
    receiver,
    webhook,
)


@pytest.fixture
def drill_env(transactional_db, receiver):  # noqa: F811 - the imported fixture
    """``make(handler=None)``: the live processes' environment: this test's database, webhooks to ``receiver``
    (answering 200 at once, or through ``handler``), no rate limit in the way of a burst, Redis when CI provides it."""

    def make(handler=None) -> dict[str, str]:
        expectation = receiver.expect_request(HOOK_PATH, method="POST")
        if handler is None:
            expectation.respond_with_json({"ok": True})
        else:
            expectation.respond_with_handler(handler)
        return live_env(WEBHOOK_PLATFORM="slack", WEBHOOK_CHANNEL="#it",
                        WEBHOOK_ENDPOINT=receiver.url_for(HOOK_PATH),
                        WEBHOOK_TIMEOUT="5", API_THROTTLE_PER_MINUTE="100000",
                        REDIS_URL=os.environ.get("REDIS_URL"))

    return make
