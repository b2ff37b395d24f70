"""``/companies``: the specification's Company resource, reference §5, API-CONTRACT.md §3 and §7."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from activity.models import ActionLog
from companies.api.views import CompanyViewSet
from companies.models import Company
from inventory.choices import StatusType
from tests.api_mixins import CrudAPITests, NameRulesTests, PermissionTests, QueryBudgetTests, SelectListTests
from tests.factories import (
    AssetFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

COUNT_KEYS = ("assets_count", "licenses_count", "accessories_count", "consumables_count", "components_count",
              "users_count")
NOT_EMPTY = (
    "This company is currently associated with {what} and cannot be deleted. Please update your {which} to no longer "
    "reference this company and try again."
)


class TestCompaniesAPI(CrudAPITests, NameRulesTests, SelectListTests, PermissionTests, QueryBudgetTests):
    """The shared checks (``tests/api_mixins.py``); the company-specific rules follow below."""

    url = "/api/v1/companies"
    viewset = CompanyViewSet
    section = "companies"
    model = Company
    factory = CompanyFactory
    item_type = "company"
    not_found_message = "Company not found"
    created_message = "Company created successfully."
    updated_message = "Company updated successfully."
    delete_message = "The Company was deleted successfully."
    record_keys = {"phone", "fax", "email", "notes", "tag_color", "created_by", *COUNT_KEYS}

    def create_payload(self):
        return {"name": "Acme Corporation", "email": "it@acme.example"}

    def make_listed(self) -> None:
        company = self.make()
        AssetFactory(company=company)
        UserFactory(company=company)


@pytest.fixture
def http_mode(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}


def company_user(make_client, *keys, company=None):
    return make_client(UserFactory(company=company, permissions={k: 1 for k in keys}))


class TestRecord:
    def test_list_record_shape_and_real_counts(self, token_client, company, other_company):
        AssetFactory.create_batch(2, company=company)
        AssetFactory(company=company, status=StatusLabelFactory(type=StatusType.ARCHIVED))  # not listed
        AssetFactory(company=company, deleted_at="2026-01-01T00:00:00Z")  # deleted: not counted
        UserFactory.create_batch(3, company=company)
        UserFactory(company=company, deleted_at="2026-01-01T00:00:00Z")
        r = token_client.get("/api/v1/companies", {"sort": "name", "order": "asc"})
        assert r.status_code == 200
        body = r.json()
        assert body["total"] == 2
        row = body["rows"][0]
        assert row["id"] == company.pk and row["name"] == "Company A"
        assert {k: row[k] for k in COUNT_KEYS} == {
            "assets_count": 2, "licenses_count": 0, "accessories_count": 0, "consumables_count": 0,
            "components_count": 0, "users_count": 3,
        }
        for key in ("phone", "fax", "email", "notes", "tag_color", "created_by", "created_at", "updated_at",
                    "available_actions"):
            assert key in row
        assert row["created_at"].endswith("Z") and "T" in row["created_at"]
        assert row["available_actions"] == {"update": True, "delete": False}
        assert body["rows"][1]["available_actions"] == {"update": True, "delete": True}

    def test_archived_assets_counted_when_the_site_shows_them(self, token_client, company, site_settings):
        site_settings.show_archived_in_list = True
        site_settings.save()
        AssetFactory(company=company, status=StatusLabelFactory(type=StatusType.ARCHIVED))
        assert token_client.get(f"/api/v1/companies/{company.pk}").json()["assets_count"] == 1

    def test_single_read_has_real_counts(self, token_client, company):
        AssetFactory(company=company)
        UserFactory(company=company)
        r = token_client.get(f"/api/v1/companies/{company.pk}")
        assert r.status_code == 200
        body = r.json()
        assert "status" not in body  # bare record
        assert body["assets_count"] == 1 and body["users_count"] == 1

    def test_list_runs_constant_queries(self, token_client, django_assert_max_num_queries):
        for _ in range(5):
            company = CompanyFactory()
            AssetFactory(company=company)
            UserFactory(company=company)
        with django_assert_max_num_queries(12) as small:
            assert token_client.get("/api/v1/companies").json()["total"] == 5
        for _ in range(50):
            company = CompanyFactory()
            AssetFactory(company=company)
            UserFactory(company=company)
        with django_assert_max_num_queries(len(small.captured_queries)):
            assert len(token_client.get("/api/v1/companies", {"limit": 100}).json()["rows"]) == 55

    def test_unknown_id_is_not_found(self, token_client):
        for bad in ("999999", "abc", "1.5", "-1", "99999999999999999999999"):
            r = token_client.get(f"/api/v1/companies/{bad}")
            assert r.status_code == 200
            assert r.json() == {"status": "error", "message": "Company not found", "messages": "Company not found",
                                "payload": None}

    def test_unknown_id_is_404_in_http_mode(self, token_client, http_mode):
        assert token_client.get("/api/v1/companies/999999").status_code == 404


class TestListParameters:
    def test_search_filters_sort_and_paging(self, token_client):
        CompanyFactory(name="Alpha Ltd", email="info@alpha.test")
        CompanyFactory(name="Beta GmbH", phone="+49 30 1234567")
        CompanyFactory(name="Gamma Inc")
        r = token_client.get("/api/v1/companies", {"search": "alpha OR 1234567", "sort": "name", "order": "asc"})
        assert [row["name"] for row in r.json()["rows"]] == ["Alpha Ltd", "Beta GmbH"]
        r = token_client.get("/api/v1/companies", {"name": "gamma inc"})
        assert [row["name"] for row in r.json()["rows"]] == ["Gamma Inc"]
        r = token_client.get("/api/v1/companies", {"sort": "name", "order": "desc", "limit": 1, "offset": 1})
        assert r.json()["total"] == 3 and [row["name"] for row in r.json()["rows"]] == ["Beta GmbH"]

    def test_sort_by_count_and_injection_falls_back(self, token_client):
        busy = CompanyFactory(name="Busy")
        UserFactory.create_batch(2, company=busy)
        CompanyFactory(name="Quiet")
        r = token_client.get("/api/v1/companies", {"sort": "users_count", "order": "desc"})
        assert r.json()["rows"][0]["name"] == "Busy"
        r = token_client.get("/api/v1/companies", {"sort": "name; DROP TABLE companies_company"})
        assert r.status_code == 200 and r.json()["total"] == 2


class TestCreate:
    def test_create_answers_the_record(self, token_client, superuser):
        body = {"name": "Acme", "phone": "+1 555 0100", "fax": "+1 555 0101", "email": "it@acme.test",
                "notes": "Head office", "tag_color": "#1a2b3c"}
        r = token_client.post("/api/v1/companies", body, format="json")
        assert r.status_code == 200
        data = r.json()
        assert data["status"] == "success" and data["messages"] == "Company created successfully."
        record = data["payload"]
        assert {k: record[k] for k in body} == body
        assert record["created_by"] == {"id": superuser.pk, "name": superuser.full_name}
        assert all(record[k] == 0 for k in COUNT_KEYS)
        company = Company.objects.get(pk=record["id"])
        assert company.created_by == superuser
        assert ActionLog.objects.filter(item_type="company", item_id=company.pk, action_type="create").count() == 1

    def test_query_string_input_and_string_numbers(self, token_client):
        r = token_client.post("/api/v1/companies?name=FromQuery&phone=5550100123")
        assert r.json()["status"] == "success"
        assert Company.objects.get(name="FromQuery").phone == "5550100123"

    @pytest.mark.parametrize(
        ("body", "field", "message"),
        [
            ({}, "name", "The name field is required."),
            ({"name": ""}, "name", "The name field is required."),
            ({"name": None}, "name", "The name field is required."),
            ({"name": "x" * 256}, "name", "The name may not be greater than 255 characters."),
            ({"name": ["a"]}, "name", "The name must be a string."),
            ({"name": "Ok", "phone": "123456"}, "phone", "The phone must be at least 7 characters."),
            ({"name": "Ok", "phone": "1" * 36}, "phone", "The phone may not be greater than 35 characters."),
            ({"name": "Ok", "fax": "123456"}, "fax", "The fax must be at least 7 characters."),
            ({"name": "Ok", "fax": "1" * 36}, "fax", "The fax may not be greater than 35 characters."),
            ({"name": "Ok", "email": "not-an-email"}, "email", "The email must be a valid email address."),
            ({"name": "Ok", "email": "a" * 140 + "@example.com"}, "email",
             "The email may not be greater than 150 characters."),
            ({"name": "Ok", "tag_color": "red"}, "tag_color", "The tag color must be a hex colour like #1a2b3c."),
            ({"name": "Bad\x00name"}, "name", None),
        ],
    )
    def test_invalid_input_changes_nothing(self, token_client, body, field, message):
        r = token_client.post("/api/v1/companies", body, format="json")
        assert r.status_code == 200
        data = r.json()
        assert data["status"] == "error" and data["payload"] is None
        assert field in data["messages"]
        if message:
            assert data["message"] == message and data["messages"][field] == [message]
        assert Company.objects.count() == 0

    def test_boundaries_are_accepted(self, token_client):
        body = {"name": "x" * 255, "phone": "1" * 7, "fax": "2" * 35, "email": "a" * 138 + "@example.com"}
        r = token_client.post("/api/v1/companies", body, format="json")
        assert r.json()["status"] == "success", r.json()

    def test_duplicate_name_in_another_letter_case(self, token_client, company, http_mode):
        r = token_client.post("/api/v1/companies", {"name": "COMPANY a"}, format="json")
        assert r.status_code == 422
        assert r.json()["messages"] == {"name": ["The name has already been taken."]}
        assert Company.objects.count() == 1

    def test_needs_permission(self, make_client):
        client = company_user(make_client, "companies.view")
        r = client.post("/api/v1/companies", {"name": "Nope"}, format="json")
        assert r.status_code == 403 and r.json()["message"] == "Insufficient permissions."
        assert not Company.objects.filter(name="Nope").exists()


class TestUpdate:
    def test_partial_update_with_patch_and_put(self, token_client, company):
        company.phone = "5550100123"
        company.save()
        r = token_client.patch(f"/api/v1/companies/{company.pk}", {"email": "x@a.test"}, format="json")
        assert r.json()["status"] == "success" and r.json()["messages"] == "Company updated successfully."
        r = token_client.put(f"/api/v1/companies/{company.pk}", {"name": "Renamed"}, format="json")
        assert r.json()["payload"]["name"] == "Renamed"
        company.refresh_from_db()
        assert (company.name, company.email, company.phone) == ("Renamed", "x@a.test", "5550100123")
        log = ActionLog.objects.filter(item_type="company", action_type="update").order_by("id").last()
        assert log.log_meta == {"name": {"old": "Company A", "new": "Renamed"}}

    def test_keeping_its_own_name_in_another_case_is_fine(self, token_client, company):
        r = token_client.patch(f"/api/v1/companies/{company.pk}", {"name": "COMPANY A"}, format="json")
        assert r.json()["status"] == "success"

    def test_invalid_update_changes_nothing(self, token_client, company, other_company):
        for body in ({"name": ""}, {"name": "company b"}, {"phone": "123456"}, {"email": "nope"},
                     {"name": "y" * 256}):
            r = token_client.patch(f"/api/v1/companies/{company.pk}", body, format="json")
            assert r.json()["status"] == "error", body
        company.refresh_from_db()
        assert company.name == "Company A" and company.phone is None and company.email is None

    def test_nulls_clear_optional_fields(self, token_client, company):
        company.phone = "5550100123"
        company.notes = "n"
        company.save()
        r = token_client.patch(f"/api/v1/companies/{company.pk}", {"phone": None, "notes": None}, format="json")
        assert r.json()["payload"]["phone"] is None
        company.refresh_from_db()
        assert company.phone is None and company.notes == ""

    def test_needs_permission(self, make_client, company):
        client = company_user(make_client, "companies.view")
        assert client.patch(f"/api/v1/companies/{company.pk}", {"name": "X"}, format="json").status_code == 403


class TestDelete:
    def test_delete_empty_company(self, token_client, company):
        r = token_client.delete(f"/api/v1/companies/{company.pk}")
        assert r.json() == {"status": "success", "messages": "The Company was deleted successfully.",
                            "payload": None}
        assert not Company.objects.filter(pk=company.pk).exists()
        assert ActionLog.objects.filter(item_type="company", item_id=company.pk, action_type="delete").exists()

    @pytest.mark.parametrize("holder, what, which", [
        ("user", "1 user", "users"), ("asset", "1 asset", "assets"), ("archived_asset", "1 asset", "assets"),
        ("location", "1 location", "locations"),
    ])
    def test_non_empty_company_is_refused_naming_what_blocks(self, token_client, company, holder, what, which,
                                                             http_mode):
        if holder == "user":
            UserFactory(company=company)
        elif holder == "asset":
            AssetFactory(company=company)
        elif holder == "archived_asset":
            AssetFactory(company=company, status=StatusLabelFactory(type=StatusType.ARCHIVED))
        else:
            LocationFactory(company=company)
        r = token_client.delete(f"/api/v1/companies/{company.pk}")
        assert r.status_code == 409
        message = NOT_EMPTY.format(what=what, which=which)
        assert r.json()["message"] == message and r.json()["messages"] == message
        assert Company.objects.filter(pk=company.pk).exists()

    def test_every_blocking_kind_is_named_with_its_count(self, token_client, company):
        UserFactory.create_batch(2, company=company)
        AssetFactory(company=company)
        body = token_client.delete(f"/api/v1/companies/{company.pk}").json()
        assert body["message"] == NOT_EMPTY.format(what="1 asset and 2 users", which="assets and users")
        # Issue 25 item 15: the specification says payload is null on errors; the counts are in the message.
        assert body["status"] == "error" and body["payload"] is None
        assert Company.objects.filter(pk=company.pk).exists()

    @pytest.mark.parametrize("holder", ["deleted_user", "deleted_asset"])
    def test_soft_deleted_rows_do_not_block_and_are_detached(self, token_client, company, holder):
        """Rule 9 counts what is not deleted (Snipe-IT's isDeletable); before, a company whose only asset was
        soft-deleted could never be deleted and the refusal spoke of "at least one model"."""
        if holder == "deleted_user":
            row = UserFactory(company=company, deleted_at="2026-01-01T00:00:00Z")
        else:
            row = AssetFactory(company=company, deleted_at="2026-01-01T00:00:00Z")
        body = token_client.delete(f"/api/v1/companies/{company.pk}").json()
        assert body["status"] == "success", body
        assert not Company.objects.filter(pk=company.pk).exists()
        row.refresh_from_db()
        assert row.company_id is None and row.deleted_at is not None
        log = ActionLog.objects.get(item_type="company", item_id=company.pk, action_type="delete")
        key = "users_count" if holder == "deleted_user" else "assets_count"
        assert log.log_meta["detached_deleted_rows"] == {key: 1}

    def test_non_empty_is_200_in_compat_mode(self, token_client, company):
        UserFactory(company=company)
        r = token_client.delete(f"/api/v1/companies/{company.pk}")
        assert r.status_code == 200 and r.json()["message"] == NOT_EMPTY.format(what="1 user", which="users")

    def test_needs_permission(self, make_client, company):
        client = company_user(make_client, "companies.view", "companies.edit")
        assert client.delete(f"/api/v1/companies/{company.pk}").status_code == 403
        assert Company.objects.filter(pk=company.pk).exists()

    def test_permission_checked_before_existence(self, make_client):
        client = company_user(make_client)
        assert client.get("/api/v1/companies/999999").status_code == 403
        assert client.get("/api/v1/companies").status_code == 403

    def test_anonymous_is_401(self, api_client, company):
        assert api_client.get("/api/v1/companies").status_code == 401


class TestSeparation:
    def test_company_user_sees_only_own_company(self, make_client, company, other_company, fmcs_on):
        client = company_user(make_client, "companies.view", "companies.edit", "companies.delete", company=company)
        r = client.get("/api/v1/companies")
        assert [row["id"] for row in r.json()["rows"]] == [company.pk] and r.json()["total"] == 1
        r = client.get(f"/api/v1/companies/{other_company.pk}")
        assert r.json()["message"] == "Company not found"
        r = client.patch(f"/api/v1/companies/{other_company.pk}", {"name": "Mine now"}, format="json")
        assert r.json()["message"] == "Company not found"
        r = client.delete(f"/api/v1/companies/{other_company.pk}")
        assert r.json()["message"] == "Company not found"
        other_company.refresh_from_db()
        assert other_company.name == "Company B"

    def test_without_separation_everyone_with_the_permission_sees_all(self, make_client, company, other_company):
        client = company_user(make_client, "companies.view", company=company)
        assert client.get("/api/v1/companies").json()["total"] == 2
        assert client.get(f"/api/v1/companies/{other_company.pk}").json()["id"] == other_company.pk


def test_the_switch_is_a_site_setting_effective_on_the_next_request(make_client, company, other_company):
    client = company_user(make_client, "companies.view", company=company)
    assert client.get("/api/v1/companies").json()["total"] == 2
    call_command("site_settings", "set", "full_multiple_companies_support", "true", stdout=io.StringIO())
    assert client.get("/api/v1/companies").json()["total"] == 1
    call_command("site_settings", "set", "full_multiple_companies_support", "off", stdout=io.StringIO())
    assert client.get("/api/v1/companies").json()["total"] == 2
