"""The effective configuration: environment overrides field by field, validation, #NA, deprecation warning."""

from __future__ import annotations

import pytest

from notifications.config import DEFAULT_BOTNAME, NO_CHANNEL, get_webhook_config

pytestmark = pytest.mark.django_db

WORKFLOWS = "https://prod-00.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x"
LEGACY = "https://example.webhook.office.com/webhookb2/abc/IncomingWebhook/def"


@pytest.fixture
def env(settings):
    def set_env(**values):
        settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "", "WEBHOOK_CHANNEL": "", "WEBHOOK_BOTNAME": "",
                             "WEBHOOK_PLATFORM": "", **values}

    set_env()
    return set_env


def configure(site, **values):
    for key, value in values.items():
        setattr(site, f"webhook_{key}", value)
    site.save()


def test_disabled_without_endpoint(site_settings, env):
    config = get_webhook_config()
    assert not config.enabled
    assert config.errors() == []


def test_site_settings_are_used(site_settings, env):
    configure(site_settings, platform="slack", endpoint="https://hooks.example.com/x", channel="#it", botname="")
    config = get_webhook_config()
    assert (config.platform, config.endpoint, config.effective_channel) == ("slack", "https://hooks.example.com/x",
                                                                            "#it")
    assert config.effective_botname == DEFAULT_BOTNAME
    assert config.errors() == [] and config.from_environment == frozenset()


def test_environment_overrides_each_field(site_settings, env):
    configure(site_settings, platform="slack", endpoint="https://a.example.com/x", channel="#it", botname="Bot")
    env(WEBHOOK_ENDPOINT="https://b.example.com/y", WEBHOOK_PLATFORM="GENERAL")
    config = get_webhook_config()
    assert (config.platform, config.endpoint, config.channel, config.botname) == (
        "general", "https://b.example.com/y", "#it", "Bot")
    assert config.from_environment == {"endpoint", "platform"}
    env(WEBHOOK_CHANNEL="#ops", WEBHOOK_BOTNAME="EnvBot")
    config = get_webhook_config()
    assert (config.endpoint, config.channel, config.botname) == ("https://a.example.com/x", "#ops", "EnvBot")


@pytest.mark.parametrize("platform", ["google", "microsoft"])
def test_channel_is_na_for_space_and_card_kinds(site_settings, env, platform):
    configure(site_settings, platform=platform, endpoint=WORKFLOWS, channel="")
    config = get_webhook_config()
    assert config.effective_channel == NO_CHANNEL
    assert config.errors() == []


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"WEBHOOK_ENDPOINT": "ftp://x"}, "must be an http:// or https:// URL"),
        ({"WEBHOOK_ENDPOINT": "not a url"}, "must be an http:// or https:// URL"),
        ({"WEBHOOK_SECRET": "too-short"}, "WEBHOOK_SECRET must be 16 to 255 characters"),
        ({"WEBHOOK_EVENTS": "asset.checked_out,asset.exploded"}, "Unknown webhook event(s): asset.exploded"),
        ({"WEBHOOK_PLATFORM": "irc"}, "Unknown webhook platform"),
    ],
)
def test_environment_values_are_validated(site_settings, env, overrides, message):
    configure(site_settings, platform="slack", endpoint="https://hooks.example.com/x", channel="#it")
    env(**overrides)
    assert any(message in error for error in get_webhook_config().errors())


def test_channel_kinds_need_a_channel(site_settings, env):
    configure(site_settings, platform="general", endpoint="https://hooks.example.com/x", channel="")
    assert get_webhook_config().errors() == ["This platform needs a channel."]


def test_space_kind_ignores_a_channel_without_hash(site_settings, env):
    configure(site_settings, platform="google", endpoint="https://chat.example.com/x", channel="")
    env(WEBHOOK_CHANNEL="general")
    assert get_webhook_config().errors() == []


@pytest.mark.parametrize(
    ("platform", "endpoint", "deprecated"),
    [
        ("microsoft", LEGACY, True),
        ("microsoft", WORKFLOWS, False),
        ("microsoft", "https://x.example.com/powerautomate/automations/direct/workflows/1/triggers/m", False),
        ("microsoft", "https://x.example.com/myworkflows/1", True),
        ("microsoft", "https://x.example.com/a?next=/workflows/", True),
        ("slack", LEGACY, False),
    ],
)
def test_card_kind_deprecation_warning(site_settings, env, platform, endpoint, deprecated):
    configure(site_settings, platform=platform, endpoint=endpoint, channel="#it")
    assert bool(get_webhook_config().warnings()) is deprecated
