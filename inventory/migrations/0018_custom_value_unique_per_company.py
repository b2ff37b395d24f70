"""Unique custom values per company when separation is on (issue 25; docs/decisions.md, docs/custom-fields.md).

``AssetFieldValue.unique_scope`` holds the asset's company id (0: none) next to ``unique_key``, and the partial unique
constraint becomes ``(field, unique_scope, unique_key)``. Existing unique keys get their asset's company; values stay
unique across companies until separation is switched on, as the services check across scopes while it is off."""

from django.db import migrations, models


def fill_scopes(apps, schema_editor):
    AssetFieldValue = apps.get_model("inventory", "AssetFieldValue")
    Asset = apps.get_model("inventory", "Asset")
    company = Asset.objects.filter(pk=models.OuterRef("asset_id")).values("company_id")[:1]
    AssetFieldValue.objects.filter(unique_key__isnull=False, asset__company_id__isnull=False).update(
        unique_scope=models.Subquery(company))


class Migration(migrations.Migration):
    dependencies = [("inventory", "0017_asset_tag_key_unique_alive")]

    operations = [
        migrations.AddField(
            model_name="assetfieldvalue",
            name="unique_scope",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(fill_scopes, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="assetfieldvalue", name="assetfieldvalue_unique_value"),
        migrations.AddConstraint(
            model_name="assetfieldvalue",
            constraint=models.UniqueConstraint(
                condition=models.Q(("unique_key__isnull", False)),
                fields=("field", "unique_scope", "unique_key"),
                name="assetfieldvalue_unique_value_in_scope",
            ),
        ),
    ]
