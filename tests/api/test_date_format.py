"""``API_DATE_FORMAT`` (API-CONTRACT.md §3): ``iso`` (default) renders the specification's strings; ``snipeit`` renders
the timestamps of assets, items, companies and action-log rows as Snipe-IT's ``{"datetime", "formatted"}`` objects in
``TIME_ZONE`` and dates as ``{"date", "formatted"}`` (null stays null), for scripts that index into them (jamf2snipe
reads ``rows[0].updated_at.datetime`` from ``byserial``). Users, ``/users/me``, groups and token records keep their
own shapes; writes accept the same inputs in both modes. Also the web root ``GET /`` that jamf2snipe probes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from tests.factories import AccessoryFactory, AssetFactory, CompanyFactory, UserFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent.parent
DATETIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


@pytest.fixture
def snipeit_dates(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_DATE_FORMAT": "snipeit"}
    settings.TIME_ZONE = "Europe/Berlin"


def is_datetime_object(value) -> bool:
    return (isinstance(value, dict) and set(value) == {"datetime", "formatted"}
            and DATETIME.fullmatch(value["datetime"]) is not None)


def test_default_records_keep_the_specification_strings(token_client):
    asset = AssetFactory(purchase_date=date(2025, 3, 1))
    record = token_client.get(f"/api/v1/hardware/{asset.pk}").json()
    assert ISO.fullmatch(record["created_at"]) and ISO.fullmatch(record["updated_at"])
    assert record["purchase_date"] == "2025-03-01" and record["deleted_at"] is None


def test_snipeit_mode_renders_asset_timestamps_and_dates_as_objects(token_client, snipeit_dates):
    asset = AssetFactory(purchase_date=date(2025, 3, 1), warranty_months=12, serial="C02XYZ")
    other = AssetFactory()
    token_client.post(f"/api/v1/hardware/{other.pk}/checkout",
                      {"checkout_to_type": "user", "assigned_user": UserFactory().pk}, format="json")

    record = token_client.get(f"/api/v1/hardware/{asset.pk}").json()

    assert is_datetime_object(record["created_at"]) and is_datetime_object(record["updated_at"])
    assert record["purchase_date"] == {"date": "2025-03-01", "formatted": "2025-03-01"}
    assert record["warranty_expires"] == {"date": "2026-03-01", "formatted": "2026-03-01"}
    assert record["deleted_at"] is None and record["last_checkout"] is None and record["expected_checkin"] is None
    # In TIME_ZONE, as Snipe-IT shows it: the same instant as the stored UTC value.
    from django.utils import timezone

    asset.refresh_from_db()
    local = timezone.localtime(asset.updated_at, timezone=timezone.get_current_timezone())
    assert record["updated_at"]["datetime"] == local.strftime("%Y-%m-%d %H:%M:%S")
    # jamf2snipe's read: rows[0].updated_at.datetime from byserial.
    rows = token_client.get("/api/v1/hardware/byserial/C02XYZ").json()["rows"]
    assert rows[0]["updated_at"]["datetime"] == record["updated_at"]["datetime"]
    listed = token_client.get("/api/v1/hardware", {"limit": 5}).json()["rows"]
    assert all(is_datetime_object(row["created_at"]) for row in listed)
    assert any(is_datetime_object(row["last_checkout"]) for row in listed)


def test_snipeit_mode_covers_items_companies_and_the_action_log(token_client, snipeit_dates):
    company = CompanyFactory()
    accessory = AccessoryFactory(purchase_date=date(2024, 12, 24))
    asset = AssetFactory()
    token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                      {"checkout_to_type": "user", "assigned_user": UserFactory().pk}, format="json")

    item = token_client.get(f"/api/v1/accessories/{accessory.pk}").json()
    assert is_datetime_object(item["created_at"])
    assert item["purchase_date"] == {"date": "2024-12-24", "formatted": "2024-12-24"}
    assert is_datetime_object(token_client.get(f"/api/v1/companies/{company.pk}").json()["created_at"])
    log = token_client.get("/api/v1/reports/activity").json()["rows"][0]
    assert is_datetime_object(log["created_at"]) and is_datetime_object(log["action_date"])


def test_snipeit_mode_leaves_users_groups_and_tokens_as_specified(token_client, snipeit_dates):
    me = token_client.get("/api/v1/users/me").json()
    assert is_datetime_object(me["created_at"])  # the specification's own user shape, in both modes
    token = token_client.get("/api/v1/account/personal-access-tokens").json()["payload"][0]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", token["created_at"])
    group = token_client.post("/api/v1/groups", {"name": "Desk", "permissions": {}}, format="json").json()
    assert ISO.fullmatch(group["payload"]["created_at"]), group


def test_writes_take_the_same_inputs_in_snipeit_mode(token_client, snipeit_dates):
    asset = AssetFactory()
    answer = token_client.patch(f"/api/v1/hardware/{asset.pk}", {"purchase_date": "2025-06-30"}, format="json").json()
    assert answer["status"] == "success"
    assert answer["payload"]["purchase_date"] == {"date": "2025-06-30", "formatted": "2025-06-30"}
    asset.refresh_from_db()
    assert asset.purchase_date == date(2025, 6, 30)


def test_a_bad_setting_fails_at_start_up():
    env = {**os.environ, "API_DATE_FORMAT": "laravel", "DJANGO_SETTINGS_MODULE": "assetsvc.settings"}
    result = subprocess.run([sys.executable, "-c", "import assetsvc.settings"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "ImproperlyConfigured: API_DATE_FORMAT must be 'iso' or 'snipeit'" in result.stderr


def test_the_web_root_answers_a_page_that_links_the_admin_docs_and_api(client):
    response = client.get("/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    for link in ('href="/admin/"', 'href="/api/docs"', 'href="/api/v1"'):
        assert link in page
    assert client.head("/").status_code == 200
    assert client.post("/").status_code == 405
