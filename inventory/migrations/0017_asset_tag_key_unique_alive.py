"""Issue 25: live assets' tag keys are unique (0016 filled them, look-alike duplicates of before kept without one)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0016_asset_tag_lookalike_key'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='asset',
            constraint=models.UniqueConstraint(condition=models.Q(('deleted_at__isnull', True)),
                                               fields=('asset_tag_key',), name='asset_tag_key_unique_alive'),
        ),
    ]
