"""``/settings`` and ``/settings/{setting}`` (issue 27): the site settings for super users, validated as the admin
page validates, all or nothing; the webhook secret write-only; ``POST /settings/purge_barcodes``."""

from __future__ import annotations

import pytest
from django.db import connection

from assetsvc.api.site_settings import PurgeBarcodesView, SiteSettingsRecordView, SiteSettingsView
from assetsvc.models import SiteSettings
from tests.api_mixins import APIResource
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET = "s3cret-signing-key-0123456789"
READS = ["/api/v1/settings", "/api/v1/settings/1", "/api/v1/settings/1/"]


class TestSiteSettingsAPI(APIResource):
    url = "/api/v1/settings"
    viewset = SiteSettingsView


class TestSiteSettingsRecordAPI(APIResource):
    url = "/api/v1/settings/1"
    viewset = SiteSettingsRecordView


class TestPurgeBarcodesAPI(APIResource):
    url = "/api/v1/settings/purge_barcodes"
    viewset = PurgeBarcodesView


@pytest.fixture(autouse=True)
def _no_webhook_environment(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "", "WEBHOOK_CHANNEL": "", "WEBHOOK_BOTNAME": "",
                         "WEBHOOK_PLATFORM": "", "WEBHOOK_SECRET": "", "WEBHOOK_EVENTS": ""}


def test_anonymous_401_and_everyone_but_super_users_403(api_client, make_client, site_settings):
    writes = [("patch", "/api/v1/settings"), ("put", "/api/v1/settings"), ("post", "/api/v1/settings"),
              ("patch", "/api/v1/settings/1"), ("put", "/api/v1/settings/1"),
              ("post", "/api/v1/settings/purge_barcodes")]
    calls = [("get", url) for url in READS] + writes
    for method, url in calls:
        assert getattr(api_client, method)(url, {"audit_interval": 3}, format="json").status_code == 401, url
    admin = make_client(UserFactory(permissions={"admin": 1}))
    for client in (admin, make_client(UserFactory())):
        for method, url in calls:
            response = getattr(client, method)(url, {"audit_interval": 3}, format="json")
            assert response.status_code == 403, (method, url)
            assert response.json()["message"] == "Insufficient permissions."
    assert SiteSettings.load().audit_interval == 12  # nobody raised or changed anything


def test_the_record(token_client, site_settings):
    for url in READS:
        response = token_client.get(url)
        assert response.status_code == 200, url
        body = response.json()
        assert body["id"] == 1
        assert body["audit_interval"] == 12
        assert body["full_multiple_companies_support"] is False
        assert body["webhook_platform"] == "slack"
        assert body["webhook_secret_set"] is False
        assert "webhook_secret" not in body
        assert body["environment_overrides"] == {}
        assert isinstance(body["webhook_events"], list) and body["webhook_events"]  # the default events
        assert {"updated_at", "auto_increment_assets", "next_auto_tag_base", "require_checkinout_notes",
                "due_checkin_days", "audit_warning_days", "unique_serial"} <= set(body)


@pytest.mark.parametrize(("method", "url"), [  # POST is Snipe-IT's store route, on /settings only
    ("patch", "/api/v1/settings"), ("put", "/api/v1/settings"), ("post", "/api/v1/settings"),
    ("patch", "/api/v1/settings/1"), ("put", "/api/v1/settings/1")])
