"""API test mixins (STYLE.md §6, modelled on NetBox ``APIViewTestCases``): the checks every resource shares.

A resource's test class declares only what varies and inherits the checks::

    class TestSuppliersAPI(CrudAPITests, PermissionTests, QueryBudgetTests):
        url = "/api/v1/suppliers"
        section = "suppliers"            # permission section: suppliers.view, suppliers.create, ...
        model = Supplier
        factory = SupplierFactory
        item_type = "supplier"           # ActionLog.item_type
        not_found_message = "Supplier not found"
        created_message = "Supplier created successfully."
        updated_message = "Supplier updated successfully."
        delete_message = "Supplier was deleted successfully."

        def create_payload(self):
            return {"name": "Acme Supplies"}

Mixins: ``ListTests``, ``RetrieveTests``, ``CreateTests``, ``UpdateTests``, ``DeleteTests`` (combined as
``CrudAPITests``), ``RestoreTests`` (soft-deleting kinds), ``SelectListTests``, ``NameRulesTests`` (a required,
unique-ignoring-case ``name``), ``DeleteGuardTests`` (``make_in_use``), ``PermissionTests`` (401/403 for every
verb, custom verbs such as checkout included), ``CheckoutTests`` and ``QuantityCheckoutTests``,
``QueryBudgetTests``. ``SeparationTests`` runs over the list of company-scoped resources in
``tests/security/test_scoped_resources.py`` (one line per kind).

Everything goes through the HTTP API (``/api/v1``) and factory-boy factories; the database is real.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from activity.models import ActionLog
from tests.factories import CompanyFactory, UserFactory

ENVELOPE_KEYS = ["status", "messages", "payload"]
ERROR_KEYS = {"status", "message", "messages", "payload"}
MISSING = 999_999
BASE_VERBS = ("view", "create", "edit", "delete")

#: One request: (HTTP method, path, body).
Request = tuple[str, str, dict[str, Any]]
#: One request on an object: (object, HTTP method, path with ``{id}`` for the object's id, body).
ObjectRequest = tuple[Any, str, str, dict[str, Any]]


def error_of(response, field: str | None = None) -> Any:
    """The error envelope's ``messages`` (or one field's list), after checking the envelope itself."""
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == ERROR_KEYS, body
    assert body["status"] == "error" and body["payload"] is None
    return body["messages"][field] if field else body["messages"]


def http_errors(settings) -> None:
    """``API_ERROR_STATUS=http``: 404/409/422 instead of Snipe-IT's 200 with the error envelope."""
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}


def send(client, method: str, path: str, data: dict[str, Any] | None = None):
    return getattr(client, method)(path, data if data is not None else {}, format="json")


def same_answer(response, reference, ignore_payload_keys=()) -> None:
    """``response`` (for an invisible object) is indistinguishable from ``reference`` (for a missing one)."""
    assert response.status_code == reference.status_code, (response.content, reference.content)
    body, ref = response.json(), reference.json()
    if isinstance(body.get("payload"), dict) and isinstance(ref.get("payload"), dict):
        for key in ignore_payload_keys:
            body["payload"].pop(key, None)
            ref["payload"].pop(key, None)
    assert body == ref
    assert body["status"] == "error"


def succeeded(response) -> bool:
    if response.status_code != 200:
        return False
    body = response.json()
    return not (isinstance(body, dict) and body.get("status") == "error")


