"""Issue 25 item 23: the bulk paths are set-based. ``PATCH /hardware/bulk`` with a custom value and a CSV import with
a custom-field column run a fixed number of statements per batch, whatever its number of rows, and keep what the
row-by-row path guarantees (per-row validation and errors, unique values, encrypted values, one action-log row per
asset with its changes, the update signal per row).

Statements are counted as the code issues them: on SQLite, Django splits one multi-row ``INSERT`` (``bulk_create``)
or ``UPDATE ... CASE`` (``bulk_update``) into chunks of 999 parameters, so consecutive chunks of one such statement
count once there (a per-row statement is never multi-row, so it is never folded). On PostgreSQL the raw counts are
compared as well."""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory import signals
from inventory.custom_values.crypto import MASK, decrypt, unique_digest
from inventory.models import Asset, AssetFieldValue
from inventory.transfer.import_assets import import_csv
from tests.factories import AssetFactory, AssetModelFactory, CustomFieldFactory, StatusLabelFactory
from tests.factories.custom_fields import AssetFieldValueFactory, fieldset_of

pytestmark = pytest.mark.django_db

BULK = "/api/v1/hardware/bulk"


def _multi_row(sql: str) -> bool:
    return "), (" in sql or " CASE WHEN " in sql


def statements(ctx: CaptureQueriesContext) -> tuple[int, int]:
    """(raw count, count with consecutive chunks of one multi-row statement folded), savepoints left out (the
    test's own transaction turns each atomic block into one)."""
    queries = [q["sql"] for q in ctx.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    folded, previous = 0, ""
    for sql in queries:
        if not (_multi_row(sql) and _multi_row(previous) and sql[:40] == previous[:40]):
            folded += 1
        previous = sql
    return len(queries), folded


@pytest.fixture
def fields():
    return {"os": CustomFieldFactory(name="OS Version"), "key": CustomFieldFactory(name="Key", field_encrypted=True),
            "imei": CustomFieldFactory(name="IMEI", is_unique=True)}


@pytest.fixture
def model(fields):
    return AssetModelFactory(fieldset=fieldset_of(*fields.values()))


def _assets(model, fields, count: int) -> list[Asset]:
    """``count`` assets, every other one with stored values (so a batch both updates and inserts values)."""
    assets = AssetFactory.create_batch(count, model=model)
    for n, asset in enumerate(assets):
        if n % 2:
            AssetFieldValueFactory(asset=asset, field=fields["os"], value="old os")
            AssetFieldValueFactory(asset=asset, field=fields["key"], value="old key")
    return assets


def _patch(client, body) -> tuple[dict, tuple[int, int]]:
    with CaptureQueriesContext(connection) as ctx:
        answer = client.generic("PATCH", BULK, json.dumps(body), content_type="application/json")
    return answer.json(), statements(ctx)


class TestBulkPatchIsSetBased:
    def test_the_same_statements_for_5_and_500_assets_with_custom_values(self, token_client, model, fields):
        assets = _assets(model, fields, 505)
        os, key = fields["os"].db_column_name, fields["key"].db_column_name
        _patch(token_client, {"ids": [AssetFactory().pk], "notes": "warm"})  # the site settings read once per process
        five, small = _patch(token_client, {"ids": [a.pk for a in assets[:5]], os: "macOS 15", key: "k1",
                                            "notes": "five"})
        many, large = _patch(token_client, {"ids": [a.pk for a in assets[5:]], os: "macOS 16", key: "k2",
                                            "notes": "many"})
        assert five["status"] == "success" and many["status"] == "success", (five, many)
        assert many["payload"] == {"total": 500, "success": 500, "error": 0}
        assert large[1] == small[1], (small, large)  # not one statement more for 495 more rows
        if connection.vendor == "postgresql":
            assert large[0] == small[0], (small, large)
        # the database: every value written (encrypted stored as a token), one log row per asset with its changes
        stored = {(v.asset_id, v.field_id): v.value for v in AssetFieldValue.objects.all()}
        for asset in assets[5:]:
            assert stored[(asset.pk, fields["os"].pk)] == "macOS 16"
            token = stored[(asset.pk, fields["key"].pk)]
            assert token != "k2" and decrypt(token) == "k2"
        assert Asset.objects.filter(pk__in=[a.pk for a in assets[5:]], notes="many").count() == 500
        log = ActionLog.objects.filter(item_type="asset", action_type="update", item_id=assets[7].pk).get()
        assert log.log_meta == {"notes": {"old": assets[7].notes, "new": "many"},
                                os: {"old": "old os", "new": "macOS 16"}, key: {"old": MASK, "new": MASK}}
        assert ActionLog.objects.filter(item_type="asset", action_type="update").count() == 506
        row = many["results"][0]
        assert row["status"] == "success" and row["payload"][os] == "macOS 16"

    def test_per_row_errors_unique_values_and_signals(self, token_client, model, fields):
        """A unique value goes to the first asset only; an asset holding it elsewhere fails; each changed asset
        sends its update signal once with its own log row."""
        assets = _assets(model, fields, 4)
        holder = AssetFactory(model=model)
        AssetFieldValueFactory(asset=holder, field=fields["imei"], value="held",
                               unique_key=unique_digest("held", encrypted=False))
        imei = fields["imei"].db_column_name
        sent = []

        def receiver(sender, item, log, **kwargs):
            sent.append((item.pk, log.pk))

        signals.asset_updated.connect(receiver)
        try:
            body, _ = _patch(token_client, {"ids": [a.pk for a in assets] + [999999], imei: "IMEI-1"})
            again, _ = _patch(token_client, {"ids": [assets[3].pk], imei: "held"})
        finally:
            signals.asset_updated.disconnect(receiver)
        assert body["status"] == "partial", body
        statuses = [(r["id"], r["status"]) for r in body["results"]]
        assert statuses == [(assets[0].pk, "success")] + [(a.pk, "error") for a in assets[1:]] + [(999999, "error")]
        assert body["results"][1]["messages"] == {imei: ["The IMEI must be unique."]}
        assert body["results"][4]["messages"] == "Asset does not exist."
        assert again["status"] == "error" and again["results"][0]["messages"] == {imei: ["The IMEI must be unique."]}
        assert list(AssetFieldValue.objects.filter(field=fields["imei"], value="IMEI-1")
                    .values_list("asset_id", flat=True)) == [assets[0].pk]
        logs = list(ActionLog.objects.filter(action_type="update", item_type="asset").values_list("item_id", "pk"))
        assert sent == logs == [(assets[0].pk, logs[0][1])]


CSV_HEADER = "Asset Tag,Model name,Category,Status,OS Version,Key\n"


def _csv(start: int, count: int) -> io.StringIO:
    lines = [f"T-{n:05d},Laptop,Computers,Ready to Deploy,os {n},key {n}\n" for n in range(start, start + count)]
    return io.StringIO(CSV_HEADER + "".join(lines))


class TestCsvImportIsSetBased:
    def test_the_same_statements_per_batch_with_a_custom_field_column(self, superuser, fields):
        model = AssetModelFactory(name="Laptop", model_number="", fieldset=fieldset_of(fields["os"], fields["key"]),
                                  category__name="Computers")
        StatusLabelFactory(name="Ready to Deploy")
        import_csv("asset", _csv(0, 2), actor=superuser)  # the catalogue exists from here on
        counts = {}
        for start, count in ((10, 5), (100, 400)):
            with CaptureQueriesContext(connection) as ctx:
                result = import_csv("asset", _csv(start, count), actor=superuser)
            assert result.created == count and not result.errors, result.errors
            counts[count] = statements(ctx)
        assert counts[400][1] == counts[5][1], counts
        if connection.vendor == "postgresql":
            assert counts[400][0] == counts[5][0], counts
        asset = Asset.objects.get(asset_tag="T-00123")
        assert asset.model_id == model.pk
        values = {v.field_id: v.value for v in AssetFieldValue.objects.filter(asset=asset)}
        assert values[fields["os"].pk] == "os 123" and decrypt(values[fields["key"].pk]) == "key 123"
        log = ActionLog.objects.get(item_type="asset", item_id=asset.pk, action_type="create")
        assert log.action_source in ("cli", "api", "importer", "")