def test_a_write_changes_what_it_names_and_keeps_the_rest(token_client, site_settings, method, url):
    site_settings.auto_increment_prefix = "LAP-"
    site_settings.save()
    response = getattr(token_client, method)(url, {"audit_interval": "6", "unique_serial": "true",
                                                   "webhook_botname": "AssetBot", "unknown_key": 1}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "success"
    assert body["messages"] == "Settings saved."
    assert body["payload"]["audit_interval"] == 6
    assert body["payload"]["unique_serial"] is True
    saved = SiteSettings.load()
    assert (saved.audit_interval, saved.unique_serial, saved.webhook_botname) == (6, True, "AssetBot")
    assert saved.auto_increment_prefix == "LAP-"  # not named: kept


def test_form_data_writes_too(token_client, site_settings):
    response = token_client.patch("/api/v1/settings", "zerofill_count=7&show_archived_in_list=1",
                                  content_type="application/x-www-form-urlencoded")
    assert response.json()["status"] == "success"
    saved = SiteSettings.load()
    assert (saved.zerofill_count, saved.show_archived_in_list) == (7, True)


@pytest.mark.parametrize(("body", "field"), [
    ({"audit_interval": 0}, "audit_interval"),
    ({"audit_interval": "twelve"}, "audit_interval"),
    ({"zerofill_count": 41}, "zerofill_count"),
    ({"unique_serial": "maybe"}, "unique_serial"),
    ({"webhook_platform": "irc"}, "webhook_platform"),
    ({"webhook_endpoint": "ftp://hooks.example.com/x"}, "webhook_endpoint"),
    ({"webhook_endpoint": "https://hooks.example.com/x", "webhook_channel": ""}, "webhook_channel"),
    ({"webhook_events": "asset.checked_out,asset.exploded"}, "webhook_events"),
    ({"webhook_events": {"a": 1}}, "webhook_events"),
    ({"two_factor": "sometimes"}, "two_factor"),
])
def test_a_refused_value_is_a_field_error_and_nothing_is_written(token_client, site_settings, settings, body, field):
    response = token_client.patch("/api/v1/settings", {**body, "audit_warning_days": 30}, format="json")
    assert response.status_code == 200  # compat mode: the envelope with 200, as Snipe-IT
    answer = response.json()
    assert answer["status"] == "error"
    assert field in answer["messages"], answer
    saved = SiteSettings.load()
    assert saved.audit_warning_days == 14  # the valid part of the body was not written either
    assert saved.webhook_endpoint == ""
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    assert token_client.patch("/api/v1/settings", body, format="json").status_code == 422


def test_the_secret_is_write_only_and_never_echoed(token_client, site_settings):
    response = token_client.patch("/api/v1/settings", {"webhook_secret": SECRET}, format="json")
    assert response.json()["payload"]["webhook_secret_set"] is True
    assert SECRET not in response.content.decode()
    assert SECRET not in token_client.get("/api/v1/settings").content.decode()
    assert SiteSettings.load().webhook_secret == SECRET
    with connection.cursor() as cursor:  # encrypted at rest (issue 25)
        cursor.execute("SELECT webhook_secret FROM assetsvc_sitesettings WHERE id = 1")
        assert SECRET not in cursor.fetchone()[0]
    # Another write keeps it; a too short one is refused without being echoed; null clears it.
    token_client.patch("/api/v1/settings", {"webhook_botname": "Bot"}, format="json")
    assert SiteSettings.load().webhook_secret == SECRET
    short = token_client.patch("/api/v1/settings", {"webhook_secret": "tiny-secret"}, format="json")
    assert short.json()["status"] == "error"
    assert "tiny-secret" not in short.content.decode()
    assert "webhook_secret" in short.json()["messages"]
    assert SiteSettings.load().webhook_secret == SECRET
    token_client.patch("/api/v1/settings", {"webhook_secret": None}, format="json")
    assert SiteSettings.load().webhook_secret == ""


def test_webhook_events_as_a_list_or_a_text_an_empty_list_is_none_null_the_default(token_client, site_settings):
    answer = token_client.patch("/api/v1/settings", {"webhook_events": ["asset.checked_in", "asset.checked_out"]},
                                format="json").json()
    assert answer["payload"]["webhook_events"] == ["asset.checked_out", "asset.checked_in"]  # the registry's order
    assert SiteSettings.load().webhook_events == "asset.checked_out,asset.checked_in"
    token_client.patch("/api/v1/settings", {"webhook_events": []}, format="json")
    assert SiteSettings.load().webhook_events == ""
    assert token_client.get("/api/v1/settings").json()["webhook_events"] == []
    token_client.patch("/api/v1/settings", {"webhook_events": "asset.checked_out"}, format="json")
    assert SiteSettings.load().webhook_events == "asset.checked_out"
    for default in (None, ""):  # an empty text is null, as in every write (Laravel's empty strings)
        token_client.patch("/api/v1/settings", {"webhook_events": "asset.checked_out"}, format="json")
        token_client.patch("/api/v1/settings", {"webhook_events": default}, format="json")
        assert SiteSettings.load().webhook_events is None
        assert token_client.get("/api/v1/settings").json()["webhook_events"]  # the default list again


def test_a_channel_platform_with_its_channel(token_client, site_settings):
    answer = token_client.patch("/api/v1/settings", {"webhook_platform": "slack",
                                                     "webhook_endpoint": "https://hooks.example.com/x",
                                                     "webhook_channel": "#it"}, format="json").json()
    assert answer["status"] == "success", answer
    saved = SiteSettings.load()
    assert (saved.webhook_endpoint, saved.webhook_channel) == ("https://hooks.example.com/x", "#it")
    # null clears an optional text (and the endpoint's removal makes the channel optional again)
    token_client.patch("/api/v1/settings", {"webhook_endpoint": None, "webhook_channel": None}, format="json")
    saved = SiteSettings.load()
    assert (saved.webhook_endpoint, saved.webhook_channel) == ("", "")


def test_environment_overrides_are_listed_with_the_secret_masked(token_client, site_settings, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "https://env.example.com/hook",
                         "WEBHOOK_SECRET": SECRET}
    response = token_client.get("/api/v1/settings")
    assert response.json()["environment_overrides"] == {
        "webhook_endpoint": {"variable": "WEBHOOK_ENDPOINT", "value": "https://env.example.com/hook"},
        "webhook_secret": {"variable": "WEBHOOK_SECRET", "value": "********"},
    }
    assert SECRET not in response.content.decode()


@pytest.mark.parametrize("setting", ["2", "0", "abc", "audit_interval"])
def test_any_other_setting_id_is_not_found(token_client, site_settings, settings, setting):
    url = f"/api/v1/settings/{setting}"
    for method in ("get", "patch", "put"):
        answer = getattr(token_client, method)(url, {"audit_interval": 3}, format="json").json()
        assert (answer["status"], answer["message"]) == ("error", "Setting not found."), (method, url)
    assert SiteSettings.load().audit_interval == 12
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    assert token_client.get(url).status_code == 404
    assert token_client.delete("/api/v1/settings/1").status_code == 405


def test_a_change_takes_effect_on_the_next_request(token_client, make_client, company, other_company):
    from tests.factories import AssetFactory

    AssetFactory(company=other_company)
    viewer = make_client(UserFactory(company=company, permissions={"assets.view": 1}))
    assert viewer.get("/api/v1/hardware").json()["total"] == 1
    token_client.patch("/api/v1/settings", {"full_multiple_companies_support": True}, format="json")
    assert viewer.get("/api/v1/hardware").json()["total"] == 0


def test_purge_barcodes_answers_snipe_its_message(token_client):
    response = token_client.post("/api/v1/settings/purge_barcodes")
    assert response.status_code == 200
    assert response.json() == {"status": "success", "message": "Deleted 0 barcodes",
                               "messages": "Deleted 0 barcodes", "payload": None}
    assert token_client.get("/api/v1/settings/purge_barcodes").status_code == 405


def test_two_factor_is_a_setting(token_client, site_settings):
    """Issue 30: who must use two-factor sign-in (docs/directory.md)."""
    assert token_client.get("/api/v1/settings").json()["two_factor"] == "optional"
    response = token_client.patch("/api/v1/settings", {"two_factor": "admins"}, format="json")
    assert response.json()["status"] == "success", response.json()
    assert SiteSettings.load().two_factor == "admins"
