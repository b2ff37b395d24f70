"""Catalogue endpoints: the shared checks per resource (``tests/api_mixins.py``), then what each resource does on
its own."""

from __future__ import annotations

from typing import Any

import pytest

from activity.models import ActionLog
from inventory.api.catalogue import views
from inventory.models import AssetModel, Category, Location, Manufacturer, StatusLabel, Supplier
from tests.api_mixins import (
    CrudAPITests,
    DeleteGuardTests,
    NameRulesTests,
    PermissionTests,
    QueryBudgetTests,
    RestoreTests,
    SelectListTests,
    error_of,
)
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CompanyFactory,
    LocationFactory,
    ManufacturerFactory,
    StatusLabelFactory,
    SupplierFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


class CatalogueAPITests(CrudAPITests, NameRulesTests, DeleteGuardTests, SelectListTests, PermissionTests,
                        QueryBudgetTests):
    """What every catalogue resource shares: CRUD, unique names, the in-use delete guard, a select list,
    permissions and a constant number of list queries (rows in use, so their counts are read)."""

    budget_sizes = (5, 60)

    def make_listed(self) -> None:
        self.make_in_use(self.make())


class TestStatusLabelsAPI(CatalogueAPITests):
    url = "/api/v1/statuslabels"
    viewset = views.StatusLabelViewSet
    section = "statuslabels"
    model = StatusLabel
    factory = StatusLabelFactory
    item_type = "statuslabel"
    not_found_message = "Statuslabel not found"
    created_message = "Status Label created successfully."
    updated_message = "Status Label updated successfully."
    delete_message = "The Status Label was deleted successfully."
    guard_message = ("This Status Label is currently associated with at least one Asset and cannot be deleted. "
                     "Please update your assets to no longer reference this status and try again. ")
    record_keys = {"type", "color", "show_in_nav", "default_label", "assets_count", "notes", "created_by"}

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Ready", "type": "deployable", "color": "#00ff00"}

    def make_in_use(self, obj) -> None:
        AssetFactory(status=obj)


class TestCategoriesAPI(CatalogueAPITests):
    url = "/api/v1/categories"
    viewset = views.CategoryViewSet
    section = "categories"
    model = Category
    factory = CategoryFactory
    item_type = "category"
    not_found_message = "Category not found"
    created_message = "Category created successfully."
    updated_message = "Category updated successfully."
    delete_message = "The category was deleted successfully."
    guard_message = ("This category is currently associated with at least one asset and cannot be deleted. "
                     "Please update your asset  to no longer reference this category and try again. ")
    record_keys = {"category_type", "has_eula", "eula", "item_count", "assets_count", "licenses_count"}

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Laptops", "category_type": "asset"}

    def make_in_use(self, obj) -> None:
        AssetFactory(model=AssetModelFactory(category=obj))


class TestManufacturersAPI(RestoreTests, CatalogueAPITests):
    url = "/api/v1/manufacturers"
    viewset = views.ManufacturerViewSet
    section = "manufacturers"
    model = Manufacturer
    factory = ManufacturerFactory
    item_type = "manufacturer"
    not_found_message = "Manufacturer not found"
    created_message = "Manufacturer created successfully."
    updated_message = "Manufacturer updated successfully."
    delete_message = "The Manufacturer was deleted successfully."
    guard_message = ("This manufacturer is currently associated with at least one model and cannot be deleted. "
                     "Please update your models to no longer reference this manufacturer and try again. ")
    soft_deletes = True
    restore_message = "Manufacturer restored successfully."
    not_deleted_message = "The Manufacturer was not deleted and therefore cannot be restored"
    restore_not_found_message = "Manufacturer does not exist."
    record_keys = {"url", "support_url", "support_email", "assets_count", "deleted_at"}

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Lenovo", "url": "https://lenovo.example", "support_email": "help@lenovo.example"}

    def make_in_use(self, obj) -> None:
        AssetFactory(model=AssetModelFactory(manufacturer=obj))


