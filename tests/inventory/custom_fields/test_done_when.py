"""Issue 15's "Done when", through /api/v1 alone: fields, a fieldset, a model, assets with values, reads, a PATCH
echoed unchanged, a lookup by column, ENCRYPTED for a caller without the permission, and a partial bulk update."""

from __future__ import annotations

import pytest

from tests.factories import CategoryFactory, ManufacturerFactory, StatusLabelFactory, UserFactory

API = "/api/v1"
pytestmark = pytest.mark.django_db


def ok(response) -> dict:
    body = response.json()
    assert response.status_code == 200 and body.get("status", "success") == "success", body
    return body


def test_done_when_flow(token_client, make_client):
    mac = ok(token_client.post(f"{API}/fields", {"name": "MAC Address", "element": "text", "format": "MAC"},
                               format="json"))["payload"]
    ram = ok(token_client.post(f"{API}/fields", {"name": "RAM MB", "element": "text", "format": "NUMERIC"},
                               format="json"))["payload"]
    key = ok(token_client.post(f"{API}/fields", {"name": "FileVault Key", "element": "text",
                                                 "field_encrypted": True}, format="json"))["payload"]
    fieldset = ok(token_client.post(f"{API}/fieldsets", {"name": "Macs"}, format="json"))["payload"]
    for field in (mac, ram, key):
        ok(token_client.post(f"{API}/fields/{field['id']}/associate", {"fieldset_id": fieldset["id"]},
                             format="json"))
    model = ok(token_client.post(f"{API}/models", {
        "name": "MacBook Pro", "category_id": CategoryFactory().pk, "manufacturer_id": ManufacturerFactory().pk,
        "fieldset_id": fieldset["id"]}, format="json"))["payload"]
    status = StatusLabelFactory()
    columns = {name: field["db_column_name"] for name, field in (("mac", mac), ("ram", ram), ("key", key))}

    assets = []
    for n in range(3):
        sent = {"asset_tag": f"MAC-{n}", "model_id": model["id"], "status_id": status.pk,
                columns["mac"]: f"AA:BB:CC:DD:EE:0{n}", columns["ram"]: 16384, columns["key"]: f"KEY-{n}"}
        created = ok(token_client.post(f"{API}/hardware", sent, format="json"))["payload"]
        assert all(created[column] == sent[column] for column in columns.values())
        assets.append(created["id"])

    record = ok(token_client.get(f"{API}/hardware/{assets[0]}"))
    assert {name: entry["value"] for name, entry in record["custom_fields"].items()} == {
        "MAC Address": "AA:BB:CC:DD:EE:00", "RAM MB": "16384", "FileVault Key": "KEY-0"}

    # a jamf2snipe-style update: PATCH, then compare each sent key (text, number, empty string) with the payload
    for pk, sent in ((assets[0], {columns["mac"]: "AA:BB:CC:DD:EE:99", columns["ram"]: 32768, "name": "Renamed"}),
                     (assets[2], {columns["mac"]: "", columns["ram"]: "1024"})):
        payload = ok(token_client.patch(f"{API}/hardware/{pk}", sent, format="json"))["payload"]
        differences = [key for key, value in sent.items() if payload[key] != (None if value == "" else value)]
        assert differences == []

    found = ok(token_client.get(f"{API}/hardware", {columns["mac"]: "aa:bb:cc:dd:ee:99"}))
    assert [row["id"] for row in found["rows"]] == [assets[0]]

    viewer = make_client(UserFactory(permissions={"assets.view": 1}))
    seen = ok(viewer.get(f"{API}/hardware/{assets[1]}"))
    assert seen["custom_fields"]["FileVault Key"]["value"] == "ENCRYPTED"
    assert seen["custom_fields"]["MAC Address"]["value"] == "AA:BB:CC:DD:EE:01"

    bulk = token_client.patch(f"{API}/hardware/bulk", {"ids": [*assets, 987654321], columns["ram"]: 8192},
                              format="json").json()
    assert bulk["status"] == "partial"
    assert [row["status"] for row in bulk["results"]] == ["success", "success", "success", "error"]
    assert bulk["results"][3]["messages"] == "Asset does not exist."
    values = [ok(token_client.get(f"{API}/hardware/{pk}"))["custom_fields"]["RAM MB"]["value"] for pk in assets]
    assert values == ["8192"] * 3
