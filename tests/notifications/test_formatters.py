"""The four platforms' bodies, compared as whole dicts with the specification's shapes (pure functions)."""

from __future__ import annotations

import pytest

from notifications.formatters import build_body

TEXT = "Asset TAG-1 (Laptop) was checked out to Grace Hopper by Ada Admin"

CARD = {
    "type": "message",
    "attachments": [
        {
            "contentType": "application/vnd.microsoft.card.adaptive",
            "content": {
                "type": "AdaptiveCard",
                "body": [{"type": "TextBlock", "text": TEXT}],
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "version": "1.0",
            },
        }
    ],
}


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        ("slack", {"channel": "#it", "text": TEXT, "username": "AssetBot", "icon_emoji": ""}),
        ("general", {"channel": "#it", "text": TEXT, "username": "AssetBot", "icon_emoji": ""}),
        ("google", {"text": TEXT}),
        ("microsoft", CARD),
    ],
)
def test_body_per_platform(platform, expected):
    assert build_body(platform, TEXT, channel="#it", username="AssetBot") == expected


def test_text_is_carried_verbatim():
    text = 'Asset {x} "quoted" <b> & ünïcode\n'
    assert build_body("google", text) == {"text": text}
    assert build_body("microsoft", text)["attachments"][0]["content"]["body"][0]["text"] == text


def test_unknown_platform_is_refused():
    with pytest.raises(ValueError, match="unknown webhook platform"):
        build_body("irc", TEXT)
