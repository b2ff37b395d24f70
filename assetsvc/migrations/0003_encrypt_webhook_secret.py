"""Issue 25 item 9c: the webhook secret is stored encrypted with FIELD_ENCRYPTION_KEY.

The column becomes text (a token of a 255-character secret is about 440 characters), every saved plaintext secret is
encrypted with the first key, and the field becomes ``assetsvc.crypto.EncryptedTextField`` (no schema change).
Backwards, the secrets are decrypted again (one no configured key opens is left as it is)."""

from django.db import migrations, models

import assetsvc.crypto


def encrypt_plaintext(apps, schema_editor):
    from assetsvc.crypto import decrypt, encrypt

    SiteSettings = apps.get_model("assetsvc", "SiteSettings")
    for pk, value in SiteSettings.objects.exclude(webhook_secret="").values_list("pk", "webhook_secret"):
        if decrypt(value) is None:  # not already a token of ours: a plaintext secret
            SiteSettings.objects.filter(pk=pk).update(webhook_secret=encrypt(value.strip()))


def decrypt_tokens(apps, schema_editor):
    from assetsvc.crypto import decrypt

    SiteSettings = apps.get_model("assetsvc", "SiteSettings")
    for pk, value in SiteSettings.objects.exclude(webhook_secret="").values_list("pk", "webhook_secret"):
        plain = decrypt(value)
        if plain is not None:
            SiteSettings.objects.filter(pk=pk).update(webhook_secret=plain)


class Migration(migrations.Migration):

    dependencies = [
        ("assetsvc", "0002_webhook_secret_events"),
    ]

    operations = [
        migrations.AlterField(
            model_name="sitesettings",
            name="webhook_secret",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.RunPython(encrypt_plaintext, decrypt_tokens),
        migrations.AlterField(
            model_name="sitesettings",
            name="webhook_secret",
            field=assetsvc.crypto.EncryptedTextField(
                blank=True, default="", max_length=255,
                help_text="Signing secret, 16 to 255 characters; empty: deliveries are not signed."),
        ),
    ]
