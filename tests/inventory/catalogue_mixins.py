"""``CatalogueCrudTests``: the checks every catalogue resource shares (STYLE.md §6 ``CrudAPITests``).

A resource's test class declares ``url``, ``section``, ``model``, ``factory``, ``item_type``, ``not_found_message``,
``delete_message``, ``guard_message``, ``created_message``, ``updated_message``, ``soft_deletes`` and the methods
``create_payload()`` and ``make_in_use(obj)``; it inherits authentication, permission, list, search, retrieve,
create, partial update (PUT and PATCH), delete, delete-guard, validation and query-budget tests.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from tests.factories import UserFactory

ENVELOPE_KEYS = ["status", "messages", "payload"]
ERROR_KEYS = {"status", "message", "messages", "payload"}


def error_of(response, field: str | None = None) -> Any:
    """The error envelope's ``messages`` (or one field's list), after checking the envelope itself."""
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == ERROR_KEYS, body
    assert body["status"] == "error" and body["payload"] is None
    return body["messages"][field] if field else body["messages"]


@pytest.mark.django_db
class CatalogueCrudTests:
    url: ClassVar[str]
    section: ClassVar[str]
    model: ClassVar[type]
    factory: ClassVar[type]
    item_type: ClassVar[str]
    not_found_message: ClassVar[str]
    created_message: ClassVar[str]
    updated_message: ClassVar[str]
    delete_message: ClassVar[str]
    guard_message: ClassVar[str]
    soft_deletes: ClassVar[bool] = False
    #: Factory arguments that make a row clash with ``create_payload()`` once its name matches.
    clash_kwargs: ClassVar[dict[str, Any]] = {}
    #: Keys every record has (beyond the shared ones checked below).
    record_keys: ClassVar[set[str]] = set()

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Created thing"}

    def make_in_use(self, obj) -> None:
        raise NotImplementedError

    def detail(self, obj_or_id) -> str:
        return f"{self.url}/{getattr(obj_or_id, 'pk', obj_or_id)}"

    def alive(self):
        rows = self.model.objects.all()
        return rows.filter(deleted_at__isnull=True) if self.soft_deletes else rows

    # --- authentication and permissions -----------------------------------------------------------------------

    def test_anonymous_gets_401_everywhere(self, api_client):
        obj = self.factory()
        for method, url in [("get", self.url), ("post", self.url), ("get", self.detail(obj)),
                            ("patch", self.detail(obj)), ("put", self.detail(obj)), ("delete", self.detail(obj))]:
            response = getattr(api_client, method)(url, {"name": "x"}, format="json")
            assert response.status_code == 401, (method, url)
        assert self.alive().filter(pk=obj.pk).exists()

    def test_user_without_the_key_gets_403_and_nothing_changes(self, make_client):
        obj = self.factory(name="Untouched")
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

    @pytest.mark.parametrize("verb", ["view", "create", "edit", "delete"])
    def test_each_verb_needs_its_own_key(self, make_client, verb):
        client = make_client(UserFactory(permissions={f"{self.section}.{verb}": 1}))
        obj = self.factory()
        calls = {
            "view": lambda: client.get(self.detail(obj)),
            "create": lambda: client.post(self.url, self.create_payload(), format="json"),
            "edit": lambda: client.patch(self.detail(obj), {"notes": "edited"}, format="json"),
            "delete": lambda: client.delete(self.detail(obj)),
        }
        for other, call in calls.items():
            if other == verb:
                continue
            assert call().status_code == 403, other
        response = calls[verb]()
        assert response.status_code == 200
        if verb != "view":
            assert response.json()["status"] == "success", response.json()

    def test_available_actions_follow_the_callers_keys(self, make_client):
        self.factory()
        viewer = make_client(UserFactory(permissions={f"{self.section}.view": 1}))
        row = viewer.get(self.url).json()["rows"][0]
        assert row["available_actions"]["update"] is False
        assert row["available_actions"]["delete"] is False
        editor = make_client(UserFactory(permissions={f"{self.section}.view": 1, f"{self.section}.edit": 1,
                                                      f"{self.section}.delete": 1}))
        row = editor.get(self.url).json()["rows"][0]
        assert row["available_actions"]["update"] is True
        assert row["available_actions"]["delete"] is True

    # --- reads --------------------------------------------------------------------------------------------------

    def test_list_shape_total_and_ordering(self, token_client):
        first, second, third = self.factory(name="Bravo"), self.factory(name="alpha"), self.factory(name="Charlie")
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
        self.factory(), self.factory()
        response = token_client.get(self.url, {"sort": "name; DROP TABLE x", "order": "sideways"})
        assert response.status_code == 200 and response.json()["total"] == 2

    def test_search_matches_any_case_and_or_terms(self, token_client):
        self.factory(name="Northwind Alpha")
        self.factory(name="Contoso Beta")
        self.factory(name="Fabrikam")
        assert [r["name"] for r in token_client.get(self.url, {"search": "northWIND"}).json()["rows"]] == [
            "Northwind Alpha"]
        assert token_client.get(self.url, {"search": "alpha OR beta"}).json()["total"] == 2
        assert token_client.get(self.url, {"name": "fabrikam"}).json()["total"] == 1

    def test_retrieve_is_the_bare_record(self, token_client):
        obj = self.factory(name="Shown")
        body = token_client.get(self.detail(obj)).json()
        assert body["id"] == obj.pk and body["name"] == "Shown"
        assert "status" not in body

    @pytest.mark.parametrize("bad_id", ["999999", "abc", "99999999999999999999999"])
    def test_unknown_id_is_not_found(self, token_client, settings, bad_id):
        for method in ("get", "patch", "put", "delete"):
            response = getattr(token_client, method)(self.detail(bad_id), {"name": "x"}, format="json")
            assert response.status_code == 200
            assert response.json()["message"] == self.not_found_message
        settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
        assert token_client.get(self.detail(bad_id)).status_code == 404

    def test_list_runs_a_constant_number_of_queries(self, token_client, django_assert_max_num_queries):
        for _ in range(5):
            self.make_in_use(self.factory())
        with CaptureQueriesContext(connection) as small:
            assert token_client.get(self.url).json()["total"] == self.alive().count() >= 5
        for _ in range(55):
            self.make_in_use(self.factory())
        with django_assert_max_num_queries(len(small.captured_queries)):
            body = token_client.get(self.url, {"limit": 100}).json()
        assert body["total"] == self.alive().count() >= 60 and len(body["rows"]) >= 60

    # --- writes -------------------------------------------------------------------------------------------------

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

    @pytest.mark.parametrize("method", ["put", "patch"])
    def test_update_is_partial_for_put_and_patch(self, token_client, method):
        obj = self.factory(name="Before", notes="keep me")
        response = getattr(token_client, method)(self.detail(obj), {"name": "After"}, format="json")
        body = response.json()
        assert body["status"] == "success" and body["messages"] == self.updated_message, body
        assert body["payload"]["name"] == "After" and body["payload"]["id"] == obj.pk
        obj.refresh_from_db()
        assert obj.name == "After" and obj.notes == "keep me"
        log = ActionLog.objects.get(item_type=self.item_type, item_id=obj.pk, action_type="update")
        assert log.log_meta == {"name": {"old": "Before", "new": "After"}}

    def test_update_may_keep_its_own_name_in_another_case(self, token_client):
        obj = self.factory(name="Same")
        response = token_client.patch(self.detail(obj), {"name": "SAME"}, format="json")
        assert response.json()["status"] == "success", response.json()

    def test_delete(self, token_client):
        obj = self.factory()
        body = token_client.delete(self.detail(obj)).json()
        assert body == {"status": "success", "messages": self.delete_message, "payload": None}
        assert not self.alive().filter(pk=obj.pk).exists()
        assert self.model.objects.filter(pk=obj.pk).exists() == self.soft_deletes
        assert token_client.get(self.detail(obj)).json()["message"] == self.not_found_message

    def test_delete_guard_refuses_an_item_in_use(self, token_client, settings):
        obj = self.factory()
        self.make_in_use(obj)
        row = token_client.get(self.detail(obj)).json()
        assert row["available_actions"]["delete"] is False
        response = token_client.delete(self.detail(obj))
        assert response.status_code == 200
        assert response.json() == {"status": "error", "message": self.guard_message,
                                   "messages": self.guard_message, "payload": None}
        settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
        assert token_client.delete(self.detail(obj)).status_code == 409
        assert self.alive().filter(pk=obj.pk).exists()

    # --- validation ---------------------------------------------------------------------------------------------

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
        obj = self.factory(name="Kept")
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
        other = self.factory(name="Other one", **self.clash_kwargs)
        assert error_of(token_client.patch(self.detail(other), {"name": payload["name"].lower()}, format="json"),
                        "name")
        settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
        assert token_client.post(self.url, {**payload, "name": payload["name"].upper()},
                                 format="json").status_code == 422

    def test_body_that_is_not_an_object_is_refused(self, token_client):
        count = self.model.objects.count()
        response = token_client.post(self.url, ["name"], format="json")
        assert error_of(response)
        assert self.model.objects.count() == count
