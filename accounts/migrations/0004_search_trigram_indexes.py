"""Trigram indexes on the user columns an asset ``?search=`` matches through the assigned user (first and last
name, username, employee number), on PostgreSQL where ``pg_trgm`` can be created (issue 13: at 10,000 users the
search's name lookup scanned them all)."""

from django.db import migrations

from assetsvc.migration_ops import trigram_indexes


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_list_indexes")]

    operations = [trigram_indexes("accounts_user", ("first_name", "last_name", "username", "employee_num"), "user")]
