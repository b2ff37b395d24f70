"""Issue 25 item 20: webhook settings given in the environment show, with their source, on the admin's settings page
and in ``site_settings show`` (the page showed Slack and an empty URL while the environment said otherwise)."""

from __future__ import annotations

import re
from html import unescape
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

ENV_SECRET = "an-environment-secret-0123"
ENV = {"WEBHOOK_PLATFORM": "general", "WEBHOOK_ENDPOINT": "https://env.example.com/hook?sig=1&x=2",
       "WEBHOOK_CHANNEL": "#ops", "WEBHOOK_SECRET": ENV_SECRET, "WEBHOOK_EVENTS": "asset.checked_out, asset.audited"}


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def from_environment(webhook, settings):
    webhook("slack", "", channel="", botname="")
    settings.ASSETSVC = {**settings.ASSETSVC, **ENV}


def effective_rows(html: str) -> dict[str, tuple[str, str]]:
    """``{setting: (value, source)}`` of the page's "in force" table."""
    table = re.search(r'<table id="webhook-effective".*?</table>', html, re.S)
    assert table, "no table of the webhook configuration in force"
    rows = {}
    for name, value, source in re.findall(
            r'<tr data-setting="([a-z_]+)">\s*<th[^>]*>.*?</th>\s*<td class="value"[^>]*>(.*?)</td>\s*'
            r'<td class="source">(.*?)</td>', table.group(0), re.S):
        rows[name] = (unescape(re.sub(r"<[^>]+>", "", value)).strip(), unescape(re.sub(r"<[^>]+>", "", source)).strip())
    return rows


def test_settings_page_shows_the_values_in_force_and_their_source(from_environment, admin_client):
    page = admin_client.get(reverse("admin:assetsvc_sitesettings_change", args=[1]))
    html = page.content.decode()
    rows = effective_rows(html)
    assert rows["webhook_platform"] == ("General webhook", "environment: WEBHOOK_PLATFORM")
    assert rows["webhook_endpoint"] == ("https://env.example.com/hook?sig=1&x=2", "environment: WEBHOOK_ENDPOINT")
    assert rows["webhook_channel"] == ("#ops", "environment: WEBHOOK_CHANNEL")
    assert rows["webhook_botname"] == ("Snipe-Bot", "default (no bot name saved)")
    assert rows["webhook_secret"] == ("********", "environment: WEBHOOK_SECRET")
    assert rows["webhook_events"] == ("asset.checked_out, asset.audited", "environment: WEBHOOK_EVENTS")
    assert ENV_SECRET not in html
    # Beside each overridden field, what is in force instead of the saved value.
    assert "Overridden by WEBHOOK_ENDPOINT" in html


def test_settings_page_names_saved_values_as_saved(webhook, admin_client, settings):
    webhook("google", "https://chat.example.com/x", channel="", botname="AssetBot")
    rows = effective_rows(admin_client.get(reverse("admin:assetsvc_sitesettings_change", args=[1])).content.decode())
    assert rows["webhook_platform"] == ("Space-based chat (Google Chat)", "saved setting")
    assert rows["webhook_endpoint"] == ("https://chat.example.com/x", "saved setting")
    assert rows["webhook_channel"] == ("#NA", "this platform has no channel")
    assert rows["webhook_botname"] == ("AssetBot", "saved setting")
    assert rows["webhook_secret"] == ("none", "deliveries are not signed")


def test_show_prints_the_values_in_force_and_their_source(from_environment):
    out = StringIO()
    call_command("site_settings", "show", stdout=out)
    lines = out.getvalue().splitlines()
    assert 'webhook_platform = general (from WEBHOOK_PLATFORM; saved: "slack")' in lines
    assert 'webhook_endpoint = https://env.example.com/hook?sig=1&x=2 (from WEBHOOK_ENDPOINT; saved: "")' in lines
    assert 'webhook_channel = #ops (from WEBHOOK_CHANNEL; saved: "")' in lines
    assert 'webhook_botname = ' in lines
    assert 'webhook_secret = ******** (from WEBHOOK_SECRET; saved: "")' in lines
    assert ('webhook_events = asset.checked_out,asset.audited (from WEBHOOK_EVENTS; saved: "asset.checked_out,'
            in out.getvalue())
    assert ENV_SECRET not in out.getvalue()


def test_set_says_when_the_environment_overrides_the_saved_value(from_environment):
    out = StringIO()
    call_command("site_settings", "set", "webhook_channel", "#saved", stdout=out)
    assert out.getvalue().splitlines() == ["webhook_channel = #saved (saved; WEBHOOK_CHANNEL overrides it: #ops)"]