class APIResource:
    """What a resource's test class declares. Only ``url``, ``section``, ``model``, ``factory``, ``item_type``,
    the messages and ``create_payload()`` are required; the rest has defaults."""

    url: ClassVar[str]
    #: Permission section (``<section>.view``, ``.create``, ...).
    section: ClassVar[str]
    model: ClassVar[type]
    factory: ClassVar[Callable[..., Any]]
    #: ``ActionLog.item_type`` of the kind.
    item_type: ClassVar[str]
    #: The DRF viewset serving ``url`` (optional: the coverage audit also matches on ``url``).
    viewset: ClassVar[type | None] = None
    not_found_message: ClassVar[str]
    created_message: ClassVar[str]
    updated_message: ClassVar[str]
    delete_message: ClassVar[str]
    soft_deletes: ClassVar[bool] = False
    #: Company-scoped (rules 1 to 8): the factory takes ``company``; list it in ``test_scoped_resources.py``.
    scoped: ClassVar[bool] = False
    #: Keys every record has (beyond ``id, name, created_at, updated_at, available_actions``).
    record_keys: ClassVar[set[str]] = set()
    #: Permission verbs beyond view/create/edit/delete (``checkout``, ``checkin``, ``audit``, ...): each needs
    #: ``custom_requests(verb, ...)``.
    custom_verbs: ClassVar[tuple[str, ...]] = ()
    #: ``POST <url>/{id}/restore`` exists (needs the ``.delete`` key).
    restorable: ClassVar[bool] = False
    #: A field (and its value) an update that names only ``name`` must leave as it was.
    partial_kept: ClassVar[tuple[str, Any]] = ("notes", "keep me")

    # --- what varies ---------------------------------------------------------------------------------------------

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Created thing"}

    def update_payload(self) -> dict[str, Any]:
        return {"notes": "edited"}

    def make(self, **kwargs) -> Any:
        """One row of the kind (``company=`` is passed only for scoped kinds)."""
        return self.factory(**kwargs)

    def custom_requests(self, verb: str, owner: dict[str, Any], viewer_company) -> list[ObjectRequest]:
        """Requests of a custom verb on fresh objects made with ``owner`` (``{"company": c}`` for scoped kinds);
        references in the body belong to ``viewer_company``, so the caller sees them."""
        raise NotImplementedError(verb)

    def reference_requests(self, viewer_company) -> list[tuple[str, str, Callable[[Any], dict[str, Any]]]]:
        """Writes that name an object of this kind by id in their body: (method, path, body for an id). Objects
        the request acts on belong to ``viewer_company``."""
        return []

    # --- derived -------------------------------------------------------------------------------------------------

    @property
    def verbs(self) -> tuple[str, ...]:
        return BASE_VERBS + tuple(self.custom_verbs)

    def detail(self, obj_or_id) -> str:
        return f"{self.url}/{getattr(obj_or_id, 'pk', obj_or_id)}"

    def alive(self):
        rows = self.model.objects.all()
        return rows.filter(deleted_at__isnull=True) if self.soft_deletes else rows

    def owner_kwargs(self, company) -> dict[str, Any]:
        return {"company": company} if self.scoped else {}

    def object_requests(self, verb: str, company=None, viewer_company=None) -> list[ObjectRequest]:
        """The requests of ``verb`` that address one object by id, each on a fresh object of ``company``."""
        owner = self.owner_kwargs(company)
        item = f"{self.url}/{{id}}"
        if verb == "view":
            return [(self.make(**owner), "get", item, {})]
        if verb == "create":
            return []
        if verb == "edit":
            return [(self.make(**owner), "patch", item, self.update_payload()),
                    (self.make(**owner), "put", item, self.update_payload())]
        if verb == "delete":
            calls = [(self.make(**owner), "delete", item, {})]
            if self.restorable:
                calls.append((self.make(deleted_at=timezone.now(), **owner), "post", f"{item}/restore", {}))
            return calls
        return self.custom_requests(verb, owner, viewer_company)

    def requests_for(self, verb: str, company=None, viewer_company=None) -> list[Request]:
        """Every request of ``verb``: the list and create routes, and those on one (fresh) object."""
        calls: list[Request] = []
        if verb == "view":
            calls.append(("get", self.url, {}))
        if verb == "create":
            calls.append(("post", self.url, self.create_payload()))
        for obj, method, path, data in self.object_requests(verb, company, viewer_company):
            calls.append((method, path.format(id=obj.pk), data))
        return calls

    def all_keys(self) -> dict[str, int]:
        return {f"{self.section}.{verb}": 1 for verb in self.verbs}

    def db_state(self) -> tuple[list[dict[str, Any]], int]:
        return list(self.model.objects.order_by("pk").values()), ActionLog.objects.count()


def _parametrize_from_class(metafunc, argname: str, values: Callable[[Any], list], ids=None) -> None:
    if argname in metafunc.fixturenames and metafunc.cls is not None:
        resource = metafunc.cls()
        found = list(values(resource))
        metafunc.parametrize(argname, found, ids=ids(found) if ids else None)


class MixinBase(APIResource):
    """Parametrizes ``verb`` and ``target_type`` from the class's declarations (pytest calls this per class)."""

    def pytest_generate_tests(self, metafunc):
        _parametrize_from_class(metafunc, "verb", lambda r: r.verbs)
        _parametrize_from_class(metafunc, "target_type", lambda r: list(getattr(r, "checkout_targets", {})))


# --- reads ------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
class ListTests(MixinBase):
    #: The list takes ``?name=`` as a filter.
    name_filter: ClassVar[bool] = True

    def test_list_shape_total_and_ordering(self, token_client):
        first, second, third = self.make(name="Bravo"), self.make(name="alpha"), self.make(name="Charlie")
        body = token_client.get(self.url).json()
        assert list(body) == ["total", "rows"]
        assert body["total"] == 3
        # Default: created_at desc with id as tie-breaker, so the newest first.
        assert [row["id"] for row in body["rows"]] == [third.pk, second.pk, first.pk]
        row = body["rows"][0]
        assert {"id", "name", "created_at", "updated_at", "available_actions"} | self.record_keys <= set(row)
        assert row["created_at"].endswith("Z") and "T" in row["created_at"]
        names = [r["name"] for r in token_client.get(self.url, {"sort": "name", "order": "asc"}).json()["rows"]]
        assert names == sorted(names, key=str.lower) or names == sorted(names)
        paged = token_client.get(self.url, {"sort": "id", "order": "asc", "limit": 1, "offset": 1}).json()
        assert paged["total"] == 3 and [r["id"] for r in paged["rows"]] == [second.pk]

    def test_unknown_sort_falls_back_and_injection_is_ignored(self, token_client):
        self.make(), self.make()
        response = token_client.get(self.url, {"sort": "name; DROP TABLE x", "order": "sideways"})
        assert response.status_code == 200 and response.json()["total"] == 2
        assert self.model.objects.count() == 2

    def test_search_matches_any_case_and_or_terms(self, token_client):
        self.make(name="Northwind Alpha")
        self.make(name="Contoso Beta")
        self.make(name="Fabrikam")
        assert [r["name"] for r in token_client.get(self.url, {"search": "northWIND"}).json()["rows"]] == [
            "Northwind Alpha"]
        assert token_client.get(self.url, {"search": "alpha OR beta"}).json()["total"] == 2
        if self.name_filter:
            assert token_client.get(self.url, {"name": "fabrikam"}).json()["total"] == 1


