# ActionLog moved to the activity app (issue 9: the action log is infrastructure, below every domain app). Only the
# model state moves; the table inventory_actionlog and every row in it stay. The admin's content type follows, so
# admin history entries of action-log rows keep pointing at the model.

from django.db import migrations


def move_content_type(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if ContentType.objects.filter(app_label="activity", model="actionlog").exists():
        return
    ContentType.objects.filter(app_label="inventory", model="actionlog").update(app_label="activity")


def move_content_type_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if ContentType.objects.filter(app_label="inventory", model="actionlog").exists():
        return
    ContentType.objects.filter(app_label="activity", model="actionlog").update(app_label="inventory")


class Migration(migrations.Migration):

    dependencies = [
        ("activity", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("inventory", "0002_location_name_ci_unique"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ActionLog")],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
