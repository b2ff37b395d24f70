"""A trigram index on the company name an asset ``?search=`` matches, on PostgreSQL where ``pg_trgm`` can be
created (issue 13: at 10,000 companies the search's name lookup scanned them all)."""

from django.db import migrations

from assetsvc.migration_ops import trigram_indexes


class Migration(migrations.Migration):
    dependencies = [("companies", "0002_list_indexes")]

    operations = [trigram_indexes("companies_company", ("name",), "company")]
