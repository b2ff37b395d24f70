"""Depreciations (issue 27): ``/depreciations`` CRUD with the shared checks, ``depreciation_id`` on models, the book
value on the asset record, and ``GET /reports/depreciation`` (JSON pages and CSV), company-scoped."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from inventory.api.catalogue import views
from inventory.models import AssetModel, Depreciation
from inventory.selectors.depreciation import book_value, end_of_life, months_between
from tests.api_mixins import (
    CrudAPITests,
    DeleteGuardTests,
    NameRulesTests,
    PermissionTests,
    QueryBudgetTests,
    error_of,
)
from tests.factories import AssetFactory, AssetModelFactory, CompanyFactory, DepreciationFactory, UserFactory

pytestmark = pytest.mark.django_db


class TestDepreciationsAPI(CrudAPITests, NameRulesTests, DeleteGuardTests, PermissionTests, QueryBudgetTests):
    url = "/api/v1/depreciations"
    viewset = views.DepreciationViewSet
    section = "depreciations"
    model = Depreciation
    factory = DepreciationFactory
    item_type = "depreciation"
    not_found_message = "Depreciation class does not exist."
    created_message = "Depreciation class created successfully."
    updated_message = "Depreciation class updated successfully."
    delete_message = "The depreciation class was deleted successfully."
    guard_message = ("This depreciation is currently associated with one or more models and cannot be deleted. "
                     "Please delete the models, and then try deleting again. ")
    record_keys = {"months", "depreciation_min", "depreciation_type", "assets_count", "models_count",
                   "licenses_count"}
    budget_sizes = (5, 60)
    partial_kept = ("months", 18)

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Laptops 3 years", "months": 36}

    def update_payload(self) -> dict[str, Any]:
        return {"months": 48}

    def make_in_use(self, obj) -> None:
        AssetFactory(model=AssetModelFactory(depreciation=obj))

    def make_listed(self) -> None:
        self.make_in_use(self.make())


def test_record_shape_as_snipeit(token_client):
    percent = DepreciationFactory(name="Phones", months=24, depreciation_min=Decimal("10"), depreciation_type="percent")
    model = AssetModelFactory(depreciation=percent)
    AssetFactory(model=model), AssetFactory(model=model)
    body = token_client.get(f"/api/v1/depreciations/{percent.pk}").json()
    assert body["months"] == "24 months" and body["depreciation_min"] == "10%"
    assert body["depreciation_type"] == "percent"
    assert (body["assets_count"], body["models_count"], body["licenses_count"]) == (2, 1, 0)
    amount = DepreciationFactory(months=12, depreciation_min=Decimal("50.00"))
    assert token_client.get(f"/api/v1/depreciations/{amount.pk}").json()["depreciation_min"] == 50.0


@pytest.mark.parametrize(("payload", "field"), [
    ({"name": "ab", "months": 12}, "name"),
    ({"name": "Valid", "months": 0}, "months"),
    ({"name": "Valid", "months": 3601}, "months"),
    ({"name": "Valid", "months": "twelve"}, "months"),
    ({"name": "Valid"}, "months"),
    ({"name": "Valid", "months": 12, "depreciation_min": -1}, "depreciation_min"),
    ({"name": "Valid", "months": 12, "depreciation_type": "percent", "depreciation_min": 150}, "depreciation_min"),
    ({"name": "Valid", "months": 12, "depreciation_type": "yearly"}, "depreciation_type"),
])
def test_bad_input_writes_nothing(token_client, payload, field):
    assert field in error_of(token_client.post("/api/v1/depreciations", payload, format="json"))
    assert not Depreciation.objects.exists()


def test_models_take_a_depreciation_and_show_it(token_client):
    depreciation = DepreciationFactory(name="Laptops")
    model = AssetModelFactory()
    body = token_client.patch(f"/api/v1/models/{model.pk}", {"depreciation_id": depreciation.pk},
                              format="json").json()
    assert body["status"] == "success"
    assert token_client.get(f"/api/v1/models/{model.pk}").json()["depreciation"] == {
        "id": depreciation.pk, "name": "Laptops"}
    assert "depreciation_id" in error_of(token_client.patch(f"/api/v1/models/{model.pk}",
                                                            {"depreciation_id": 999999}, format="json"))
    assert token_client.patch(f"/api/v1/models/{model.pk}", {"depreciation_id": None},
                              format="json").json()["status"] == "success"
    assert AssetModel.objects.get(pk=model.pk).depreciation_id is None


# --- the arithmetic --------------------------------------------------------------------------------------------------

TODAY = date(2026, 11, 28)


@pytest.mark.parametrize(("cost", "bought", "months", "floor", "kind", "expected"), [
    (1200, date(2026, 11, 28), 12, 0, "amount", "1200.00"),          # bought today: full value
    (1200, date(2026, 5, 28), 12, 0, "amount", "600.00"),            # half way
    (1200, date(2026, 5, 29), 12, 0, "amount", "700.00"),            # one day short of 6 months: 5 months
    (1200, date(2025, 11, 28), 12, 0, "amount", "0.00"),             # done, no floor
    (1200, date(2020, 1, 1), 12, 100, "amount", "100.00"),           # done, floor amount
    (1200, date(2020, 1, 1), 12, 10, "percent", "120.00"),           # done, floor 10 % of the cost
    (1200, date(2026, 5, 28), 12, 10, "percent", "660.00"),          # half way to a 120 floor
    (1000, date(2027, 1, 1), 12, 0, "amount", "1000.00"),            # bought in the future
])
def test_book_value(cost, bought, months, floor, kind, expected):
    assert book_value(cost=cost, purchase_date=bought, months=months, depreciation_min=floor,
                      depreciation_type=kind, today=TODAY) == Decimal(expected)


def test_no_book_value_without_cost_date_or_depreciation():
    assert book_value(cost=None, purchase_date=TODAY, months=12, depreciation_min=0, depreciation_type="amount") is None
    assert book_value(cost=10, purchase_date=None, months=12, depreciation_min=0, depreciation_type="amount") is None
    assert book_value(cost=10, purchase_date=TODAY, months=None, depreciation_min=0, depreciation_type=None) is None


def test_end_of_life_and_months():
    assert end_of_life(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert end_of_life(date(2024, 3, 15), 36) == date(2027, 3, 15)
    assert months_between(date(2024, 3, 15), date(2024, 4, 14)) == 0
    assert months_between(date(2024, 3, 15), date(2024, 4, 15)) == 1


def test_the_asset_record_carries_its_book_value(token_client):
    model = AssetModelFactory(depreciation=DepreciationFactory(months=12))
    bought = date.today() - timedelta(days=3)
    asset = AssetFactory(model=model, purchase_cost=Decimal("999.99"), purchase_date=bought)
    plain = AssetFactory(purchase_cost=Decimal("10.00"), purchase_date=bought)
    record = token_client.get(f"/api/v1/hardware/{asset.pk}").json()
    assert record["book_value"] == "999.99"  # less than a month old
    assert token_client.get(f"/api/v1/hardware/{plain.pk}").json()["book_value"] is None
    rows = {row["id"]: row for row in token_client.get("/api/v1/hardware").json()["rows"]}
    assert rows[asset.pk]["book_value"] == "999.99" and rows[plain.pk]["book_value"] is None


# --- the report ----------------------------------------------------------------------------------------------------


def test_depreciation_report_json_and_csv(token_client):
    depreciation = DepreciationFactory(name="Laptops", months=36)
    model = AssetModelFactory(name="ThinkPad", depreciation=depreciation)
    asset = AssetFactory(asset_tag="DEP-1", model=model, purchase_cost=Decimal("1800.00"),
                         purchase_date=date.today() - timedelta(days=400))
    AssetFactory(asset_tag="=HYPERLINK(1)", model=model)  # no cost: listed without values; a formula is defused
    AssetFactory(asset_tag="PLAIN-1")  # its model does not depreciate: not listed

    body = token_client.get("/api/v1/reports/depreciation").json()
    assert body["total"] == 2
    row = next(r for r in body["rows"] if r["id"] == asset.pk)
    assert row["depreciation"] == {"id": depreciation.pk, "name": "Laptops", "months": 36}
    assert row["purchase_cost"] == "1800.00" and row["monthly_depreciation"] == "50.00"
    assert Decimal(row["book_value"]) + Decimal(row["depreciated_by"]) == Decimal("1800.00")
    assert Decimal(row["book_value"]) == Decimal("1800.00") - 50 * months_between(asset.purchase_date, date.today())
    assert row["months_left"] > 0 and row["eol_date"]

    response = token_client.get("/api/v1/reports/depreciation?format=csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert lines[0][:3] == ["id", "asset_tag", "name"] and len(lines) == 3
    assert {line[1] for line in lines[1:]} == {"DEP-1", "'=HYPERLINK(1)"}


def test_depreciation_report_permission_and_separation(make_client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    model = AssetModelFactory(depreciation=DepreciationFactory())
    own = AssetFactory(company=mine, model=model, purchase_cost=Decimal("10.00"))
    AssetFactory(company=theirs, model=model, purchase_cost=Decimal("10.00"))
    assert make_client(UserFactory(company=mine)).get("/api/v1/reports/depreciation").status_code == 403
    reporter = make_client(UserFactory(company=mine, permissions={"reports.view": "1"}))
    body = reporter.get("/api/v1/reports/depreciation").json()
    assert body["total"] == 1 and [row["id"] for row in body["rows"]] == [own.pk]
    csv_text = b"".join(reporter.get("/api/v1/reports/depreciation?format=csv").streaming_content).decode()
    assert len(csv_text.strip().splitlines()) == 2
    # a shared record: only callers separation does not limit may change it
    depreciation = model.depreciation
    limited = make_client(UserFactory(company=mine, permissions={"depreciations.edit": "1"}))
    assert limited.patch(f"/api/v1/depreciations/{depreciation.pk}", {"months": 1}, format="json").status_code == 403
    depreciation.refresh_from_db()
    assert depreciation.months == 36


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_delete_racing_a_model_update_never_fails_at_commit(token_client):
    """A model update that names a depreciation holds its row: a concurrent delete waits and then refuses (in use),
    or wins and the update is refused; never a foreign-key error (a 500) at commit."""
    import threading

    from django.db import connection, transaction

    from inventory.services.catalogue import DEPRECIATION_IN_USE, catalogue_item_update, depreciation_delete

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    depreciation, model = DepreciationFactory(), AssetModelFactory()
    admin = UserFactory(superuser=True)
    holding, released = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def update():
        try:
            with transaction.atomic():
                catalogue_item_update(item=model, data={"depreciation": depreciation}, actor=admin)
                holding.set()
                released.wait(5)
            outcome["update"] = "ok"
        finally:
            connection.close()

    def delete():
        holding.wait(5)
        try:
            depreciation_delete(depreciation=depreciation, actor=admin)
            outcome["delete"] = "ok"
        except Exception as exc:  # noqa: BLE001 - the refusal is the expected answer
            outcome["delete"] = str(exc)
        finally:
            connection.close()

    first, second = threading.Thread(target=update), threading.Thread(target=delete)
    first.start(), second.start()
    holding.wait(5)
    released.set()
    first.join(10), second.join(10)
    assert outcome == {"update": "ok", "delete": DEPRECIATION_IN_USE}
    assert AssetModel.objects.get(pk=model.pk).depreciation_id == depreciation.pk
    assert Depreciation.objects.filter(pk=depreciation.pk).exists()
