"""Trigram indexes for ``?search=`` on the asset's own columns, on PostgreSQL where ``pg_trgm`` can be created
(``assetsvc.migration_ops.trigram_indexes``; issue 13, docs/performance.md)."""

from django.db import migrations

from assetsvc.migration_ops import trigram_indexes


class Migration(migrations.Migration):
    dependencies = [("inventory", "0007_visible_set_indexes")]

    operations = [trigram_indexes("inventory_asset", ("name", "asset_tag", "serial", "order_number", "notes"),
                                  "asset")]
