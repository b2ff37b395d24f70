"""Unique custom values are no oracle across companies (issue 25, item 5; docs/decisions.md, docs/custom-fields.md):
with company separation on, a unique field's value is unique among the live assets of the asset's company (assets
without a company form one group of their own), so a write of another company never learns what a company holds,
encrypted values included; with separation off it is unique among all live assets, as before. The API's create,
PATCH and bulk writes, the admin's import preview (rate-limited and logged) and a company change keep that rule."""

from __future__ import annotations

import csv
import io
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections

from inventory import custom_values
from inventory.custom_values.crypto import decrypt
from inventory.models import Asset, AssetFieldValue
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    CustomFieldFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.custom_fields import fieldset_of

URL = "/api/v1/hardware"
IMEI = "35-209900-176148-1"
SECRET = "BitLocker 1234-5678"
pytestmark = pytest.mark.django_db


@pytest.fixture
def fields():
    return {"imei": CustomFieldFactory(name="IMEI", is_unique=True),
            "key": CustomFieldFactory(name="Recovery Key", field_encrypted=True, is_unique=True)}


@pytest.fixture
def model(fields):
    return AssetModelFactory(name="Phone", model_number="P-1", fieldset=fieldset_of(*fields.values()))


def store(asset, fields, **values):
    custom_values.write_values(asset, custom_values.CustomInput(
        values={fields[name].pk: (fields[name], text) for name, text in values.items()}))


@pytest.fixture
def held(fields, model, company):
    """Company A's asset holding the IMEI and the secret."""
    asset = AssetFactory(model=model, company=company, asset_tag="A-1")
    store(asset, fields, imei=IMEI, key=SECRET)
    return asset


@pytest.fixture
def b_admin(other_company):
    return UserFactory(username="b-admin", company=other_company,
                       permissions={"admin": 1, custom_values.ENCRYPTED_PERMISSION: 1})


def col(field) -> str:
    return field.db_column_name


def create(client, model, tag, **extra):
    body = {"asset_tag": tag, "model_id": model.pk, "status_id": StatusLabelFactory().pk, **extra}
    return client.post(URL, body, format="json")


def values_of(asset_tag: str, field) -> str | None:
    row = AssetFieldValue.objects.filter(asset__asset_tag=asset_tag, field=field).first()
    if row is None:
        return None
    return decrypt(row.value) if field.field_encrypted else row.value