@pytest.mark.django_db
class RetrieveTests(MixinBase):
    def test_retrieve_is_the_bare_record(self, token_client):
        obj = self.make(name="Shown")
        body = token_client.get(self.detail(obj)).json()
        assert body["id"] == obj.pk and body["name"] == "Shown"
        assert "status" not in body

    @pytest.mark.parametrize("bad_id", ["999999", "abc", "99999999999999999999999"])
    def test_unknown_id_is_not_found(self, token_client, settings, bad_id):
        for method in ("get", "patch", "put", "delete"):
            response = getattr(token_client, method)(self.detail(bad_id), {"name": "x"}, format="json")
            assert response.status_code == 200
            assert response.json()["message"] == self.not_found_message
        http_errors(settings)
        for method in ("get", "patch", "put", "delete"):
            response = getattr(token_client, method)(self.detail(bad_id), {"name": "x"}, format="json")
            assert response.status_code == 404, method
            assert response.json()["message"] == self.not_found_message


# --- writes -----------------------------------------------------------------------------------------------------


@pytest.mark.django_db
class CreateTests(MixinBase):
    def test_create_answers_the_full_record_and_logs(self, token_client, superuser):
        payload = self.create_payload()
        response = token_client.post(self.url, payload, format="json")
        body = response.json()
        assert response.status_code == 200 and list(body) == ENVELOPE_KEYS, body
        assert body["status"] == "success" and body["messages"] == self.created_message
        record = body["payload"]
        obj = self.model.objects.get(pk=record["id"])
        assert obj.name == payload["name"] == record["name"]
        assert obj.created_by == superuser
        if "created_by" in record:  # Snipe-IT's location record has none
            assert record["created_by"] == {"id": superuser.pk, "name": superuser.full_name}
        assert record == {**token_client.get(self.detail(obj)).json(), **{k: v for k, v in record.items()
                                                                          if k.endswith("_id")}}
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk)
        assert log.action_type == "create" and log.created_by == superuser

    def test_create_from_query_string_and_form_body(self, token_client):
        payload = self.create_payload()
        response = token_client.post(self.url + "?" + "&".join(f"{k}={v}" for k, v in payload.items()))
        assert response.json()["status"] == "success", response.json()
        assert self.model.objects.filter(name=payload["name"]).exists()

    def test_body_that_is_not_an_object_is_refused(self, token_client):
        count, logs = self.model.objects.count(), ActionLog.objects.count()
        response = token_client.post(self.url, ["name"], format="json")
        assert error_of(response)
        assert self.model.objects.count() == count and ActionLog.objects.count() == logs


@pytest.mark.django_db
class UpdateTests(MixinBase):
    @pytest.mark.parametrize("method", ["put", "patch"])
    def test_update_is_partial_for_put_and_patch(self, token_client, method):
        field, kept = self.partial_kept
        obj = self.make(name="Before", **{field: kept})
        response = getattr(token_client, method)(self.detail(obj), {"name": "After"}, format="json")
        body = response.json()
        assert body["status"] == "success" and body["messages"] == self.updated_message, body
        assert body["payload"]["name"] == "After" and body["payload"]["id"] == obj.pk
        obj.refresh_from_db()
        assert obj.name == "After" and getattr(obj, field) == kept
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk, action_type="update")
        assert log.log_meta == {"name": {"old": "Before", "new": "After"}}


@pytest.mark.django_db
class DeleteTests(MixinBase):
    #: ``GET <url>/{id}`` still answers a soft-deleted row (with ``deleted_at``), as ``/hardware`` does.
    retrieve_finds_deleted: ClassVar[bool] = False

    def test_delete(self, token_client, superuser):
        obj = self.make()
        body = token_client.delete(self.detail(obj)).json()
        assert body == {"status": "success", "messages": self.delete_message, "payload": None}
        assert not self.alive().filter(pk=obj.pk).exists()
        assert self.model.objects.filter(pk=obj.pk).exists() == self.soft_deletes
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk, action_type="delete")
        assert log.created_by == superuser
        if self.retrieve_finds_deleted:
            assert token_client.get(self.detail(obj)).json()["deleted_at"]
        else:
            assert token_client.get(self.detail(obj)).json()["message"] == self.not_found_message
        again = token_client.delete(self.detail(obj)).json()
        assert again["status"] == "error" and again["message"] == self.not_found_message


