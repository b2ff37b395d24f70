"""``docs/quickstart.md`` stays true: each ``curl`` command of its shell blocks is sent, in order, to the service
(Django's test client, with the page's token and base URL), and each answer must be the success the page shows:
the same ``messages`` text, in the order the page gives them."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from django.contrib.auth.hashers import make_password
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import personal_token_issue

PAGE = Path(__file__).resolve().parent.parent.parent / "docs" / "quickstart.md"
API = "http://testserver/api/v1"


def commands(text: str) -> list[list[str]]:
    """The ``curl`` lines of the page's ``sh`` blocks (continuations joined), split as the shell would."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.startswith("curl"):
                found.append(shlex.split(line.split(" #")[0]))
    return found


def shown_messages(text: str) -> list[str]:
    """The success ``messages`` of the answers the page shows, in order."""
    return re.findall(r'\{"status":"success","messages":"([^"]+)"', text)


def send(client: APIClient, argv: list[str], token: str):
    method, body, url = "GET", None, None
    words = iter(argv[1:])
    for word in words:
        if word == "-X":
            method = next(words)
        elif word == "-d":
            body = next(words)
        elif word == "-H":
            next(words)  # the token and content type are set below
        elif not word.startswith("-"):
            url = word.replace("$API", API).replace("$TOKEN", token)
    assert url and url.startswith(API), argv
    return client.generic(method, url.removeprefix("http://testserver"), body or "",
                          content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_quickstart_commands_answer_what_the_page_shows():
    text = PAGE.read_text(encoding="utf-8")
    admin = User.objects.create(username="admin", first_name="Admin", email="admin@example.com",
                                password=make_password("x"), permissions={"superuser": 1})
    assert admin.pk == 1  # the page's ids are those of a fresh database
    _record, token = personal_token_issue(user=admin, name="make run")
    client, got = APIClient(), []
    argv_list = commands(text)
    assert len(argv_list) >= 12
    for argv in argv_list:
        response = send(client, argv, token)
        assert response.status_code == 200, (argv, response.content[:300])
        body = response.json()
        assert body.get("status") != "error", (argv, body)
        if body.get("status") == "success":
            got.append(body["messages"])
        if "rows" in body:
            assert body["total"] >= 1, argv
    assert got == shown_messages(text)
    history = json.loads(client.get("/api/v1/hardware/1/history", HTTP_AUTHORIZATION=f"Bearer {token}").content)
    assert [row["action_type"] for row in history["rows"]] == ["audit", "checkin from", "checkout", "create new"]
