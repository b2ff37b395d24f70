"""Finding assets by custom field values (API-CONTRACT.md §11.2, ``inventory/custom_filters.py``).

- The exact ``?<column>=`` filter ignores case: its index becomes ``(field_id, LOWER(SUBSTR(value, 1, 191)))``, the
  expression the filter compares, in place of the case-sensitive ``(field_id, SUBSTR(value, 1, 191))``; on
  PostgreSQL it includes ``asset_id``, so a lookup of a value shorter than 191 characters reads the index alone.
- ``?search=`` and ``filter=`` match values by substring: on PostgreSQL a ``pg_trgm`` index on ``UPPER(value)``
  answers that ``LIKE`` as it does for the asset's own columns (``0008_search_trigram_indexes``)."""

import django.db.models.functions.text
from django.db import migrations, models

from assetsvc.migration_ops import trigram_indexes


class Migration(migrations.Migration):
    dependencies = [("inventory", "0014_custom_fields")]

    operations = [
        migrations.RemoveIndex(model_name="assetfieldvalue", name="assetfieldvalue_lookup_idx"),
        migrations.AddIndex(
            model_name="assetfieldvalue",
            index=models.Index(
                models.F("field"),
                django.db.models.functions.text.Lower(django.db.models.functions.text.Substr("value", 1, 191)),
                include=["asset"],
                name="assetfieldvalue_lookup_ci_idx",
            ),
        ),
        trigram_indexes("inventory_assetfieldvalue", ("value",), "assetfieldvalue"),
    ]
