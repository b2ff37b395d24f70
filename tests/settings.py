"""Test settings: the project's, plus a test-only app (``tests.kinds``) with a kind handed out by quantity."""

from assetsvc.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.kinds"]  # noqa: F405
