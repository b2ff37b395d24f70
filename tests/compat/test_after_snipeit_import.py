"""The real clients' lookups after ``import_snipeit`` (issue 31): a script that held Snipe-IT ids, serials, tags and
usernames finds the same records under the same ids here as the Snipe-IT it was written against (the stand-in,
serving the same data set). Each route is asked of both, through HTTP, with the clients' own requests
(test_sync_clients.py: jamf2snipe's ``/hardware/byserial/{serial}``, cairn-sync's ``/hardware?search=<serial>`` and
``/models?search=<name>``, a chat bot's ``/hardware/bytag/{tag}`` and ``/users?search=<username>``), and the answers
are compared where both describe the record: its id, its name, its references' ids, its custom values. Lookups the
stand-in does not serve (by serial, by tag, search) are checked against its data set, the truth it serves."""

from __future__ import annotations

import io
from typing import Any

import pytest
import requests
from django.core.management import call_command

from inventory.snipeit.values import text
from tests.factories import UserFactory
from tests.snipeit.conftest import SNIPEIT_TOKEN, snipeit_dataset, snipeit_standin  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db

#: Per route: the keys whose values must be equal; a nested object is compared by its id.
SHOWN: dict[str, tuple[str, ...]] = {
    "locations": ("id", "name", "parent", "company"),
    "companies": ("id", "name"),
    "departments": ("id", "name", "company", "location"),
    "manufacturers": ("id", "name"),
    "suppliers": ("id", "name"),
    "categories": ("id", "name", "category_type"),
    "statuslabels": ("id", "name", "type"),
    "depreciations": ("id", "name", "months"),
    "fieldsets": ("id", "name"),
    "fields": ("id", "name", "db_column_name", "format"),
    "groups": ("id", "name"),
    "hardware": ("id", "asset_tag", "serial", "name", "model", "status_label", "company", "location",
                 "rtd_location", "supplier", "assigned_to", "order_number", "requestable", "byod"),
    # A user's department of another company is not kept (the import says so; --verify lists it as known).
    "users": ("id", "username", "first_name", "last_name", "email", "employee_num", "company", "location", "manager",
              "activated"),
    "models": ("id", "name", "model_number", "manufacturer", "category", "fieldset", "depreciation"),
    "licenses": ("id", "name", "seats", "company", "manufacturer", "category", "supplier"),
    "accessories": ("id", "name", "qty", "company", "category", "manufacturer", "location"),
    "consumables": ("id", "name", "qty", "company", "category", "manufacturer", "location"),
    "components": ("id", "name", "qty", "company", "category", "location", "serial"),
    "kits": ("id", "name"),
    "maintenances": ("id", "title", "asset", "supplier"),
}


def _comparable(value: Any) -> Any:
    if isinstance(value, str):  # Snipe-IT escapes its strings (htmlspecialchars); our API never does (API-CONTRACT)
        return text(value) or None
    if isinstance(value, dict) and "id" in value:
        return (value.get("type"), value["id"]) if "type" in value else value["id"]
    if isinstance(value, dict) and ("datetime" in value or "date" in value):
        return value.get("datetime") or value.get("date")
    return value


def _view(row: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: _comparable(row.get(key)) for key in keys}


@pytest.fixture
def imported(snipeit_standin, monkeypatch):  # noqa: F811 - the fixture
    """The stand-in, once its data set is imported here."""
    monkeypatch.setenv("SNIPEIT_TOKEN", SNIPEIT_TOKEN)
    call_command("import_snipeit", "--url", snipeit_standin.url, stdout=io.StringIO(), stderr=io.StringIO())
    return snipeit_standin


class Both:
    """The same GET asked of Snipe-IT (the stand-in) and of this service, as a client with a super user's token."""

    def __init__(self, standin, client) -> None:
        self.standin, self.client = standin, client
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {SNIPEIT_TOKEN}"

    def get(self, path: str) -> tuple[Any, Any]:
        theirs = self.session.get(f"{self.standin.url}/api/v1/{path}", timeout=30)
        ours = self.client.get(f"/api/v1/{path}")
        assert theirs.status_code == ours.status_code == 200, (path, theirs.status_code, ours.status_code)
        return theirs.json(), ours.json()