class TestSuppliersAPI(CatalogueAPITests):
    url = "/api/v1/suppliers"
    viewset = views.SupplierViewSet
    section = "suppliers"
    model = Supplier
    factory = SupplierFactory
    item_type = "supplier"
    not_found_message = "Supplier not found"
    created_message = "Supplier created successfully."
    updated_message = "Supplier updated successfully."
    delete_message = "Supplier was deleted successfully."
    guard_message = ("This supplier is currently associated with 1 asset(s) and cannot be deleted. "
                     "Please update your assets to no longer reference this supplier and try again. ")
    record_keys = {"address", "city", "email", "contact", "assets_count"}

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Acme Supplies", "city": "Berlin", "email": "sales@acme.example"}

    def make_in_use(self, obj) -> None:
        AssetFactory(supplier=obj)


class TestLocationsAPI(CatalogueAPITests):
    url = "/api/v1/locations"
    viewset = views.LocationViewSet
    section = "locations"
    model = Location
    factory = LocationFactory
    item_type = "location"
    not_found_message = "Location not found"
    created_message = "Location created successfully."
    updated_message = "Location updated successfully."
    delete_message = "The location was deleted successfully."
    guard_message = ("This location is not currently deletable because it is the location of record for at least "
                     "one asset or user, has assets assigned to it, or is the parent location of another location. "
                     "Please update your records to no longer reference this location and try again ")
    record_keys = {"parent", "manager", "company", "children", "assets_count", "rtd_assets_count", "users_count"}

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Head office", "city": "Paris", "currency": "EUR"}

    def make_in_use(self, obj) -> None:
        AssetFactory(location=obj)
        LocationFactory(parent=obj)
        UserFactory(location=obj)


class TestAssetModelsAPI(RestoreTests, CatalogueAPITests):
    url = "/api/v1/models"
    viewset = views.AssetModelViewSet
    section = "models"
    model = AssetModel
    factory = AssetModelFactory
    item_type = "model"
    not_found_message = "AssetModel not found"
    created_message = "Model created successfully."
    updated_message = "Model updated successfully."
    delete_message = "The model was deleted successfully."
    guard_message = ("This model is currently associated with one or more assets and cannot be deleted. "
                     "Please delete the assets, and then try deleting again. ")
    soft_deletes = True
    restore_message = "Model restored successfully."
    not_deleted_message = "The Model was not deleted and therefore cannot be restored"
    restore_not_found_message = "Model does not exist."
    clash_kwargs = {"model_number": "20XW"}
    record_keys = {"manufacturer", "category", "model_number", "eol", "assets_count", "remaining", "deleted_at"}

    def create_payload(self) -> dict[str, Any]:
        return {"name": "ThinkPad X1", "category_id": CategoryFactory().pk, "model_number": "20XW"}

    def make_in_use(self, obj) -> None:
        AssetFactory(model=obj)

    def selectlist_text(self, obj) -> str:
        """Snipe-IT's "<category> - <manufacturer> <name> (#<model number>)"."""
        return f"{obj.category.name} - {obj.manufacturer.name} {obj.name} (#{obj.model_number})"


# --- status labels ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"name": "A"}, "type", "Status label type is required."),
        ({"name": "A", "type": "broken"}, "type", "The selected type is invalid."),
        ({"name": "A", "type": ["pending"]}, "type", "The selected type is invalid."),
        ({"name": "A", "type": "pending", "color": "red"}, "color", "The color field must be a valid hexadecimal "
                                                                    "color."),
        ({"name": "A", "type": "pending", "color": "#12345"}, "color", "The color field must be a valid "
                                                                       "hexadecimal color."),
        ({"name": "A", "type": "pending", "show_in_nav": [1]}, "show_in_nav", "The show in nav field must be true "
                                                                              "or false."),
    ],
)
def test_status_label_validation(token_client, payload, field, message):
    assert error_of(token_client.post("/api/v1/statuslabels", payload, format="json"), field) == [message]
    assert not StatusLabel.objects.exists()


