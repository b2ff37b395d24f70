"""``POST hardware/labels`` (label PDFs, issue 27) and ``GET labels``, ``GET labels/{name}`` (the templates): the PDF
opens, has one page per sheet (or per label on a tape), one QR image per asset, and prints only assets the caller may
see."""

from __future__ import annotations

import base64
import io
import math

import pytest
from django.utils import timezone
from pypdf import PdfReader

from inventory import labels
from tests.api_mixins import error_of, http_errors
from tests.factories import AssetFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware/labels"
SHEET_5520, SHEET_L7163, DYMO = r"Sheets\Avery\_5520_A", r"Sheets\Avery\L7163_A", r"Tapes\Dymo\LabelWriter_30252"


def pdf_of(response) -> PdfReader:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "success" and body["messages"] == "Labels were successfully generated.", body
    data = base64.b64decode(body["payload"]["pdf"])
    assert data.startswith(b"%PDF-")
    return PdfReader(io.BytesIO(data))


def page_text(reader: PdfReader) -> str:
    return "\n".join(page.extract_text() for page in reader.pages)


@pytest.mark.parametrize("template,count,pages,size", [
    (SHEET_5520, 31, 2, (612, 792)),  # Letter, 30 a sheet
    (SHEET_L7163, 15, 2, (595.28, 841.89)),  # A4, 14 a sheet
    (DYMO, 3, 3, (273.6, 82.8)),  # one label a page, 3.8 x 1.15 in
])
def test_pages_and_one_qr_code_per_asset(token_client, template, count, pages, size):
    assets = AssetFactory.create_batch(count)
    response = token_client.post(URL, {"asset_tags": [a.asset_tag for a in assets], "template": template},
                                 format="json")
    reader = pdf_of(response)
    assert len(reader.pages) == pages
    assert [float(v) for v in reader.pages[0].mediabox[2:]] == pytest.approx(size, abs=0.01)
    per_page = labels.LABEL_TEMPLATES[template].per_page
    assert [len(page.images) for page in reader.pages] == [
        min(per_page, count - n * per_page) for n in range(math.ceil(count / per_page))]
    text = page_text(reader)
    for asset in assets:
        assert text.count(asset.asset_tag) == 1


def test_default_template_fields_and_ids(token_client):
    first = AssetFactory(asset_tag="LBL-1", name="Front desk laptop", serial="SER-123")
    second = AssetFactory(asset_tag="LBL-2")
    # asset_ids (an extension), in the order asked, each asset once
    reader = pdf_of(token_client.post(URL, {"asset_ids": [second.pk, first.pk, second.pk]}, format="json"))
    assert len(reader.pages) == 1 and len(reader.pages[0].images) == 2
    assert reader.pages[0].mediabox[2:] == [612, 792]  # the first template: Avery 5520 (Letter)
    text = page_text(reader)
    assert "Front desk laptop" in text and "SER-123" not in text  # default fields: tag and name
    assert text.index("LBL-2") < text.index("LBL-1")
    reader = pdf_of(token_client.post(URL, {"asset_tags": ["lbl-1"], "fields": ["serial", "model"]}, format="json"))
    text = page_text(reader)
    assert "SER-123" in text and first.model.name in text and "LBL-1" not in text


def test_raw_pdf_with_accept_or_format(token_client, make_client, superuser):
    asset = AssetFactory()
    response = token_client.post(f"{URL}?format=pdf", {"asset_tags": [asset.asset_tag]}, format="json")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment;")
    assert len(PdfReader(io.BytesIO(response.content)).pages) == 1
    client = make_client(superuser)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {client.token}", HTTP_ACCEPT="application/pdf")
    response = client.post(URL, {"asset_tags": [asset.asset_tag]}, format="json")
    assert response["Content-Type"] == "application/pdf" and response.content.startswith(b"%PDF-")


def test_no_assets_and_bad_input(token_client, settings):
    for body in ({}, {"asset_tags": []}, {"asset_tags": ""}):
        assert error_of(token_client.post(URL, body, format="json"), "asset_tags") == ["No assets selected."]
    asset = AssetFactory()
    assert error_of(token_client.post(URL, {"asset_tags": [asset.asset_tag], "template": "Nope"}, format="json"),
                    "template")
    assert error_of(token_client.post(URL, {"asset_tags": [asset.asset_tag], "fields": ["purchase_cost"]},
                                      format="json"), "fields.0")
    assert error_of(token_client.post(URL, {"asset_ids": ["x"]}, format="json"), "asset_ids.0")
    http_errors(settings)
    assert token_client.post(URL, {}, format="json").status_code == 422


def test_unknown_tags_are_not_found(token_client, settings):
    asset = AssetFactory(asset_tag="HERE-1")
    AssetFactory(asset_tag="GONE-1", deleted_at=timezone.now())  # deleted: not printed
    response = token_client.post(URL, {"asset_tags": [asset.asset_tag, "NOPE-1", "GONE-1"]}, format="json")
    body = response.json()
    assert body["status"] == "error" and body["message"] == "Asset does not exist." and body["payload"] is None
    assert body["messages"] == {"asset_tags": ["Asset does not exist. Not found: NOPE-1, GONE-1"]}
    http_errors(settings)
    assert token_client.post(URL, {"asset_ids": [999_999]}, format="json").status_code == 404


