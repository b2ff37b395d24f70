"""Issue 30: the authenticator seed is encrypted at rest (Fernet with ``FIELD_ENCRYPTION_KEY``, as encrypted custom
values and the webhook secret): the database never holds the hex seed, codes still verify, ``reencrypt_custom_values``
rotates it, a seed no configured key opens verifies nothing, and the migration moves django-otp's plain-hex rows
into the encrypted table."""

from __future__ import annotations

import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django_otp.oath import TOTP

from accounts.models import SealedTOTPDevice
from assetsvc import crypto
from tests.accounts.test_two_factor import enrol, sign_in
from tests.factories import UserFactory
from tests.migrating import migrate_to as _migrate
from tests.twofactor import totp_code

OLD_KEY = "old key, long and random enough"
NEW_KEY = "new key, long and random enough"
SEED = "3132333435363738393031323334353637383930"  # RFC 6238's test seed, in hex


def stored_key(device_id: int) -> str:
    """The column as the database holds it (no model field conversion)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key FROM {SealedTOTPDevice._meta.db_table} WHERE id = %s", [device_id])
        return cursor.fetchone()[0]


@pytest.fixture
def admin(db, settings):
    settings.FIELD_ENCRYPTION_KEYS = [OLD_KEY]
    return UserFactory(username="ada", first_name="Ada", superuser=True)


@pytest.mark.django_db
def test_after_enrolment_the_seed_is_not_in_the_database_and_codes_still_verify(admin):
    client, _ = sign_in(admin)
    enrol(client, admin)
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=True)
    seed = device.key
    assert len(seed) == 40 and bytes.fromhex(seed)
    raw = stored_key(device.pk)
    assert seed not in raw and seed.upper() not in raw and raw.startswith("gAAAAA")
    assert crypto.decrypt(raw) == seed
    client, _ = sign_in(admin)
    right = client.post("/admin/two-factor/verify/", {"code": totp_code(device, 1), "next": "/admin/"})
    assert right.status_code == 302 and right["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_key_rotation_rewrites_the_seed_with_the_new_key(admin, settings):
    client, _ = sign_in(admin)
    enrol(client, admin)
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=True)
    settings.FIELD_ENCRYPTION_KEYS = [NEW_KEY, OLD_KEY]
    out = StringIO()
    call_command("reencrypt_custom_values", stdout=out, stderr=StringIO())
    assert "1 authenticator seed(s) encrypted" in out.getvalue()
    settings.FIELD_ENCRYPTION_KEYS = [NEW_KEY]
    assert crypto.decrypt(stored_key(device.pk)) == device.key
    client, _ = sign_in(admin)
    right = client.post("/admin/two-factor/verify/", {"code": totp_code(device, 1), "next": "/admin/"})
    assert right.status_code == 302 and right["Location"] == "/admin/"


@pytest.mark.django_db
def test_a_seed_no_configured_key_opens_verifies_nothing(admin, settings):
    client, _ = sign_in(admin)
    enrol(client, admin)
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=True)
    raw = stored_key(device.pk)
    settings.FIELD_ENCRYPTION_KEYS = [NEW_KEY]
    empty_key_code = f"{TOTP(b'', 30, 0, 6, 0).token():06d}"  # what an empty HMAC key would give
    client, _ = sign_in(admin)
    wrong = client.post("/admin/two-factor/verify/", {"code": empty_key_code, "next": "/admin/"})
    assert wrong.status_code == 200 and "not valid" in wrong.content.decode()
    err = StringIO()
    call_command("reencrypt_custom_values", stdout=StringIO(), stderr=err)
    assert "1 authenticator seed(s) could not be decrypted" in err.getvalue()
    assert stored_key(device.pk) == raw  # left as stored, readable again once the old key is back


@pytest.mark.django_db
def test_no_admin_page_shows_a_seed(admin):
    client, _ = sign_in(admin)
    enrol(client, admin)
    seed = SealedTOTPDevice.objects.get(user=admin).key
    assert client.get("/admin/otp_totp/totpdevice/").status_code == 404  # django-otp's plain-seed device is unused
    assert client.get("/admin/accounts/sealedtotpdevice/").status_code == 404
    assert seed not in client.get(f"/admin/accounts/user/{admin.pk}/change/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_migration_moves_plain_hex_devices_into_the_encrypted_table(settings):
    settings.FIELD_ENCRYPTION_KEYS = [OLD_KEY]
    executor = MigrationExecutor(connection)
    leaves = [key for key in executor.loader.graph.leaf_nodes() if key[0] == "accounts"]
    before = [("accounts", "0007_user_ldap_import")]
    try:
        old = _migrate(before)
        User = old.get_model("accounts", "User")
        OldDevice = old.get_model("otp_totp", "TOTPDevice")
        user = User.objects.create(username="old-admin", permissions={"superuser": 1}, password="!")
        OldDevice.objects.create(user=user, name="Authenticator app", confirmed=True, key=SEED, drift=1, last_t=7)
        _migrate(leaves)
        device = SealedTOTPDevice.objects.get(user_id=user.pk)
        assert device.key == SEED and device.confirmed and device.drift == 1 and device.last_t == 7
        raw = stored_key(device.pk)
        assert SEED not in raw and crypto.decrypt(raw) == SEED
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM otp_totp_totpdevice")
            assert cursor.fetchone()[0] == 0
        totp = TOTP(bytes.fromhex(SEED), drift=1)
        totp.time = time.time()
        assert device.verify_token(f"{totp.token():06d}")
        # Backwards: the rows go back to django-otp's table in plain hex.
        old = _migrate(before)
        assert old.get_model("otp_totp", "TOTPDevice").objects.get(user_id=user.pk).key == SEED
    finally:
        _migrate(leaves)