def test_status_label_type_is_case_insensitive_and_filterable(token_client):
    body = token_client.post("/api/v1/statuslabels", {"name": "Broken", "type": "UNDEPLOYABLE",
                                                      "show_in_nav": "1"}, format="json").json()
    assert body["payload"]["type"] == "undeployable" and body["payload"]["show_in_nav"] is True
    StatusLabelFactory(name="Ready", type="deployable")
    rows = token_client.get("/api/v1/statuslabels", {"status_type": "Undeployable"}).json()["rows"]
    assert [r["name"] for r in rows] == ["Broken"]
    assert token_client.get("/api/v1/statuslabels", {"status_type": "nonsense"}).json()["total"] == 2


def test_status_label_update_without_type_keeps_it(token_client):
    label = StatusLabelFactory(type="pending")
    body = token_client.put(f"/api/v1/statuslabels/{label.pk}", {"color": "#abc"}, format="json").json()
    assert body["payload"]["type"] == "pending" and body["payload"]["color"] == "#abc"


def test_status_label_guard_counts_deleted_assets_but_the_count_does_not(token_client):
    from django.utils import timezone

    label = StatusLabelFactory()
    AssetFactory(status=label, deleted_at=timezone.now())
    row = token_client.get(f"/api/v1/statuslabels/{label.pk}").json()
    assert row["assets_count"] == 0 and row["available_actions"]["delete"] is False
    assert token_client.delete(f"/api/v1/statuslabels/{label.pk}").json()["status"] == "error"


# --- categories ---------------------------------------------------------------------------------------------------


def test_category_type_is_required_and_checked(token_client):
    url = "/api/v1/categories"
    assert error_of(token_client.post(url, {"name": "X"}, format="json"), "category_type") == [
        "The category type field is required."]
    assert error_of(token_client.post(url, {"name": "X", "category_type": "spaceship"}, format="json"),
                    "category_type") == ["The selected category type is invalid."]
    body = token_client.post(url, {"name": "Mice", "category_type": "Accessory"}, format="json").json()
    assert body["payload"]["category_type"] == "Accessory"
    assert Category.objects.get(name="Mice").category_type == "accessory"


def test_category_name_is_unique_per_type_and_type_cannot_change(token_client):
    url = "/api/v1/categories"
    CategoryFactory(name="Cables", category_type="accessory")
    assert token_client.post(url, {"name": "cables", "category_type": "consumable"},
                             format="json").json()["status"] == "success"
    assert error_of(token_client.post(url, {"name": "CABLES", "category_type": "accessory"}, format="json"),
                    "name") == ["The name must be unique across categories and category type. "]
    category = CategoryFactory(category_type="asset")
    messages = error_of(token_client.patch(f"{url}/{category.pk}", {"category_type": "license"}, format="json"))
    assert messages == {"category_type": ["You cannot change the category type once it has been created"]}
    category.refresh_from_db()
    assert category.category_type == "asset"


def test_category_with_only_models_cannot_be_deleted_but_other_types_can(token_client):
    used = CategoryFactory()
    AssetModelFactory(category=used)
    assert token_client.delete(f"/api/v1/categories/{used.pk}").json()["status"] == "error"
    accessory = CategoryFactory(category_type="accessory")
    assert token_client.delete(f"/api/v1/categories/{accessory.pk}").json()["status"] == "success"


def test_category_filters_and_typed_selectlist(token_client):
    CategoryFactory(name="Laptops")
    CategoryFactory(name="Keyboards", category_type="accessory")
    rows = token_client.get("/api/v1/categories", {"category_type": "accessory"}).json()["rows"]
    assert [r["name"] for r in rows] == ["Keyboards"]
    body = token_client.get("/api/v1/categories/accessory/selectlist").json()
    assert [r["text"] for r in body["results"]] == ["Keyboards"]
    assert token_client.get("/api/v1/categories/nonsense/selectlist").json()["total_count"] == 0


# --- manufacturers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("url", "ftp://x", "The url must start with one of the following: http://, https://, afp://, facetime://, "
                           "file://, irc://."),
        ("support_email", "not-an-email", "The support email must be a valid email address."),
        ("name", "A", "The name must be at least 2 characters."),
    ],
)
def test_manufacturer_validation(token_client, field, value, message):
    response = token_client.post("/api/v1/manufacturers", {"name": "Dell", field: value}, format="json")
    assert error_of(response, field) == [message]
    assert not Manufacturer.objects.exists()


