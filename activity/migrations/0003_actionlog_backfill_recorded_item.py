# The backfill of activity 0002 (issue 25 items 3 and 4), in a migration of its own: on PostgreSQL the new
# column's index and foreign key are created at the end of 0002, which they cannot be once rows were updated in the
# same transaction ("pending trigger events").
#
# New rows record the item's name and serial as they were (``item_name``, ``item_serial``) and the target's company
# (``target_company``). Existing rows are filled from what the database holds now, which is only right where the
# item still belongs to the row's company: an item that moved to another company since would show that company's
# later name to the row's company, so those rows record nothing of the item (docs/decisions.md, issue 25).
# ``target_company`` of existing rows is the target's company now. No row changes company.

from django.db import migrations, models
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, Concat, NullIf, Trim

#: item_type -> (app label, model, whether it has a company, whether its serial is recorded)
KINDS = {
    "asset": ("inventory", "Asset", True, True),
    "user": ("accounts", "User", True, False),
    "accessory": ("inventory", "Accessory", True, False),
    "consumable": ("inventory", "Consumable", True, False),
    "component": ("inventory", "Component", True, True),
    "license": ("inventory", "License", True, False),  # a product key is never written to the log
    "location": ("inventory", "Location", True, False),
    "model": ("inventory", "AssetModel", False, False),
    "statuslabel": ("inventory", "StatusLabel", False, False),
    "category": ("inventory", "Category", False, False),
    "manufacturer": ("inventory", "Manufacturer", False, False),
    "supplier": ("inventory", "Supplier", False, False),
    "customfield": ("inventory", "CustomField", False, False),
    "customfieldset": ("inventory", "CustomFieldset", False, False),
}
TARGETS = {"user": ("accounts", "User"), "asset": ("inventory", "Asset"), "location": ("inventory", "Location")}


def _name(item_type):
    if item_type == "user":
        return Coalesce(NullIf(Trim(Concat("first_name", Value(" "), "last_name")), Value("")), "username")
    if item_type == "asset":
        return Coalesce(NullIf("name", Value("")), "asset_tag")
    return models.F("name")


def _fill(rows, items):
    """One UPDATE: each row of ``rows`` takes the name and serial of its item among ``items`` (null if none)."""
    rows.update(item_name=Subquery(items.values("recorded_name")[:1]),
                item_serial=Subquery(items.values("recorded_serial")[:1]))


def backfill(apps, schema_editor):
    ActionLog = apps.get_model("activity", "ActionLog")
    for item_type, (app_label, name, has_company, serial) in KINDS.items():
        model = apps.get_model(app_label, name)
        items = model._base_manager.filter(pk=OuterRef("item_id")).order_by().annotate(
            recorded_name=_name(item_type),
            recorded_serial=NullIf("serial", Value("")) if serial else Value(None, output_field=models.CharField()))
        rows = ActionLog.objects.filter(item_type=item_type)
        if not has_company:
            _fill(rows, items)
            continue
        # only where the item still belongs to the row's company (both without one counts as the same)
        _fill(rows.filter(company__isnull=False), items.filter(company_id=OuterRef("company_id")))
        _fill(rows.filter(company__isnull=True), items.filter(company__isnull=True))
    Company = apps.get_model("companies", "Company")
    ActionLog.objects.filter(item_type="company", company_id=models.F("item_id")).update(
        item_name=Subquery(Company.objects.filter(pk=OuterRef("item_id")).values("name")[:1]))
    for target_type, (app_label, name) in TARGETS.items():
        model = apps.get_model(app_label, name)
        ActionLog.objects.filter(target_type=target_type, target_id__isnull=False).update(
            target_company=Subquery(model._base_manager.filter(pk=OuterRef("target_id")).values("company_id")[:1]))


class Migration(migrations.Migration):

    dependencies = [
        ('activity', '0002_actionlog_recorded_item_and_target_company'),
    ]

    operations = [
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
