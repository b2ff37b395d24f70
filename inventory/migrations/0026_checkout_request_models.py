# Issue 32: requests of a model (asset or model, exactly one), the requester's note to IT, a model request's company.
# Existing rows are asset requests: they keep their asset, get an empty note and no company (they follow the asset).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('companies', '0003_search_trigram_indexes'),
        ('inventory', '0025_checkout_acceptances'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='checkoutrequest',
            name='company',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='companies.company'),
        ),
        migrations.AddField(
            model_name='checkoutrequest',
            name='model',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='checkout_requests', to='inventory.assetmodel'),
        ),
        migrations.AddField(
            model_name='checkoutrequest',
            name='note',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AlterField(
            model_name='checkoutrequest',
            name='asset',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='checkout_requests', to='inventory.asset'),
        ),
        migrations.AddConstraint(
            model_name='checkoutrequest',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('asset__isnull', False), ('model__isnull', True)), models.Q(('asset__isnull', True), ('model__isnull', False)), _connector='OR'), name='checkout_request_asset_xor_model'),
        ),
        migrations.AddConstraint(
            model_name='checkoutrequest',
            constraint=models.UniqueConstraint(models.F('model'), models.F('user'), condition=models.Q(('canceled_at__isnull', True), ('fulfilled_at__isnull', True)), name='checkout_request_one_open_model_per_user'),
        ),
    ]