def test_manufacturer_soft_delete_list_and_restore(token_client, superuser, settings):
    manufacturer = ManufacturerFactory(name="Gone")
    model = AssetModelFactory(manufacturer=manufacturer)  # a model without assets does not hold it (Snipe-IT)
    assert token_client.delete(f"/api/v1/manufacturers/{manufacturer.pk}").json()["status"] == "success"
    assert token_client.get("/api/v1/manufacturers").json()["total"] == 0
    deleted = token_client.get("/api/v1/manufacturers", {"deleted": "true"}).json()["rows"]
    assert [r["id"] for r in deleted] == [manufacturer.pk]
    assert deleted[0]["deleted_at"] and deleted[0]["available_actions"]["restore"] is True
    assert token_client.get(f"/api/v1/models/{model.pk}").json()["manufacturer"] is None

    # A live manufacturer of that name blocks the restore; once it is renamed, the restore works.
    other = ManufacturerFactory(name="GONE")
    response = token_client.post(f"/api/v1/manufacturers/{manufacturer.pk}/restore")
    assert response.json()["status"] == "error"
    assert "Error restoring Manufacturer" in response.json()["message"]
    other.name = "Renamed"
    other.save()
    body = token_client.post(f"/api/v1/manufacturers/{manufacturer.pk}/restore").json()
    assert body["status"] == "success" and body["messages"] == "Manufacturer restored successfully."
    assert body["payload"]["deleted_at"] is None
    assert ActionLog.objects.filter(item_type="manufacturer", item_id=manufacturer.pk, action_type="restore").exists()
    response = token_client.post(f"/api/v1/manufacturers/{manufacturer.pk}/restore")
    assert response.json()["message"] == "The Manufacturer was not deleted and therefore cannot be restored"
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    assert token_client.post(f"/api/v1/manufacturers/{manufacturer.pk}/restore").status_code == 409
    assert token_client.post("/api/v1/manufacturers/999999/restore").status_code == 404


def test_restore_needs_the_delete_key(make_client):
    manufacturer = ManufacturerFactory()
    client = make_client(UserFactory(permissions={"manufacturers.edit": 1, "manufacturers.create": 1}))
    assert client.post(f"/api/v1/manufacturers/{manufacturer.pk}/restore").status_code == 403


# --- suppliers ----------------------------------------------------------------------------------------------------


def test_supplier_guard_counts_assets_and_email_is_checked(token_client):
    supplier = SupplierFactory()
    AssetFactory(supplier=supplier), AssetFactory(supplier=supplier)
    message = token_client.delete(f"/api/v1/suppliers/{supplier.pk}").json()["message"]
    assert message.startswith("This supplier is currently associated with 2 asset(s)")
    assert error_of(token_client.post("/api/v1/suppliers", {"name": "S", "email": "nope"}, format="json"),
                    "email") == ["The email must be a valid email address."]


# --- locations ----------------------------------------------------------------------------------------------------


def test_location_parent_children_manager_and_flat_keys(token_client):
    parent = LocationFactory(name="Campus")
    manager = UserFactory(first_name="Ada", last_name="Lovelace")
    company = CompanyFactory()
    body = token_client.post("/api/v1/locations", {"name": "Building 1", "parent_id": str(parent.pk),
                                                   "manager_id": manager.pk, "company_id": company.pk},
                             format="json").json()
    record = body["payload"]
    assert record["parent"] == {"id": parent.pk, "name": "Campus"}
    assert record["manager"]["name"] == "Ada Lovelace" and record["company"]["id"] == company.pk
    assert (record["parent_id"], record["manager_id"], record["company_id"]) == (parent.pk, manager.pk, company.pk)
    shown = token_client.get(f"/api/v1/locations/{parent.pk}").json()
    assert shown["children"] == [{"id": record["id"], "name": "Building 1"}]
    rows = token_client.get("/api/v1/locations", {"parent_id": parent.pk}).json()["rows"]
    assert [r["id"] for r in rows] == [record["id"]]