class CrudAPITests(ListTests, RetrieveTests, CreateTests, UpdateTests, DeleteTests):
    """List, retrieve, create, update (PUT and PATCH partial) and delete."""


@pytest.mark.django_db
class DeleteGuardTests(MixinBase):
    """An item in use cannot be deleted: declare ``guard_message`` and ``make_in_use(obj)``."""

    guard_message: ClassVar[str]

    def make_in_use(self, obj) -> None:
        raise NotImplementedError

    def test_delete_guard_refuses_an_item_in_use(self, token_client, settings):
        obj = self.make()
        self.make_in_use(obj)
        row = token_client.get(self.detail(obj)).json()
        assert row["available_actions"]["delete"] is False
        before = self.db_state()
        response = token_client.delete(self.detail(obj))
        assert response.status_code == 200
        assert response.json() == {"status": "error", "message": self.guard_message,
                                   "messages": self.guard_message, "payload": None}
        http_errors(settings)
        assert token_client.delete(self.detail(obj)).status_code == 409
        assert self.alive().filter(pk=obj.pk).exists()
        assert self.db_state() == before


@pytest.mark.django_db
class RestoreTests(MixinBase):
    """``POST <url>/{id}/restore`` of a soft-deleting kind."""

    restorable = True
    restore_message: ClassVar[str]
    not_deleted_message: ClassVar[str]
    #: Unknown id on restore (defaults to ``not_found_message``).
    restore_not_found_message: ClassVar[str | None] = None

    def test_delete_then_restore(self, token_client, superuser):
        obj = self.make()
        assert token_client.delete(self.detail(obj)).json()["status"] == "success"
        body = token_client.post(f"{self.detail(obj)}/restore").json()
        assert body["status"] == "success" and body["messages"] == self.restore_message, body
        assert body["payload"]["id"] == obj.pk and body["payload"]["deleted_at"] is None
        assert self.alive().filter(pk=obj.pk).exists()
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk, action_type="restore")
        assert log.created_by == superuser
        assert obj.pk in {row["id"] for row in token_client.get(self.url, {"limit": 500}).json()["rows"]}

    def test_restore_of_a_live_row_is_refused(self, token_client, settings):
        obj = self.make()
        before = self.db_state()
        response = token_client.post(f"{self.detail(obj)}/restore")
        assert response.status_code == 200
        assert response.json()["status"] == "error"
        assert response.json()["message"] == self.not_deleted_message
        http_errors(settings)
        assert token_client.post(f"{self.detail(obj)}/restore").status_code == 409
        assert self.db_state() == before

    def test_restore_of_an_unknown_id(self, token_client, settings):
        message = self.restore_not_found_message or self.not_found_message
        assert token_client.post(f"{self.detail(MISSING)}/restore").json()["message"] == message
        http_errors(settings)
        response = token_client.post(f"{self.detail(MISSING)}/restore")
        assert response.status_code == 404 and response.json()["message"] == message

    def test_restore_needs_the_delete_key(self, make_client):
        obj = self.make(deleted_at=timezone.now())
        keys = {k: v for k, v in self.all_keys().items() if k != f"{self.section}.delete"}
        response = make_client(UserFactory(permissions=keys)).post(f"{self.detail(obj)}/restore")
        assert response.status_code == 403 and response.json()["message"] == "Insufficient permissions."
        assert not self.alive().filter(pk=obj.pk).exists()


@pytest.mark.django_db
class SelectListTests(MixinBase):
    """``GET <url>/selectlist``: ``{results: [{id, text, image}], pagination, total_count, page, page_count}``."""

    #: A key outside the section that also opens the select list (Snipe-IT's ``view.selectlists``).
    selectlist_key: ClassVar[str] = "assets.create"

    def selectlist_text(self, obj) -> str:
        return obj.name

    def test_selectlist_shape_and_search(self, token_client):
        obj = self.make(name="Zebra select")
        self.make(name="Other select")
        if self.soft_deletes:
            self.make(name="Zebra deleted", deleted_at=timezone.now())  # never offered
        body = token_client.get(f"{self.url}/selectlist").json()
        assert set(body) == {"results", "pagination", "total_count", "page", "page_count"}
        assert body["total_count"] == 2 and body["page"] == 1 and body["page_count"] == 1
        assert body["pagination"] == {"more": False, "per_page": 50}
        assert {"id": obj.pk, "text": self.selectlist_text(obj), "image": None} in body["results"]
        found = token_client.get(f"{self.url}/selectlist", {"search": "zEBRA"}).json()
        assert found["total_count"] == 1 and [r["id"] for r in found["results"]] == [obj.pk]

    def test_selectlist_permissions(self, make_client, api_client):
        self.make()
        assert api_client.get(f"{self.url}/selectlist").status_code == 401
        for keys in ({f"{self.section}.view": 1}, {self.selectlist_key: 1}):
            assert make_client(UserFactory(permissions=keys)).get(f"{self.url}/selectlist").status_code == 200
        response = make_client(UserFactory()).get(f"{self.url}/selectlist")
        assert response.status_code == 403 and response.json()["message"] == "Insufficient permissions."


