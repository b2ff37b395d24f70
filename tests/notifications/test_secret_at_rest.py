"""Issue 25 item 9c: the webhook secret is encrypted at rest (Fernet with ``FIELD_ENCRYPTION_KEY``, as encrypted
custom values), a migration encrypts secrets saved in plain text, ``reencrypt_custom_values`` rotates it, and a
secret no configured key opens is never used as "no secret" (nothing is sent, the reason is recorded)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from assetsvc import crypto
from assetsvc.models import SiteSettings
from notifications.models import WebhookDelivery
from notifications.signing import verify
from tests.migrating import migrate_to as _migrate
from tests.notifications.conftest import HOOK_PATH
from tests.notifications.test_signing import checkout

SECRET = "a-webhook-secret-at-rest-0123"
OLD_KEY = "old key, long and random enough"
NEW_KEY = "new key, long and random enough"


def stored_secret() -> str:
    """The column as the database holds it (no model field conversion)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT webhook_secret FROM assetsvc_sitesettings WHERE id = 1")
        return cursor.fetchone()[0]


@pytest.fixture
def signed_endpoint(webhook, receiver, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "", "WEBHOOK_EVENTS": ""}
    settings.FIELD_ENCRYPTION_KEYS = [OLD_KEY]
    webhook("general", receiver.url_for(HOOK_PATH), channel="#it")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    return receiver


def test_secret_set_by_the_command_is_stored_encrypted_and_still_signs(signed_endpoint, admin_user):
    call_command("site_settings", "set", "webhook_secret", SECRET, stdout=StringIO())
    raw = stored_secret()
    assert SECRET not in raw and raw.startswith("gAAAAA")
    assert crypto.decrypt(raw) == SECRET
    assert SiteSettings.load().webhook_secret == SECRET
    checkout(admin_user)
    request = signed_endpoint.log[0][0]
    assert verify(SECRET, request.headers, request.get_data())


def test_secret_saved_on_the_admin_page_is_stored_encrypted(signed_endpoint, client, admin_user):
    client.force_login(admin_user)
    url = reverse("admin:assetsvc_sitesettings_change", args=[1])
    page = client.get(url)
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and value is not False}
    data.update(webhook_secret=SECRET, webhook_events=list(form.initial["webhook_events"]))
    answer = client.post(url, data)
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    raw = stored_secret()
    assert SECRET not in raw and crypto.decrypt(raw) == SECRET
    # Saving the page again with the secret left blank keeps it (re-encrypted, same plaintext).
    data["webhook_secret"] = ""
    assert client.post(url, data).status_code == 302
    assert crypto.decrypt(stored_secret()) == SECRET


def test_key_rotation_covers_the_webhook_secret(signed_endpoint, admin_user, settings):
    call_command("site_settings", "set", "webhook_secret", SECRET, stdout=StringIO())
    settings.FIELD_ENCRYPTION_KEYS = [NEW_KEY, OLD_KEY]
    out = StringIO()
    call_command("reencrypt_custom_values", stdout=out, stderr=StringIO())
    assert "webhook secret" in out.getvalue()
    settings.FIELD_ENCRYPTION_KEYS = [NEW_KEY]
    assert crypto.decrypt(stored_secret()) == SECRET
    checkout(admin_user)
    request = signed_endpoint.log[0][0]
    assert verify(SECRET, request.headers, request.get_data())


def test_a_secret_no_key_opens_sends_nothing_and_records_why(signed_endpoint, admin_user, settings):
    call_command("site_settings", "set", "webhook_secret", SECRET, stdout=StringIO())
    token = stored_secret()
    settings.FIELD_ENCRYPTION_KEYS = [NEW_KEY]
    out = StringIO()
    call_command("site_settings", "show", stdout=out)
    assert "webhook_secret = ******** (cannot be decrypted" in out.getvalue()
    # Changing another setting keeps the stored secret as it was.
    call_command("site_settings", "set", "webhook_botname", "Bot", stdout=StringIO())
    assert stored_secret() == token
    checkout(admin_user)
    assert signed_endpoint.log == []  # never sent unsigned
    row = WebhookDelivery.objects.get()
    assert (row.success, row.error) == (False, "InvalidConfiguration")
    assert "cannot be decrypted" in row.reason
    stderr = StringIO()
    call_command("reencrypt_custom_values", stdout=StringIO(), stderr=stderr)
    assert "webhook secret" in stderr.getvalue()
    assert stored_secret() == token


@pytest.mark.django_db(transaction=True)
def test_migration_encrypts_a_plaintext_secret_and_keeps_it_working(settings):
    settings.FIELD_ENCRYPTION_KEYS = [OLD_KEY]
    executor = MigrationExecutor(connection)
    leaves = [key for key in executor.loader.graph.leaf_nodes() if key[0] == "assetsvc"]
    try:
        old = _migrate([("assetsvc", "0002_webhook_secret_events")])
        OldSettings = old.get_model("assetsvc", "SiteSettings")
        OldSettings.objects.update_or_create(pk=1, defaults={"webhook_secret": SECRET})
        assert stored_secret() == SECRET
        _migrate(leaves)
        raw = stored_secret()
        assert SECRET not in raw and crypto.decrypt(raw) == SECRET
        assert SiteSettings.load().webhook_secret == SECRET
        # Backwards: the secret is plain text again.
        _migrate([("assetsvc", "0002_webhook_secret_events")])
        assert stored_secret() == SECRET
    finally:
        _migrate(leaves)