def test_location_parent_must_not_loop(token_client):
    top = LocationFactory()
    middle = LocationFactory(parent=top)
    bottom = LocationFactory(parent=middle)
    for parent in (top, bottom):
        target = top if parent is bottom else top
        response = token_client.patch(f"/api/v1/locations/{target.pk}", {"parent_id": parent.pk}, format="json")
        assert error_of(response, "parent_id") == ["The parent id must not create a circular reference."]
    top.refresh_from_db()
    assert top.parent_id is None
    assert token_client.patch(f"/api/v1/locations/{bottom.pk}", {"parent_id": top.pk},
                              format="json").json()["status"] == "success"


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"parent_id": 999999}, "parent_id", "The selected parent id is invalid."),
        ({"parent_id": [1]}, "parent_id", "The selected parent id is invalid."),
        ({"manager_id": True}, "manager_id", "The selected manager id is invalid."),
        ({"company_id": "abc"}, "company_id", "The selected company id is invalid."),
        ({"zip": "1" * 21}, "zip", "The zip may not be greater than 20 characters."),
    ],
)
def test_location_bad_references(token_client, payload, field, message):
    response = token_client.post("/api/v1/locations", {"name": "Annex", **payload}, format="json")
    assert error_of(response, field) == [message]
    assert not Location.objects.exists()


def test_location_company_must_be_visible_but_locations_are_not_scoped(make_client, fmcs_on, company,
                                                                       other_company):
    LocationFactory(name="Shared", company=other_company)
    client = make_client(UserFactory(company=company, permissions={"locations.view": 1, "locations.create": 1}))
    assert client.get("/api/v1/locations").json()["total"] == 1  # not company-scoped (docs/catalogue.md)
    response = client.post("/api/v1/locations", {"name": "Mine", "company_id": other_company.pk}, format="json")
    assert error_of(response, "company_id") == ["The selected company id is invalid."]
    response = client.post("/api/v1/locations", {"name": "Mine", "company_id": company.pk}, format="json")
    assert response.json()["status"] == "success"


def test_location_counts_are_limited_to_visible_assets(make_client, fmcs_on, company, other_company):
    location = LocationFactory()
    AssetFactory(location=location, company=company)
    AssetFactory(location=location, rtd_location=location, company=other_company)
    client = make_client(UserFactory(company=company, permissions={"locations.view": 1, "locations.delete": 1}))
    row = client.get(f"/api/v1/locations/{location.pk}").json()
    assert (row["assets_count"], row["rtd_assets_count"]) == (1, 0)
    assert client.delete(f"/api/v1/locations/{location.pk}").json()["status"] == "error"


# --- asset models -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({}, "category_id", "The category id field is required."),
        ({"category_id": 999999}, "category_id", "The selected category id is invalid."),
        ({"manufacturer_id": 999999}, "manufacturer_id", "The selected manufacturer id is invalid."),
        ({"eol": -1}, "eol", "The eol must be at least 0."),
        ({"eol": 241}, "eol", "The eol may not be greater than 240."),
        ({"eol": 1.5}, "eol", "The eol must be an integer."),
        ({"min_amt": True}, "min_amt", "The min amt must be an integer."),
        ({"min_amt": 10**12}, "min_amt", "The min amt may not be greater than 2147483647."),
        ({"requestable": {"a": 1}}, "requestable", "The requestable field must be true or false."),
    ],
)
def test_model_validation(token_client, payload, field, message):
    data = {"name": "X1", "category_id": CategoryFactory().pk, **payload}
    if not payload:
        data.pop("category_id")
    assert error_of(token_client.post("/api/v1/models", data, format="json"), field) == [message]
    assert not AssetModel.objects.exists()


def test_model_category_must_be_an_asset_category(token_client):
    category = CategoryFactory(category_type="consumable")
    response = token_client.post("/api/v1/models", {"name": "X", "category_id": category.pk}, format="json")
    assert error_of(response, "category_type") == ["This category must be an asset category."]