@pytest.mark.django_db
class NameRulesTests(MixinBase):
    """A required ``name`` of at most 255 characters, unique ignoring case (``clash_kwargs`` make a clash)."""

    #: Factory arguments that make a row clash with ``create_payload()`` once its name matches.
    clash_kwargs: ClassVar[dict[str, Any]] = {}

    def test_update_may_keep_its_own_name_in_another_case(self, token_client):
        obj = self.make(name="Same")
        response = token_client.patch(self.detail(obj), {"name": "SAME"}, format="json")
        assert response.json()["status"] == "success", response.json()

    @pytest.mark.parametrize(
        ("name", "expected"),
        [
            (None, "The name field is required."),
            ("", "The name field is required."),
            ("   ", "The name field is required."),
            ("x" * 256, "The name may not be greater than 255 characters."),
            (["a"], "The name must be a string."),
            ({"a": 1}, "The name must be a string."),
            (True, "The name must be a string."),
            ("bad\x00name", "Null characters are not allowed."),
        ],
    )
    def test_bad_names_are_refused_and_nothing_is_written(self, token_client, name, expected):
        count, logs = self.model.objects.count(), ActionLog.objects.count()
        payload = {**self.create_payload(), "name": name}
        response = token_client.post(self.url, payload, format="json")
        assert error_of(response, "name") == [expected]
        assert self.model.objects.count() == count and ActionLog.objects.count() == logs
        obj = self.make(name="Kept")
        response = token_client.patch(self.detail(obj), {"name": name}, format="json")
        assert error_of(response, "name") == [expected]
        obj.refresh_from_db()
        assert obj.name == "Kept"

    def test_missing_name(self, token_client):
        payload = self.create_payload()
        payload.pop("name")
        assert error_of(token_client.post(self.url, payload, format="json"), "name") == [
            "The name field is required."]

    def test_duplicate_name_in_other_case_is_refused(self, token_client, settings):
        payload = self.create_payload()
        assert token_client.post(self.url, payload, format="json").json()["status"] == "success"
        count = self.model.objects.count()
        response = token_client.post(self.url, {**payload, "name": payload["name"].upper()}, format="json")
        assert error_of(response, "name")
        assert self.model.objects.count() == count
        other = self.make(name="Other one", **self.clash_kwargs)
        assert error_of(token_client.patch(self.detail(other), {"name": payload["name"].lower()}, format="json"),
                        "name")
        http_errors(settings)
        assert token_client.post(self.url, {**payload, "name": payload["name"].upper()},
                                 format="json").status_code == 422


# --- permissions ------------------------------------------------------------------------------------------------


@pytest.mark.django_db
class PermissionTests(MixinBase):
    """Anonymous callers get 401 everywhere; each verb (view, create, edit, delete and ``custom_verbs``) needs its
    own key: without it 403 and nothing changes, with only it the call succeeds."""

    def test_anonymous_gets_401_with_the_envelope_everywhere(self, api_client, verb):
        calls = self.requests_for(verb)
        assert calls
        before = self.db_state()
        for method, path, data in calls:
            response = send(api_client, method, path, data)
            assert response.status_code == 401, (method, path)
            assert response.json() == {"status": "error", "message": "Unauthenticated.",
                                       "messages": "Unauthenticated.", "payload": None}
        assert self.db_state() == before

    def test_user_of_another_section_gets_403_and_nothing_changes(self, make_client):
        obj = self.make(name="Untouched")
        other_section = "companies" if self.section != "companies" else "users"
        client = make_client(UserFactory(permissions={f"{other_section}.view": 1, f"{other_section}.edit": 1}))
        count = self.model.objects.count()
        for method, url in [("get", self.url), ("post", self.url), ("get", self.detail(obj)),
                            ("patch", self.detail(obj)), ("put", self.detail(obj)), ("delete", self.detail(obj))]:
            response = getattr(client, method)(url, {"name": "Changed"}, format="json")
            assert response.status_code == 403, (method, url)
            assert response.json()["message"] == "Insufficient permissions."
        obj.refresh_from_db()
        assert obj.name == "Untouched" and self.model.objects.count() == count

    def test_every_key_but_this_one_gets_403_and_nothing_changes(self, make_client, verb):
        keys = {k: v for k, v in self.all_keys().items() if k != f"{self.section}.{verb}"}
        client = make_client(UserFactory(permissions=keys))
        calls = self.requests_for(verb)
        before = self.db_state()
        for method, path, data in calls:
            response = send(client, method, path, data)
            assert response.status_code == 403, (method, path, response.content)
            assert response.json() == {"status": "error", "message": "Insufficient permissions.",
                                       "messages": "Insufficient permissions.", "payload": None}
        assert self.db_state() == before

    def test_each_verb_needs_its_own_key(self, make_client, verb):
        client = make_client(UserFactory(permissions={f"{self.section}.{verb}": 1}))
        for other in self.verbs:
            if other == verb:
                continue
            for method, path, data in self.requests_for(other):
                assert send(client, method, path, data).status_code == 403, (other, method, path)
        for method, path, data in self.requests_for(verb):
            response = send(client, method, path, data)
            assert response.status_code == 200, (method, path, response.content)
            if method != "get":
                assert response.json()["status"] == "success", response.json()

    def test_available_actions_follow_the_callers_keys(self, make_client):
        self.make()
        viewer = make_client(UserFactory(permissions={f"{self.section}.view": 1}))
        row = viewer.get(self.url).json()["rows"][0]
        assert row["available_actions"]["update"] is False
        assert row["available_actions"]["delete"] is False
        editor = make_client(UserFactory(permissions={f"{self.section}.view": 1, f"{self.section}.edit": 1,
                                                      f"{self.section}.delete": 1}))
        row = editor.get(self.url).json()["rows"][0]
        assert row["available_actions"]["update"] is True
        assert row["available_actions"]["delete"] is True


