"""Issue 25: the folded key of every asset tag, unique among live assets, so a look-alike of a tag (a decomposed
``Å``, a zero-width character, fullwidth letters) is refused like the tag itself.

Existing look-alike duplicates must not make the migration fail: among live assets sharing a key, the oldest (lowest
id) gets it and the others keep a null key (a null never conflicts). They stay valid and work as before; writing
their tag again (PATCH, restore) gives them a key, so they are refused until renamed. Deleted assets get their key
(the constraint ignores them; restoring one checks it). docs/decisions.md "Issue 25: look-alike asset tags".
The unique constraint comes in the next migration: PostgreSQL builds no index on a table with row changes of the same
transaction still pending their triggers (the live-asset tally's).
"""

import unicodedata

from django.conf import settings
from django.db import migrations, models

BATCH = 2000


def tag_key(text):
    """``inventory.tags.tag_key`` as of this migration (frozen here, as migrations must be)."""
    text = unicodedata.normalize("NFC", text or "")
    text = "".join(char for char in text if unicodedata.category(char) != "Cf").strip()
    folded = unicodedata.normalize("NFKC", text).casefold()
    return unicodedata.normalize("NFKC", folded).strip()


def fill_keys(apps, schema_editor):
    Asset = apps.get_model("inventory", "Asset")
    seen = set()
    batch = []
    rows = Asset.objects.order_by("id").only("id", "asset_tag", "deleted_at")
    for asset in rows.iterator(chunk_size=BATCH):
        key = tag_key(asset.asset_tag)
        if asset.deleted_at is None:
            if key in seen:
                key = None  # a look-alike duplicate from before the rule: kept, without a key
            else:
                seen.add(key)
        asset.asset_tag_key = key
        batch.append(asset)
        if len(batch) >= BATCH:
            Asset.objects.bulk_update(batch, ["asset_tag_key"])
            batch = []
    if batch:
        Asset.objects.bulk_update(batch, ["asset_tag_key"])


class Migration(migrations.Migration):

    dependencies = [
        ('companies', '0003_search_trigram_indexes'),
        ('inventory', '0015_custom_value_lookup_ci'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='asset',
            name='asset_tag_key',
            field=models.TextField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop, elidable=False),
    ]
