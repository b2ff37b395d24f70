"""``/kits``: the shared resource checks (``tests/api_mixins.py``, the line routes included in the view and edit
verbs), then the four kinds of lines."""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import pytest

from activity.models import ActionLog
from inventory.api.kits.views import KitViewSet
from inventory.models import Kit, KitAccessory, KitConsumable, KitLicense, KitModel
from tests.api_mixins import (
    CrudAPITests,
    NameRulesTests,
    PermissionTests,
    QueryBudgetTests,
    SelectListTests,
    error_of,
    http_errors,
)
from tests.factories import (
    AccessoryFactory,
    AssetModelFactory,
    ConsumableFactory,
    KitFactory,
    LicenseFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
_names = itertools.count()

#: segment → (line model, item field, item factory, messages: added, updated, removed, already, none)
KINDS: dict[str, tuple[Any, ...]] = {
    "models": (KitModel, "model", AssetModelFactory, "Model added successfull", "Model was successfully updated",
               "Model was successfully detached", "Model already attached to kit", "Model does not exist"),
    "licenses": (KitLicense, "license", LicenseFactory, "License added successfully",
                 "License was successfully updated", "License was successfully detached",
                 "License already attached to kit", "License does not exist"),
    "accessories": (KitAccessory, "accessory", AccessoryFactory, "Accessory added successfully",
                    "Accessory was successfully updated", "Delete was successful",
                    "Accessory already attached to kit", "The accessory does not exist"),
    "consumables": (KitConsumable, "consumable", ConsumableFactory, "Consumable added successfully",
                    "Consumable was successfully updated", "Delete was successful",
                    "Consumable already attached to kit", "Consumable does not exist"),
}


class TestKitsAPI(CrudAPITests, NameRulesTests, SelectListTests, PermissionTests, QueryBudgetTests):
    url = "/api/v1/kits"
    viewset = KitViewSet
    section = "kits"
    model = Kit
    factory = KitFactory
    item_type = "kit"
    not_found_message = "PredefinedKit not found"
    created_message = "Kit was successfully created."
    updated_message = "Kit was successfully updated."
    delete_message = "Kit was successfully deleted."
    record_keys: ClassVar[set[str]] = {"created_by", "user_can_checkout"}
    selectlist_key = "assets.checkout"

    def create_payload(self) -> dict[str, Any]:
        return {"name": f"New hire kit {next(_names)}"}

    def update_payload(self) -> dict[str, Any]:
        return {"name": f"Renamed kit {next(_names)}"}

    def object_requests(self, verb: str, company=None, viewer_company=None):
        """The line routes need ``kits.view`` (lists) and ``kits.edit`` (add, change, remove), as in Snipe-IT."""
        calls = super().object_requests(verb, company, viewer_company)
        if verb == "view":
            calls += [(self.make(), "get", f"{self.url}/{{id}}/{segment}", {}) for segment in KINDS]
        if verb == "edit":
            for segment, (line_model, field, item_factory, *_texts) in KINDS.items():
                calls.append((self.make(), "post", f"{self.url}/{{id}}/{segment}",
                              {field: item_factory().pk, "quantity": 2}))
                for method in ("put", "patch", "delete"):
                    kit, item = self.make(), item_factory()
                    line_model.objects.create(kit=kit, quantity=1, **{field: item})
                    calls.append((kit, method, f"{self.url}/{{id}}/{segment}/{item.pk}", {"quantity": 3}))
        return calls

    def test_update_is_partial_for_put_and_patch(self, token_client):
        """(Kits have no notes: the shared test's ``notes`` is replaced by the kit's only field.)"""
        obj = self.make(name="Before")
        for method, name in (("put", "After"), ("patch", "Again")):
            body = getattr(token_client, method)(self.detail(obj), {"name": name}, format="json").json()
            assert body["status"] == "success" and body["messages"] == self.updated_message, body
            assert body["payload"]["name"] == name and body["payload"]["id"] == obj.pk
        logs = ActionLog.objects.filter(item_type="kit", item_id=obj.pk, action_type="update").order_by("pk")
        assert [log.log_meta for log in logs] == [{"name": {"old": "Before", "new": "After"}},
                                                  {"name": {"old": "After", "new": "Again"}}]

    def test_record_shape(self, token_client, superuser):
        kit = self.make(name="Laptop kit", created_by=superuser)
        assert token_client.get(self.detail(kit)).json() == {
            "id": kit.pk, "name": "Laptop kit", "created_by": {"id": superuser.pk, "name": superuser.full_name},
            "created_at": token_client.get(self.detail(kit)).json()["created_at"],
            "updated_at": token_client.get(self.detail(kit)).json()["updated_at"],
            "available_actions": {"update": True, "delete": True, "checkout": True}, "user_can_checkout": True,
        }

    def test_delete_takes_the_lines_and_nothing_else(self, token_client):
        kit, model, license_ = self.make(), AssetModelFactory(), LicenseFactory()
        KitModel.objects.create(kit=kit, model=model, quantity=2)
        KitLicense.objects.create(kit=kit, license=license_, quantity=1)
        assert token_client.delete(self.detail(kit)).json()["status"] == "success"
        assert not KitModel.objects.exists() and not KitLicense.objects.exists()
        model.refresh_from_db(), license_.refresh_from_db()


@pytest.mark.parametrize("segment", list(KINDS))
class TestKitLines:
    def test_add_list_update_remove(self, token_client, superuser, segment):
        line_model, field, item_factory, added, updated, removed, _already, none = KINDS[segment]
        kit, item = KitFactory(), item_factory(name="Line item")
        url = f"/api/v1/kits/{kit.pk}/{segment}"
        body = token_client.post(url, {field: item.pk, "quantity": 2}, format="json").json()
        assert body["status"] == "success" and body["messages"] == added, body
        assert body["payload"]["id"] == kit.pk and body["payload"]["name"] == kit.name
        line = line_model.objects.get(kit=kit)
        assert line.quantity == 2 and line.item == item
        listed = token_client.get(url).json()
        assert listed == {"total": 1, "rows": [{
            "id": item.pk, "pivot_id": line.pk, "owner_id": kit.pk, "quantity": 2, "name": "Line item",
            "available_actions": {"update": True, "delete": True}}]}
        for method, quantity in (("put", 5), ("patch", 7)):
            body = getattr(token_client, method)(f"{url}/{item.pk}", {"quantity": quantity}, format="json").json()
            assert body["status"] == "success" and body["messages"] == updated, body
            line.refresh_from_db()
            assert line.quantity == quantity
        body = token_client.delete(f"{url}/{item.pk}").json()
        assert body["status"] == "success" and body["messages"] == removed
        assert not line_model.objects.filter(kit=kit).exists()
        again = token_client.delete(f"{url}/{item.pk}").json()
        assert again["status"] == "error" and again["message"] == none
        logs = ActionLog.objects.filter(item_type="kit", item_id=kit.pk, action_type="update").order_by("pk")
        assert [log.log_meta[f"{field}_quantity"] for log in logs] == [
            {"old": None, "new": 2}, {"old": 2, "new": 5}, {"old": 5, "new": 7}, {"old": 7, "new": None}]
        assert all(log.created_by == superuser for log in logs)

    def test_add_refusals(self, token_client, settings, segment):
        line_model, field, item_factory, _added, _updated, _removed, already, _none = KINDS[segment]
        kit, item = KitFactory(), item_factory()
        url = f"/api/v1/kits/{kit.pk}/{segment}"
        assert error_of(token_client.post(url, {"quantity": 1}, format="json"), field) == [
            f"The {field} field is required."]
        assert error_of(token_client.post(url, {field: 999_999}, format="json"), field) == [
            f"The selected {field} is invalid."]
        assert error_of(token_client.post(url, {field: item.pk, "quantity": "many"}, format="json"), "quantity")
        assert not line_model.objects.exists()
        assert token_client.post(url, {field: item.pk}, format="json").json()["status"] == "success"
        assert error_of(token_client.post(url, {field: item.pk, "quantity": 3}, format="json"), field) == [already]
        assert line_model.objects.get(kit=kit).quantity == 1
        http_errors(settings)
        assert token_client.post(url, {field: item.pk}, format="json").status_code == 422

    def test_quantity_below_one_is_one_as_in_snipeit(self, token_client, segment):
        line_model, field, item_factory, *_ = KINDS[segment]
        kit, item = KitFactory(), item_factory()
        url = f"/api/v1/kits/{kit.pk}/{segment}"
        assert token_client.post(url, {field: item.pk, "quantity": 0}, format="json").json()["status"] == "success"
        assert line_model.objects.get(kit=kit).quantity == 1
        assert token_client.put(f"{url}/{item.pk}", {"quantity": -4}, format="json").json()["status"] == "success"
        assert line_model.objects.get(kit=kit).quantity == 1

    def test_unknown_kit_and_line(self, token_client, settings, segment):
        line_model, field, item_factory, *_texts, none = KINDS[segment]
        item = item_factory()
        for method, path in (("get", ""), ("post", ""), ("put", f"/{item.pk}"), ("delete", f"/{item.pk}")):
            response = getattr(token_client, method)(f"/api/v1/kits/999999/{segment}{path}", {field: item.pk},
                                                     format="json")
            assert response.json()["message"] == "PredefinedKit not found", (method, path)
        kit = KitFactory()
        for bad in (item.pk, "abc", "99999999999999999999999"):
            assert token_client.put(f"/api/v1/kits/{kit.pk}/{segment}/{bad}", {"quantity": 2},
                                    format="json").json()["message"] == none
        http_errors(settings)
        assert token_client.delete(f"/api/v1/kits/{kit.pk}/{segment}/{item.pk}").status_code == 404

    def test_lines_of_deleted_items_are_not_listed(self, token_client, segment):
        from django.utils import timezone

        line_model, field, item_factory, *_ = KINDS[segment]
        kit, item = KitFactory(), item_factory()
        line_model.objects.create(kit=kit, quantity=1, **{field: item})
        type(item).objects.filter(pk=item.pk).update(deleted_at=timezone.now())
        assert token_client.get(f"/api/v1/kits/{kit.pk}/{segment}").json() == {"total": 0, "rows": []}

    def test_line_actions_follow_the_callers_keys(self, make_client, segment):
        line_model, field, item_factory, *_ = KINDS[segment]
        kit = KitFactory()
        line_model.objects.create(kit=kit, quantity=1, **{field: item_factory()})
        viewer = make_client(UserFactory(permissions={"kits.view": 1}))
        row = viewer.get(f"/api/v1/kits/{kit.pk}/{segment}").json()["rows"][0]
        assert row["available_actions"] == {"update": False, "delete": False}
