"""Issue 30: authenticator seeds encrypted at rest. The new table ``SealedTOTPDevice`` keeps the seed as a Fernet
token (``FIELD_ENCRYPTION_KEY``); the rows of django-otp's ``TOTPDevice`` (plain hex seed) move into it, encrypted
by the field on save, and leave django-otp's table."""

import accounts.models
import assetsvc.crypto
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

COPIED = ("user_id", "name", "confirmed", "throttling_failure_timestamp", "throttling_failure_count", "last_used_at",
          "key", "step", "t0", "digits", "tolerance", "drift", "last_t")


def _move(source, target) -> None:
    for row in source.objects.order_by("pk"):
        moved = target.objects.create(**{field: getattr(row, field) for field in COPIED})
        target.objects.filter(pk=moved.pk).update(created_at=row.created_at)  # auto_now_add would set now
        row.delete()


def seal_seeds(apps, schema_editor) -> None:
    _move(apps.get_model("otp_totp", "TOTPDevice"), apps.get_model("accounts", "SealedTOTPDevice"))


def unseal_seeds(apps, schema_editor) -> None:
    _move(apps.get_model("accounts", "SealedTOTPDevice"), apps.get_model("otp_totp", "TOTPDevice"))


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0007_user_ldap_import'),
        ('otp_totp', '0003_add_timestamps'),
    ]

    operations = [
        migrations.CreateModel(
            name='SealedTOTPDevice',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='The human-readable name of this device.', max_length=64)),
                ('confirmed', models.BooleanField(default=True, help_text='Is this device ready for use?')),
                ('throttling_failure_timestamp', models.DateTimeField(blank=True, default=None, help_text='A timestamp of the last failed verification attempt. Null if last attempt succeeded.', null=True)),
                ('throttling_failure_count', models.PositiveIntegerField(default=0, help_text='Number of successive failed attempts.')),
                ('created_at', models.DateTimeField(auto_now_add=True, help_text='The date and time when this device was initially created in the system.', null=True)),
                ('last_used_at', models.DateTimeField(blank=True, help_text='The most recent date and time this device was used.', null=True)),
                ('key', assetsvc.crypto.EncryptedTextField(default=accounts.models.new_totp_key, help_text='The hex-encoded seed, stored encrypted.')),
                ('step', models.PositiveSmallIntegerField(default=30, help_text='Seconds per time step.')),
                ('t0', models.BigIntegerField(default=0, help_text='The Unix time step counting starts at.')),
                ('digits', models.PositiveSmallIntegerField(choices=[(6, 6), (8, 8)], default=6)),
                ('tolerance', models.PositiveSmallIntegerField(default=1, help_text='Time steps either side accepted.')),
                ('drift', models.SmallIntegerField(default=0, help_text="Time steps the app's clock is known to be off.")),
                ('last_t', models.BigIntegerField(default=-1, help_text='The time step of the last code accepted.')),
                ('user', models.ForeignKey(help_text='The user that this device belongs to.', on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'authenticator app',
                'abstract': False,
            },
        ),
        migrations.RunPython(seal_seeds, unseal_seeds),
    ]
