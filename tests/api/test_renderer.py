"""The orjson renderer (issue 13) answers byte for byte what DRF's own JSON renderer answers."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from assetsvc.api.renderers import ApiJSONRenderer
from inventory.choices import StatusType
from tests.factories import AssetFactory

AWARE = datetime.datetime(2026, 3, 1, 14, 5, 7, 123456, tzinfo=datetime.UTC)


@pytest.mark.parametrize("data", [
    {"status": "success", "rows": [{"id": 1, "name": "Ünïcode ✓", "ok": True, "none": None, "cost": 1.5}]},
    {"when": AWARE, "day": datetime.date(2026, 3, 1), "time": datetime.time(14, 5),
     "naive": AWARE.replace(tzinfo=None)},
    {"cost": decimal.Decimal("1234.50"), "id": uuid.UUID(int=7), "lazy": gettext_lazy("Asset created")},
    {"type": StatusType.DEPLOYABLE, "nested": [[1, 2], {"k": "v"}], "empty": {}},
    {"separators": "line\u2028paragraph\u2029end", "control": "tab\tquote\"backslash\\"},
    {"huge": 2**70},
    [1, "two", None],
])
def test_same_bytes_as_drf(data):
    assert ApiJSONRenderer().render(data) == JSONRenderer().render(data)


def test_indent_is_honoured():
    assert ApiJSONRenderer().render({"a": 1}, "application/json; indent=2") == b'{\n  "a": 1\n}'


@pytest.mark.django_db
def test_a_hardware_page_is_the_same_json(token_client):
    AssetFactory.create_batch(3, name="Laptop ✓")
    response = token_client.get("/api/v1/hardware")
    assert response["Content-Type"] == "application/json"
    assert response.content == JSONRenderer().render(json.loads(response.content))
