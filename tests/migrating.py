"""Migrating the test database to a point of its history and back (the tests that migrate a populated database)."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate_to(targets):
    """Migrate to ``targets`` (``[(app, migration name or None)]``); the historical apps at that state."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)._create_project_state(with_applied_migrations=True).apps