# --- checkout and checkin ---------------------------------------------------------------------------------------


@pytest.mark.django_db
class CheckoutTests(MixinBase):
    """Checkout to each target type, refusal when unavailable, checkin, refusal texts and one action-log row per
    verb. Declare ``checkout_targets`` (target type → (body key, maker)), the messages, ``make_checked_out()`` and
    ``holder_of(obj)`` (the target an object is out to, or ``None``)."""

    #: ``{"user": ("assigned_user", UserFactory), ...}``: the body key naming a target of that type, and a maker.
    checkout_targets: ClassVar[dict[str, tuple[str, Callable[..., Any]]]]
    checkout_message: ClassVar[str]
    checkin_message: ClassVar[str]
    unavailable_message: ClassVar[str]
    already_checked_in_message: ClassVar[str]
    checkout_action: ClassVar[str] = "checkout"
    checkin_action: ClassVar[str] = "checkin from"
    #: HTTP status (``http`` mode) of a checkout refused because nothing is left, and of a second checkin.
    unavailable_status: ClassVar[int] = 409
    already_checked_in_status: ClassVar[int] = 409
    #: False for kinds that are used up (consumables): the checkin tests do not apply.
    returnable: ClassVar[bool] = True

    def require_returnable(self) -> None:
        if not self.returnable:
            pytest.skip("this kind is used up, never checked in")

    def checkout_path(self, obj) -> str:
        return f"{self.detail(obj)}/checkout"

    def checkin_path(self, obj) -> str:
        return f"{self.detail(obj)}/checkin"

    def make_checked_out(self, **kwargs) -> Any:
        raise NotImplementedError

    def holder_of(self, obj) -> Any:
        raise NotImplementedError

    def invalid_target_message(self, obj, target_type: str) -> str | None:
        """The refusal text of an unknown target (``None``: only the refusal is checked)."""
        return None

    def target_body(self, target_type: str, target_id) -> dict[str, Any]:
        key, _maker = self.checkout_targets[target_type]
        return {key: target_id}

    def test_checkout_to_each_target_type(self, token_client, superuser, target_type):
        obj = self.make()
        target = self.checkout_targets[target_type][1]()
        response = token_client.post(self.checkout_path(obj), self.target_body(target_type, target.pk),
                                     format="json")
        body = response.json()
        assert response.status_code == 200 and body["status"] == "success", body
        assert body["messages"] == self.checkout_message
        assert self.holder_of(obj) == target
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk, action_type=self.checkout_action)
        assert (log.target_type, log.target_id, log.created_by) == (target_type, target.pk, superuser)

    def test_second_checkout_is_refused_and_writes_nothing(self, token_client, settings):
        obj = self.make_checked_out()
        holder = self.holder_of(obj)
        targets = {target_type: maker() for target_type, (_key, maker) in self.checkout_targets.items()}
        before = self.db_state()
        for target_type, target in targets.items():
            response = token_client.post(self.checkout_path(obj), self.target_body(target_type, target.pk),
                                         format="json")
            assert response.status_code == 200
            assert response.json()["status"] == "error"
            assert response.json()["message"] == self.unavailable_message
        http_errors(settings)
        for target_type, target in targets.items():
            response = token_client.post(self.checkout_path(obj), self.target_body(target_type, target.pk),
                                         format="json")
            assert response.status_code == self.unavailable_status
            assert response.json()["message"] == self.unavailable_message
        assert self.db_state() == before
        assert self.holder_of(obj) == holder

    def test_unknown_target_is_refused_and_writes_nothing(self, token_client, target_type):
        obj = self.make()
        before = self.db_state()
        body = token_client.post(self.checkout_path(obj), self.target_body(target_type, MISSING),
                                 format="json").json()
        assert body["status"] == "error", body
        message = self.invalid_target_message(obj, target_type)
        if message is not None:
            assert body["message"] == message
        assert self.db_state() == before
        assert self.holder_of(obj) is None

    def test_checkin_then_checkin_again(self, token_client, superuser, settings):
        self.require_returnable()
        obj = self.make_checked_out()
        holder = self.holder_of(obj)
        path = self.checkin_path(obj)  # a kind checked in by checkout row names the row while it exists
        response = token_client.post(path, {"note": "back"}, format="json")
        body = response.json()
        assert response.status_code == 200 and body["status"] == "success", body
        assert body["messages"] == self.checkin_message
        assert self.holder_of(obj) is None
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk, action_type=self.checkin_action)
        assert (log.target_id, log.note, log.created_by) == (holder.pk, "back", superuser)
        before = self.db_state()
        again = token_client.post(path, {}, format="json")
        assert again.status_code == 200 and again.json()["message"] == self.already_checked_in_message
        http_errors(settings)
        again = token_client.post(path, {}, format="json")
        assert again.status_code == self.already_checked_in_status
        assert again.json()["message"] == self.already_checked_in_message
        assert self.db_state() == before

    def test_checkout_then_checkin_writes_one_row_per_verb(self, token_client):
        self.require_returnable()
        obj = self.make()
        target_type, (key, maker) = next(iter(self.checkout_targets.items()))
        assert token_client.post(self.checkout_path(obj), {key: maker().pk},
                                 format="json").json()["status"] == "success"
        assert token_client.post(self.checkin_path(obj), {}, format="json").json()["status"] == "success"
        rows = ActionLog.objects.filter(item_type=self.item_type, item_id=obj.pk).order_by("id")
        assert [row.action_type for row in rows] == [self.checkout_action, self.checkin_action]


