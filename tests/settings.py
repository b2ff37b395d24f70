"""Test settings: the project's, plus a test-only app (``tests.kinds``) with a kind handed out by quantity."""

from assetsvc.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.kinds"]  # noqa: F405
# Each /health/ready call computes its answer (tests/ops/test_health.py sets the answer cache where it tests it).
ASSETSVC = {**ASSETSVC, "HEALTH_READY_CACHE_SECONDS": 0}  # noqa: F405
