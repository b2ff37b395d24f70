"""``GET /api/v1/version`` (issue 27): Snipe-IT's bare ``{"version": ...}``, for any authenticated caller."""

from __future__ import annotations

import pytest

from assetsvc.api.views import SNIPEIT_COMPATIBLE_VERSION
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_version_is_the_snipeit_release_answered_as(make_client):
    for path in ("/api/v1/version", "/api/v1/version/"):
        response = make_client(UserFactory()).get(path)
        assert response.status_code == 200
        assert response.json() == {"version": SNIPEIT_COMPATIBLE_VERSION} == {"version": "v8.1.4"}


def test_version_needs_a_token(api_client):
    assert api_client.get("/api/v1/version").status_code == 401


def test_version_is_read_only(token_client):
    assert token_client.post("/api/v1/version", {}, format="json").status_code == 405