class TestSeparationOn:
    def test_create_in_another_company_does_not_reveal_the_value(self, fmcs_on, fields, model, held, b_admin,
                                                                 make_client):
        client = make_client(b_admin)
        response = create(client, model, "B-1", **{col(fields["imei"]): IMEI.upper(), col(fields["key"]): SECRET})

        body = response.json()
        assert response.status_code == 200 and body["status"] == "success", body
        asset = Asset.objects.get(asset_tag="B-1")
        assert asset.company_id == b_admin.company_id
        assert values_of("B-1", fields["imei"]) == IMEI.upper() and values_of("B-1", fields["key"]) == SECRET
        assert values_of("A-1", fields["imei"]) == IMEI  # company A's value untouched

    def test_patch_and_bulk_in_another_company_do_not_reveal_the_value(self, fmcs_on, fields, model, held,
                                                                       b_admin, make_client):
        mine = [AssetFactory(model=model, company=b_admin.company, asset_tag=f"B-{n}") for n in (1, 2)]
        client = make_client(b_admin)

        answer = client.patch(f"{URL}/{mine[0].pk}", {col(fields["imei"]): IMEI}, format="json").json()
        assert answer["status"] == "success", answer
        assert values_of("B-1", fields["imei"]) == IMEI

        answer = client.patch(f"{URL}/bulk", {"ids": [mine[1].pk], col(fields["key"]): SECRET}, format="json").json()
        assert answer["status"] == "success", answer
        assert values_of("B-2", fields["key"]) == SECRET

    def test_bulk_judges_unique_values_per_company_in_one_batch(self, fmcs_on, fields, model, held, b_admin,
                                                                make_client):
        """The set-based bulk path (issue 25 item 23) keeps the per-company rule: company A's value is free in B,
        the batch's first asset of B takes it and the next one of the same batch is refused, and a value another
        asset of B holds is refused; the values are stored with B's scope."""
        mine = [AssetFactory(model=model, company=b_admin.company, asset_tag=f"B-{n}") for n in (1, 2, 3)]
        client = make_client(b_admin)

        answer = client.patch(f"{URL}/bulk", {"ids": [mine[0].pk, mine[1].pk], col(fields["imei"]): IMEI},
                              format="json").json()
        assert answer["status"] == "partial", answer
        assert values_of("B-1", fields["imei"]) == IMEI and values_of("B-2", fields["imei"]) is None
        assert set(AssetFieldValue.objects.filter(field=fields["imei"], unique_key__isnull=False)
                   .values_list("asset__asset_tag", "unique_scope")) == {("A-1", held.company_id),
                                                                         ("B-1", b_admin.company_id)}

        answer = client.patch(f"{URL}/bulk", {"ids": [mine[2].pk], col(fields["imei"]): IMEI}, format="json").json()
        assert answer["status"] == "error", answer
        assert values_of("B-3", fields["imei"]) is None

    def test_the_value_stays_unique_within_the_company(self, fmcs_on, fields, model, held, b_admin, make_client,
                                                       company):
        client = make_client(b_admin)
        assert create(client, model, "B-1", **{col(fields["imei"]): IMEI}).json()["status"] == "success"

        again = create(client, model, "B-2", **{col(fields["imei"]): f"  {IMEI.lower()} "}).json()
        assert again["status"] == "error"
        assert again["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}
        assert not Asset.objects.filter(asset_tag="B-2").exists()

        a_admin = UserFactory(company=company, permissions={"admin": 1, custom_values.ENCRYPTED_PERMISSION: 1})
        refused = create(make_client(a_admin), model, "A-2", **{col(fields["key"]): SECRET}).json()
        assert refused["messages"] == {col(fields["key"]): ["The Recovery Key must be unique."]}
        assert not Asset.objects.filter(asset_tag="A-2").exists()

    def test_moving_an_asset_into_a_company_that_holds_its_value_is_refused(self, fmcs_on, fields, model, held,
                                                                           company, other_company, token_client,
                                                                           make_client):
        mover = AssetFactory(model=model, company=other_company, asset_tag="B-1")
        store(mover, fields, imei=IMEI)

        answer = token_client.patch(f"{URL}/{mover.pk}", {"company_id": company.pk}, format="json").json()
        assert answer["status"] == "error"
        assert answer["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}
        assert Asset.objects.get(pk=mover.pk).company_id == other_company.pk

        third = CompanyFactory(name="Company C")
        answer = token_client.patch(f"{URL}/{mover.pk}", {"company_id": third.pk}, format="json").json()
        assert answer["status"] == "success", answer
        c_admin = UserFactory(company=third, permissions={"admin": 1})
        refused = create(make_client(c_admin), model, "C-2", **{col(fields["imei"]): IMEI}).json()
        assert refused["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}  # the value moved along

    def test_restore_checks_the_assets_own_company(self, fmcs_on, fields, model, held, other_company,
                                                   token_client):
        gone = AssetFactory(model=model, company=other_company, asset_tag="B-1")
        store(gone, fields, imei=IMEI)
        assert token_client.delete(f"{URL}/{gone.pk}").json()["status"] == "success"
        answer = token_client.post(f"{URL}/{gone.pk}/restore").json()
        assert answer["status"] == "success", answer
        assert Asset.objects.get(pk=gone.pk).deleted_at is None


class TestSeparationOff:
    def test_the_value_is_unique_across_companies(self, fields, model, held, b_admin, make_client):
        answer = create(make_client(b_admin), model, "B-1", **{col(fields["imei"]): IMEI}).json()
        assert answer["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}
        assert not Asset.objects.filter(asset_tag="B-1").exists()

    def test_moving_an_asset_keeps_the_rule(self, fields, model, held, other_company, token_client):
        other = AssetFactory(model=model, company=other_company, asset_tag="B-1")
        answer = token_client.patch(f"{URL}/{other.pk}", {col(fields["imei"]): IMEI}, format="json").json()
        assert answer["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}
        assert values_of("B-1", fields["imei"]) is None


# --- the admin's import preview ---------------------------------------------------------------------------------


def csv_upload(rows) -> SimpleUploadedFile:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["Asset Tag", "Model name", "Model Number", "IMEI"])
    writer.writerows(rows)
    return SimpleUploadedFile("assets.csv", buffer.getvalue().encode(), content_type="text/csv")


@pytest.mark.urls("tests.inventory.transfer.csv_admin_site")
class TestImportPreview:
    PREVIEW = "/openadmin/inventory/asset/import/"

    @pytest.fixture(autouse=True)
    def _import_dir(self, settings, tmp_path):
        settings.CSV_IMPORT_DIR = str(tmp_path / "imports")

    def test_preview_of_another_company_does_not_reveal_the_value(self, fmcs_on, model, held, b_admin, client,
                                                                   caplog):
        client.force_login(b_admin)
        with caplog.at_level(logging.INFO, logger="inventory.admin_csv"):
            response = client.post(self.PREVIEW, {"file": csv_upload([["B-1", "Phone", "P-1", IMEI]])})

        assert response.status_code == 200
        assert "1 rows: 1 would be created, 0 would be updated, 0 skipped, 0 failed." in response.content.decode()
        assert "must be unique" not in response.content.decode()
        assert not Asset.objects.filter(asset_tag="B-1").exists()
        logged = [record for record in caplog.records if record.name == "inventory.admin_csv"]
        assert len(logged) == 1
        message = logged[0].getMessage()
        assert "b-admin" in message and "asset" in message and "preview" in message and "1 rows" in message

    def test_preview_within_the_company_still_reports_a_taken_value(self, fmcs_on, model, held, company, client):
        a_admin = UserFactory(company=company, permissions={"admin": 1})
        client.force_login(a_admin)
        response = client.post(self.PREVIEW, {"file": csv_upload([["A-2", "Phone", "P-1", IMEI]])})
        assert "line 2, column IMEI: The IMEI must be unique." in response.content.decode()

    def test_previews_are_rate_limited_per_user(self, fmcs_on, model, b_admin, client, settings, caplog):
        settings.CSV_IMPORT_PREVIEW_RATE = "2/h"
        client.force_login(b_admin)
        for number in (1, 2):
            response = client.post(self.PREVIEW, {"file": csv_upload([[f"B-{number}", "Phone", "P-1", "1"]])})
            assert response.status_code == 200 and "would be created" in response.content.decode()

        with caplog.at_level(logging.WARNING, logger="inventory.admin_csv"):
            response = client.post(self.PREVIEW, {"file": csv_upload([["B-3", "Phone", "P-1", "1"]])})

        assert response.status_code == 429
        body = response.content.decode()
        assert "Too many import previews" in body and "would be created" not in body
        assert any("b-admin" in record.getMessage() and "rate" in record.getMessage() for record in caplog.records)
        assert not Asset.objects.exists()

        other = UserFactory(username="other-b", company=b_admin.company, permissions={"admin": 1})
        client.force_login(other)  # the limit is per user
        response = client.post(self.PREVIEW, {"file": csv_upload([["B-4", "Phone", "P-1", "1"]])})
        assert response.status_code == 200


# --- races ----------------------------------------------------------------------------------------------------


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a real race needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_in_different_companies_with_separation_off_exactly_one_wins(fields, model, make_client):
    superuser = UserFactory(superuser=True)
    assets = [AssetFactory(model=model, company=CompanyFactory()) for _ in range(6)]

    def write(asset):
        try:
            client = make_client(superuser)
            return client.patch(f"{URL}/{asset.pk}", {col(fields["imei"]): IMEI}, format="json").json()["status"]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(write, assets))
    assert sorted(outcomes) == ["error"] * 5 + ["success"]
    assert AssetFieldValue.objects.filter(field=fields["imei"]).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a real race needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_in_one_company_with_separation_on_exactly_one_wins(fields, model, make_client):
    from assetsvc.models import SiteSettings

    site = SiteSettings.load()
    site.full_multiple_companies_support = True
    site.save()
    company = CompanyFactory()
    superuser = UserFactory(superuser=True)
    assets = [AssetFactory(model=model, company=company) for _ in range(6)]
    others = [AssetFactory(model=model, company=CompanyFactory()) for _ in range(2)]

    def write(asset):
        try:
            client = make_client(superuser)
            return client.patch(f"{URL}/{asset.pk}", {col(fields["imei"]): IMEI}, format="json").json()["status"]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(write, assets + others))
    assert sorted(outcomes[:6]) == ["error"] * 5 + ["success"]
    assert outcomes[6:] == ["success", "success"]  # one per other company
    assert AssetFieldValue.objects.filter(field=fields["imei"]).count() == 3


def test_the_admin_form_follows_the_company_rule(fmcs_on, superuser, fields, model, held, company, other_company,
                                                 client):
    from tests.ops.test_admin_services import form_data, url

    client.force_login(superuser)
    column = col(fields["imei"])
    theirs, mine = (AssetFactory(model=model, company=other_company, asset_tag="B-1"),
                    AssetFactory(model=model, company=company, asset_tag="A-2"))
    page = url(Asset, "change", theirs.pk)
    response = client.post(page, form_data(client, page, **{column: IMEI}))
    assert response.status_code == 302  # another company: accepted
    assert values_of("B-1", fields["imei"]) == IMEI

    page = url(Asset, "change", mine.pk)
    response = client.post(page, form_data(client, page, **{column: f" {IMEI} "}))
    assert response.status_code == 200  # the same company: the form's error, nothing written
    assert response.context["adminform"].form.errors[column] == ["The IMEI must be unique."]
    assert values_of("A-2", fields["imei"]) is None
