"""One pure function per platform: message text (plus channel and bot name) → the JSON body the specification gives.

Specification, Events / Payload shapes, and API-CONTRACT.md §8:

* channel-based chat (``slack``) and general webhook (``general``): ``{channel, text, username, icon_emoji: ""}``;
* space-based chat (``google``): ``{text}``;
* card-based workflow chat (``microsoft``): an adaptive card with one ``TextBlock``.
"""

from __future__ import annotations

from typing import Any

ADAPTIVE_CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
ADAPTIVE_CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"


def channel_chat_body(text: str, *, channel: str, username: str) -> dict[str, Any]:
    return {"channel": channel, "text": text, "username": username, "icon_emoji": ""}


def general_webhook_body(text: str, *, channel: str, username: str,
                         details: dict[str, Any] | None = None) -> dict[str, Any]:
    # The specification does not show it; API-CONTRACT.md §8 makes it the channel kind's body, which is what the
    # specification's example receivers read (channel, text, username); §8a adds the machine-readable keys after
    # them (event, occurred_at, actor, item, target, quantity, note, delivery_id).
    return {**channel_chat_body(text, channel=channel, username=username), **(details or {})}


def space_chat_body(text: str) -> dict[str, Any]:
    return {"text": text}


def card_chat_body(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": ADAPTIVE_CARD_CONTENT_TYPE,
                "content": {
                    "type": "AdaptiveCard",
                    "body": [{"type": "TextBlock", "text": text}],
                    "$schema": ADAPTIVE_CARD_SCHEMA,
                    "version": "1.0",
                },
            }
        ],
    }


def build_body(platform: str, text: str, *, channel: str = "", username: str = "",
               details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body for ``platform`` (a ``assetsvc.models.WebhookPlatform`` value); ``details`` (the general kind's
    machine-readable keys) are left out of the chat kinds' bodies."""
    if platform == "slack":
        return channel_chat_body(text, channel=channel, username=username)
    if platform == "general":
        return general_webhook_body(text, channel=channel, username=username, details=details)
    if platform == "google":
        return space_chat_body(text)
    if platform == "microsoft":
        return card_chat_body(text)
    raise ValueError(f"unknown webhook platform {platform!r}")