@pytest.fixture
def both(imported, make_client, settings):
    # A sync script paces itself to the limit; these checks ask hundreds of records of one token at once.
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 100_000}
    return Both(imported, make_client(UserFactory(username="compat-admin", superuser=True)))


def _live_ids(dataset, table: str) -> list[int]:
    return sorted(i for i, row in dataset.raw[table].items() if not row.get("deleted_at"))


def test_every_kind_answers_under_its_snipeit_ids(both, snipeit_dataset):  # noqa: F811 - the fixture
    """One import, then every kind's show route (one import for all: each costs seconds)."""
    for route, keys in SHOWN.items():
        ids = _live_ids(snipeit_dataset, route)
        assert ids, route
        for ident in ids[:: max(1, len(ids) // 40)]:  # at most ~40 a kind keeps the test quick
            theirs, ours = both.get(f"{route}/{ident}")
            assert _view(ours, keys) == _view(theirs, keys), (route, ident)


def _custom(row: dict[str, Any]) -> dict[str, Any]:
    """An asset's custom values by label, unescaped (Snipe-IT escapes them, we do not)."""
    return {text(label): _comparable(entry.get("value")) for label, entry in (row.get("custom_fields") or {}).items()}


def test_the_clients_lookups_find_the_same_records(both, snipeit_dataset):  # noqa: F811 - the fixture
    """jamf2snipe by serial (with its custom values), cairn-sync by search, a chat bot by tag and username."""
    # jamf2snipe's /hardware/byserial/{serial} (the stand-in does not serve it: the truth is the data set), then
    # each row's custom values as Snipe-IT shows the asset.
    hardware = snipeit_dataset.raw["hardware"]
    serials = [row["serial"] for row in hardware.values() if row.get("serial") and not row.get("deleted_at")][:25]
    for serial in serials:
        ours = both.client.get(f"/api/v1/hardware/byserial/{serial}").json()
        expected = sorted(i for i, row in hardware.items() if row.get("serial") == serial and not row.get("deleted_at"))
        assert sorted(r["id"] for r in ours["rows"]) == expected, serial
        for row in ours["rows"]:
            theirs, _ours = both.get(f"hardware/{row['id']}")
            assert _custom(row) == _custom(theirs), serial

    for model in list(snipeit_dataset.raw["models"].values())[:4]:
        if model.get("deleted_at"):
            continue
        ours = both.client.get(f"/api/v1/models?search={requests.utils.quote(model['name'])}").json()
        assert model["id"] in {r["id"] for r in ours["rows"]}  # the stand-in does not search: the data set is truth
    labels = snipeit_dataset.raw["statuslabels"]
    for row in [r for r in snipeit_dataset.raw["hardware"].values() if r.get("serial")][:10]:
        if row.get("deleted_at") or labels[row["status_id"]]["type"] == "archived":
            continue  # the list hides deleted and archived assets, as Snipe-IT's does
        ours = both.client.get(f"/api/v1/hardware?search={row['serial']}").json()
        assert [r["id"] for r in ours["rows"] if r["serial"] == row["serial"]] == [row["id"]]

    for row in list(snipeit_dataset.raw["hardware"].values())[:10]:
        if row.get("deleted_at"):
            continue
        ours = both.client.get(f"/api/v1/hardware/bytag/{requests.utils.quote(row['asset_tag'], safe='')}").json()
        assert ours["id"] == row["id"]
    for row in list(snipeit_dataset.raw["users"].values())[:10]:
        if row.get("deleted_at"):
            continue
        ours = both.client.get(f"/api/v1/users?search={requests.utils.quote(row['username'])}").json()
        assert row["id"] in [r["id"] for r in ours["rows"] if r["username"] == row["username"]]