@pytest.mark.django_db
class QuantityCheckoutTests(CheckoutTests):
    """Kinds with a quantity (API-CONTRACT.md §10): declare ``quantity_field`` (``checkout_qty`` or
    ``assigned_qty``) and ``qty_kwarg`` (the factory argument of the item's quantity, ``qty``). A checkout of more
    than remains is a field error on ``quantity_field`` (422 in ``http`` mode) and writes nothing."""

    quantity_field: ClassVar[str] = "checkout_qty"
    qty_kwarg: ClassVar[str] = "qty"

    def checkout_body(self, quantity) -> dict[str, Any]:
        target_type, (key, maker) = next(iter(self.checkout_targets.items()))
        return {key: maker().pk, self.quantity_field: quantity}

    def test_more_than_remains_is_refused_and_writes_nothing(self, token_client, settings):
        obj = self.make(**{self.qty_kwarg: 2})
        before = self.db_state()
        assert self.quantity_field in error_of(token_client.post(self.checkout_path(obj), self.checkout_body(3),
                                                                 format="json"))
        http_errors(settings)
        response = token_client.post(self.checkout_path(obj), self.checkout_body(3), format="json")
        assert response.status_code == 422 and self.quantity_field in response.json()["messages"]
        assert self.db_state() == before

    @pytest.mark.parametrize("quantity", [0, -1, "abc", 1.5])
    def test_quantity_must_be_a_positive_integer(self, token_client, quantity):
        obj = self.make(**{self.qty_kwarg: 5})
        before = self.db_state()
        response = token_client.post(self.checkout_path(obj), self.checkout_body(quantity), format="json")
        assert self.quantity_field in error_of(response)
        assert self.db_state() == before

    def test_quantity_is_used_up_then_refused(self, token_client):
        obj = self.make(**{self.qty_kwarg: 2})
        assert token_client.post(self.checkout_path(obj), self.checkout_body(2),
                                 format="json").json()["status"] == "success"
        assert token_client.get(self.detail(obj)).json()["remaining"] == 0
        before = self.db_state()
        assert self.quantity_field in error_of(token_client.post(self.checkout_path(obj), self.checkout_body(1),
                                                                 format="json"))
        assert self.db_state() == before


# --- query budget -----------------------------------------------------------------------------------------------


@pytest.mark.django_db
class QueryBudgetTests(MixinBase):
    """The list runs the same number of SQL queries for a few rows and for many (API-CONTRACT.md §4)."""

    budget_sizes: ClassVar[tuple[int, int]] = (3, 30)

    def make_listed(self) -> None:
        """One row as the list would show it, with what its record reads (counts, related rows)."""
        self.make()

    def listed_count(self) -> int:
        return self.alive().count()

    def test_list_runs_a_constant_number_of_queries(self, token_client, django_assert_max_num_queries):
        small, large = self.budget_sizes
        for _ in range(small):
            self.make_listed()
        token_client.get(self.url)  # warm-up: per-process caches are not the list's cost
        with CaptureQueriesContext(connection) as few:
            body = token_client.get(self.url, {"limit": 500}).json()
        assert body["total"] == self.listed_count() >= small
        for _ in range(large - small):
            self.make_listed()
        with django_assert_max_num_queries(len(few.captured_queries)):
            with CaptureQueriesContext(connection) as many:
                body = token_client.get(self.url, {"limit": 500}).json()
        assert body["total"] == self.listed_count() >= large and len(body["rows"]) >= large
        assert len(many.captured_queries) == len(few.captured_queries)