def test_model_name_is_unique_with_its_model_number(token_client):
    category = CategoryFactory()
    AssetModelFactory(name="X1", model_number="A", category=category)
    url = "/api/v1/models"
    assert token_client.post(url, {"name": "x1", "model_number": "B", "category_id": category.pk},
                             format="json").json()["status"] == "success"
    for number in ("a", None):  # an empty model number clashes with any model of that name (Snipe-IT)
        response = token_client.post(url, {"name": "X1", "model_number": number, "category_id": category.pk},
                                     format="json")
        assert error_of(response, "name") == ["The name must be unique across models and model number. "]


def test_model_record_eol_remaining_and_restore(token_client):
    model = AssetModelFactory(eol=36, min_amt=5)
    AssetFactory(model=model)
    row = token_client.get(f"/api/v1/models/{model.pk}").json()
    assert (row["eol"], row["min_amt"], row["remaining"], row["assets_count"]) == ("36 months", 5, -4, 1)
    spare = AssetModelFactory()
    assert token_client.delete(f"/api/v1/models/{spare.pk}").json()["status"] == "success"
    assert [r["id"] for r in token_client.get("/api/v1/models", {"status": "deleted"}).json()["rows"]] == [spare.pk]
    body = token_client.post(f"/api/v1/models/{spare.pk}/restore").json()
    assert body["status"] == "success" and body["messages"] == "Model restored successfully."
    assert AssetModel.objects.get(pk=spare.pk).deleted_at is None


def test_model_selectlist_text_search_and_pages(token_client, make_client):
    category = CategoryFactory(name="Laptops")
    maker = ManufacturerFactory(name="Lenovo")
    for n in range(51):
        AssetModelFactory(name=f"T{n:02d}", model_number="", category=category, manufacturer=maker)
    body = token_client.get("/api/v1/models/selectlist").json()
    assert body["total_count"] == 51 and body["page_count"] == 2 and body["pagination"] == {"more": True,
                                                                                           "per_page": 50}
    assert body["results"][0] == {"id": AssetModel.objects.get(name="T00").pk, "text": "Laptops - Lenovo T00",
                                  "image": None}
    page2 = token_client.get("/api/v1/models/selectlist", {"page": 2}).json()
    assert [r["text"] for r in page2["results"]] == ["Laptops - Lenovo T50"] and page2["pagination"]["more"] is False
    assert token_client.get("/api/v1/models/selectlist", {"search": "t07"}).json()["total_count"] == 1
    # Select lists serve forms: anyone who may fill one in, not only viewers of the section.
    assert make_client(UserFactory(permissions={"assets.create": 1})).get(
        "/api/v1/models/selectlist").status_code == 200
    assert make_client(UserFactory()).get("/api/v1/models/selectlist").status_code == 403


def test_query_string_is_input_on_writes_not_a_filter(token_client):
    location = LocationFactory(name="Old")
    body = token_client.put(f"/api/v1/locations/{location.pk}?name=New&city=Lyon").json()
    assert body["status"] == "success" and (body["payload"]["name"], body["payload"]["city"]) == ("New", "Lyon")


def test_nul_in_a_search_matches_nothing(token_client):
    """List parameters are lenient (contract §4, issue 25 item 16): a search holding a NUL finds nothing."""
    SupplierFactory(name="ab")
    response = token_client.get("/api/v1/suppliers", {"search": "a\x00b"})
    assert response.status_code == 200 and response.json() == {"total": 0, "rows": []}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_reparenting_never_makes_a_loop(make_client):
    """A.parent = B and B.parent = A at the same time: at most one wins, and the tree never loops."""
    import threading

    from django.db import connection

    first, second = LocationFactory(), LocationFactory()
    clients = [make_client(UserFactory(superuser=True)) for _ in range(2)]
    barrier = threading.Barrier(2)
    results: list[dict] = [{}, {}]

    def move(index, location, parent):
        try:
            barrier.wait()
            results[index] = clients[index].patch(f"/api/v1/locations/{location.pk}", {"parent_id": parent.pk},
                                                  format="json").json()
        finally:
            connection.close()

    threads = [threading.Thread(target=move, args=(0, first, second)),
               threading.Thread(target=move, args=(1, second, first))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.get("status") for r in results].count("success") <= 1
    first.refresh_from_db()
    second.refresh_from_db()
    assert not (first.parent_id == second.pk and second.parent_id == first.pk)