def test_another_companys_asset_is_not_found_and_never_printed(make_client, fmcs_on, company, other_company):
    mine = AssetFactory(company=company, asset_tag="MINE-1")
    theirs = AssetFactory(company=other_company, asset_tag="THEIRS-1")
    client = make_client(UserFactory(company=company, permissions={"assets.view": 1}))
    response = client.post(URL, {"asset_tags": ["MINE-1", "THEIRS-1"]}, format="json")
    body = response.json()
    assert body["status"] == "error" and body["messages"] == {
        "asset_tags": ["Asset does not exist. Not found: THEIRS-1"]}
    assert client.post(URL, {"asset_ids": [theirs.pk]}, format="json").json()["message"] == "Asset does not exist."
    reader = pdf_of(client.post(URL, {"asset_tags": ["MINE-1"]}, format="json"))
    assert "THEIRS-1" not in page_text(reader) and len(reader.pages[0].images) == 1
    assert mine.asset_tag in page_text(reader)


def test_needs_a_token_and_assets_view(api_client, make_client):
    asset = AssetFactory()
    body = {"asset_tags": [asset.asset_tag]}
    for path in (URL, "/api/v1/labels", f"/api/v1/labels/{SHEET_5520.replace(chr(92), '/')}"):
        method = api_client.post if path == URL else api_client.get
        assert method(path, body, format="json").status_code == 401
    outsider = make_client(UserFactory(permissions={"users.view": 1}))
    assert outsider.post(URL, body, format="json").status_code == 403
    assert outsider.get("/api/v1/labels").status_code == 403
    viewer = make_client(UserFactory(permissions={"assets.view": 1}))
    assert viewer.post(URL, body, format="json").json()["status"] == "success"
    assert viewer.get("/api/v1/labels").json()["total"] == len(labels.LABEL_TEMPLATES)


def test_label_templates_list_and_detail(token_client, settings):
    listed = token_client.get("/api/v1/labels").json()
    assert listed["total"] == 3 and [row["name"] for row in listed["rows"]] == [SHEET_5520, SHEET_L7163, DYMO]
    sheet = token_client.get("/api/v1/labels/Sheets/Avery/L7163_A").json()
    assert sheet == listed["rows"][1]
    assert sheet["unit"] == "mm" and sheet["width"] == "210.00" and sheet["height"] == "297.00"
    assert sheet["margin_left"] == pytest.approx(13.25 / 72 * 25.4, abs=1e-3)
    assert sheet["sheet_info"]["labels_per_page"] == 14
    assert sheet["sheet_info"]["label_width"] == pytest.approx(280.8 / 72 * 25.4, abs=1e-3)
    assert sheet["rectanglesheet_info"] == {"columns": 2, "rows": 7, "column_spacing": pytest.approx(2.54, abs=1e-3),
                                            "row_spacing": 0.0}
    assert set(sheet) >= {"support_asset_tag", "support_1d_barcode", "support_2d_barcode", "support_fields",
                          "support_logo", "support_title", "margin_top", "margin_bottom", "margin_right"}
    letter = token_client.get("/api/v1/labels/Sheets/Avery/_5520_A").json()
    assert letter["unit"] == "in" and letter["width"] == "8.50" and letter["sheet_info"]["labels_per_page"] == 30
    tape = token_client.get("/api/v1/labels/Tapes/Dymo/LabelWriter_30252").json()
    assert "sheet_info" not in tape and tape["width"] == "96.52"
    searched = token_client.get("/api/v1/labels?search=avery&limit=1").json()
    assert searched["total"] == 2 and [row["name"] for row in searched["rows"]] == [SHEET_5520]
    assert token_client.get("/api/v1/labels?offset=2").json()["rows"][0]["name"] == DYMO
    missing = token_client.get("/api/v1/labels/Sheets/Avery/Nope")
    assert missing.status_code == 200 and missing.json()["messages"] == "Label does not exist"
    http_errors(settings)
    assert token_client.get("/api/v1/labels/Nope").status_code == 404


def test_five_hundred_tags_in_one_query(token_client, django_assert_max_num_queries):
    assets = AssetFactory.create_batch(3)
    tags = [f"MISSING-{n}" for n in range(497)] + [asset.asset_tag.lower() for asset in assets]
    with django_assert_max_num_queries(8):  # the token, the caller, the assets (with their models)
        response = token_client.post(URL, {"asset_tags": tags}, format="json")
    assert response.json()["message"] == "Asset does not exist."
    reader = pdf_of(token_client.post(URL, {"asset_tags": tags[-3:]}, format="json"))
    assert len(reader.pages[0].images) == 3
    assert error_of(token_client.post(URL, {"asset_tags": [*tags, "ONE-MORE"]}, format="json"), "asset_tags")