# --- company separation -----------------------------------------------------------------------------------------


@pytest.mark.django_db
class SeparationTests:
    """Company separation (specification rules 1 to 8) for every company-scoped kind in ``resources``: with
    separation on, another company's row never appears in a list nor counts in its ``total``; detail, update,
    delete, restore and every custom verb on it answer exactly as a missing id and change nothing; its id used
    as a reference in a write (``reference_requests``) is refused exactly as an unknown one. Super users and
    company-less users see everything; with separation off everybody does."""

    #: The test classes of the scoped kinds (each an ``APIResource`` with ``scoped = True``).
    resources: ClassVar[list[type[APIResource]]] = []

    def pytest_generate_tests(self, metafunc):
        if "resource" in metafunc.fixturenames:
            metafunc.parametrize("resource", [cls() for cls in metafunc.cls.resources],
                                 ids=[cls.url.rsplit("/", 1)[-1] for cls in metafunc.cls.resources])

    @pytest.fixture
    def companies(self, db):
        return {"a": CompanyFactory(name="Company A"), "b": CompanyFactory(name="Company B"), "none": None}

    @pytest.fixture
    def rows(self, resource, companies):
        return {owner: resource.make(company=company) for owner, company in companies.items()}

    @pytest.fixture
    def caller(self, resource, companies, make_client):
        """A user of company A holding every key of the kind."""
        return make_client(UserFactory(company=companies["a"], permissions=resource.all_keys()))

    @staticmethod
    def listed(client, resource, **params):
        response = client.get(resource.url, {"limit": 500, **params})
        assert response.status_code == 200, response.content
        body = response.json()
        return {row["id"] for row in body["rows"]}, body["total"]

    def test_list_and_total_show_only_the_own_company(self, resource, rows, caller, fmcs_on, companies):
        assert self.listed(caller, resource) == ({rows["a"].pk}, 1)
        assert self.listed(caller, resource, company_id=companies["b"].pk) == (set(), 0)
        assert self.listed(caller, resource, search=rows["b"].name) == (set(), 0)

    @pytest.mark.parametrize("who", ["super", "company-less"])
    def test_unrestricted_callers_see_everything(self, resource, rows, companies, make_client, fmcs_on, who):
        if who == "super":
            user = UserFactory(superuser=True, company=companies["a"])
        else:
            user = UserFactory(permissions=resource.all_keys())
        every = {row.pk for row in rows.values()}
        assert self.listed(make_client(user), resource) == (every, 3)

    def test_separation_off_shows_everything(self, resource, rows, caller, site_settings):
        assert not site_settings.full_multiple_companies_support
        assert self.listed(caller, resource) == ({row.pk for row in rows.values()}, 3)

    @pytest.mark.parametrize("mode", ["compat", "http"])
    def test_another_companys_object_answers_like_a_missing_id(self, resource, caller, companies, fmcs_on,
                                                               settings, mode):
        if mode == "http":
            http_errors(settings)
        for verb in resource.verbs:
            for obj, method, path, data in resource.object_requests(verb, companies["b"], companies["a"]):
                before = resource.db_state()
                response = send(caller, method, path.format(id=obj.pk), data)
                missing = send(caller, method, path.format(id=MISSING), data)
                same_answer(response, missing)
                assert resource.db_state() == before, (verb, method, path)

    def test_the_same_requests_succeed_on_the_own_companys_objects(self, resource, caller, companies, fmcs_on):
        """The control of the test above: those requests are refused only because of the company."""
        for verb in resource.verbs:
            for obj, method, path, data in resource.object_requests(verb, companies["a"], companies["a"]):
                response = send(caller, method, path.format(id=obj.pk), data)
                assert succeeded(response), (verb, method, path, response.content)

    @pytest.mark.parametrize("mode", ["compat", "http"])
    def test_another_companys_object_as_a_reference_is_unknown(self, resource, caller, companies, fmcs_on,
                                                               settings, mode):
        if mode == "http":
            http_errors(settings)
        theirs = resource.make(company=companies["b"])
        for method, path, body_with in resource.reference_requests(companies["a"]):
            before = resource.db_state()
            response = send(caller, method, path, body_with(theirs.pk))
            missing = send(caller, method, path, body_with(MISSING))
            same_answer(response, missing, ignore_payload_keys=("target_id",))
            assert resource.db_state() == before, (method, path)
        mine = resource.make(company=companies["a"])
        for method, path, body_with in resource.reference_requests(companies["a"]):
            assert succeeded(send(caller, method, path, body_with(mine.pk))), (method, path)
