"""Issue 25 items 3 and 4: what a cross-company checkout and a company move leave visible.

3. A super user checks company B's asset out to a user (or an asset) of company A. B's callers must not read A's
   person (or asset) in ``assigned_to`` or in the log's target; the log row belongs to the item's company (B), so B's
   history keeps it; A sees that row only as far as A's own records go (its user is the target), never B's asset name
   or serial.
4. An asset that was A's and moved to B: A's old log rows show the asset as it was recorded, never B's later name or
   serial (and nothing live of it, such as its next audit date).
"""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from tests.factories import AssetFactory, UserFactory

pytestmark = pytest.mark.django_db
VIEWER = {"assets.view": 1, "reports.view": 1, "users.view": 1}


@pytest.fixture
def people(company, other_company):
    return {
        "alice": UserFactory(company=company, first_name="Alice", last_name="Amber", email="alice@a.example",
                             username="alice"),
        "a_viewer": UserFactory(company=company, permissions=VIEWER, username="a-viewer"),
        "b_viewer": UserFactory(company=other_company, permissions=VIEWER, username="b-viewer"),
    }


def _checkout(client, asset, **target):
    body = client.post(f"/api/v1/hardware/{asset.pk}/checkout", target, format="json").json()
    assert body["status"] == "success", body


# --- item 3 ----------------------------------------------------------------------------------------------------


def test_b_callers_do_not_see_company_a_user_in_assigned_to(fmcs_on, token_client, make_client, people,
                                                             other_company):
    asset = AssetFactory(company=other_company, name="B laptop", serial="B-SERIAL-1")
    _checkout(token_client, asset, assigned_user=people["alice"].pk)

    b_client = make_client(people["b_viewer"])
    record = b_client.get(f"/api/v1/hardware/{asset.pk}").json()
    assert record["assigned_to"] is None
    assert record["status_label"]["status_meta"] == "deployed"  # still checked out, only the holder is hidden
    listed = b_client.get("/api/v1/hardware").json()["rows"]
    assert [row["assigned_to"] for row in listed if row["id"] == asset.pk] == [None]
    for body in (record, listed):
        assert "Alice" not in str(body) and "alice@a.example" not in str(body)
    # the super user still sees who holds it
    assert token_client.get(f"/api/v1/hardware/{asset.pk}").json()["assigned_to"]["name"] == "Alice Amber"


def test_b_callers_do_not_see_company_a_asset_in_assigned_to(fmcs_on, token_client, make_client, people, company,
                                                              other_company):
    holder = AssetFactory(company=company, name="A secret host", asset_tag="A-HOST")
    asset = AssetFactory(company=other_company, name="B dongle")
    _checkout(token_client, asset, assigned_asset=holder.pk)

    record = make_client(people["b_viewer"]).get(f"/api/v1/hardware/{asset.pk}").json()
    assert record["assigned_to"] is None
    assert "A secret host" not in str(record) and "A-HOST" not in str(record)
    assert token_client.get(f"/api/v1/hardware/{asset.pk}").json()["assigned_to"]["asset_tag"] == "A-HOST"


def test_cross_company_checkout_log_belongs_to_the_items_company(fmcs_on, token_client, make_client, people,
                                                                 company, other_company):
    asset = AssetFactory(company=other_company, name="B laptop", serial="B-SERIAL-1")
    _checkout(token_client, asset, assigned_user=people["alice"].pk, note="for the audit")

    log = ActionLog.objects.get(item_type="asset", item_id=asset.pk, action_type="checkout")
    assert log.company_id == other_company.pk  # the item's company, not the target's

    # B keeps the row in its history and its report, with its asset, but without A's person
    b_client = make_client(people["b_viewer"])
    history = b_client.get(f"/api/v1/hardware/{asset.pk}/history").json()["rows"]
    report = b_client.get("/api/v1/reports/activity", {"item_type": "asset", "item_id": asset.pk}).json()["rows"]
    for rows in (history, report):
        row = next(row for row in rows if row["action_type"] == "checkout")
        assert row["item"]["name"] == "B laptop" and row["item"]["serial"] == "B-SERIAL-1"
        assert row["target"] == {"id": people["alice"].pk, "name": None, "type": "user"}
        assert "Alice" not in str(rows)

    # A sees the row through its own user, but nothing of B's asset
    a_client = make_client(people["a_viewer"])
    a_rows = a_client.get("/api/v1/reports/activity",
                          {"target_type": "user", "target_id": people["alice"].pk}).json()["rows"]
    assert [row["action_type"] for row in a_rows] == ["checkout"]
    assert a_rows[0]["target"]["name"] == "Alice Amber"
    assert a_rows[0]["item"]["name"] is None and a_rows[0]["item"]["serial"] is None
    assert a_rows[0]["log_meta"] is None and a_rows[0]["note"] is None
    everything = a_client.get("/api/v1/reports/activity").json()
    assert "B laptop" not in str(everything) and "B-SERIAL-1" not in str(everything)
    assert "for the audit" not in str(everything)
    # nor can A find the row by B's note or B's company name (a search reaches only A's own items' rows)
    for text in ("for the audit", "Company B"):
        assert a_client.get("/api/v1/reports/activity", {"search": text}).json()["total"] == 0
    assert b_client.get("/api/v1/reports/activity", {"search": "for the audit"}).json()["total"] == 1


def test_b_callers_do_not_see_a_target_asset_in_the_log(fmcs_on, token_client, make_client, people, company,
                                                        other_company):
    holder = AssetFactory(company=company, name="A secret host", asset_tag="A-HOST")
    asset = AssetFactory(company=other_company, name="B dongle")
    _checkout(token_client, asset, assigned_asset=holder.pk)

    rows = make_client(people["b_viewer"]).get(f"/api/v1/hardware/{asset.pk}/history").json()["rows"]
    checkout = next(row for row in rows if row["action_type"] == "checkout")
    assert checkout["target"] == {"id": holder.pk, "name": None, "type": "asset"}
    assert "A secret host" not in str(rows) and "A-HOST" not in str(rows)


# --- item 4 ----------------------------------------------------------------------------------------------------


def test_old_log_rows_show_the_asset_as_recorded_after_it_moved(fmcs_on, token_client, make_client, people,
                                                                company, other_company):
    created = token_client.post("/api/v1/hardware", {
        "asset_tag": "MOVE-1", "name": "A workstation", "serial": "A-SERIAL",
        "model_id": AssetFactory().model_id, "status_id": AssetFactory().status_id, "company_id": company.pk,
    }, format="json").json()
    assert created["status"] == "success", created
    asset_id = created["payload"]["id"]
    assert token_client.patch(f"/api/v1/hardware/{asset_id}", {"company_id": other_company.pk},
                              format="json").json()["status"] == "success"
    assert token_client.patch(f"/api/v1/hardware/{asset_id}", {"name": "B secret project", "serial": "B-SERIAL"},
                              format="json").json()["status"] == "success"
    assert token_client.post(f"/api/v1/hardware/{asset_id}/audit", {"next_audit_date": "2031-01-02"},
                             format="json").json()["status"] == "success"

    a_rows = make_client(people["a_viewer"]).get("/api/v1/reports/activity",
                                                 {"item_type": "asset", "item_id": asset_id}).json()["rows"]
    assert [row["action_type"] for row in a_rows] == ["create new"]
    assert a_rows[0]["item"] == {"id": asset_id, "name": "A workstation", "type": "asset", "serial": "A-SERIAL"}
    assert a_rows[0]["next_audit_date"] is None  # B's live audit date is not A's business
    assert "B secret project" not in str(a_rows) and "B-SERIAL" not in str(a_rows) and "2031" not in str(a_rows)

    # B reads its own rows with the names they were written with
    b_rows = make_client(people["b_viewer"]).get(f"/api/v1/hardware/{asset_id}/history").json()["rows"]
    names = {row["action_type"]: row["item"]["name"] for row in b_rows}
    assert names["audit"] == "B secret project"
    assert "A workstation" not in str([row["item"] for row in b_rows if row["action_type"] == "audit"])


# --- the admin shows the same -------------------------------------------------------------------------------------


def test_admin_hides_another_companys_holder_and_log_item(fmcs_on, token_client, people, company, other_company):
    from django.test import Client

    asset = AssetFactory(company=other_company, name="B laptop", asset_tag="B-TAG-1")
    _checkout(token_client, asset, assigned_user=people["alice"].pk, note="for the audit")
    b_admin = UserFactory(company=other_company, permissions={"admin": 1}, username="b-admin")
    client = Client()
    client.force_login(b_admin)
    for url in ("/admin/inventory/asset/", f"/admin/inventory/asset/{asset.pk}/change/",
                f"/admin/inventory/asset/{asset.pk}/history/"):
        page = client.get(url)
        assert page.status_code == 200, url
        assert b"B-TAG-1" in page.content or b"B laptop" in page.content, url
        assert b"Alice" not in page.content and b"alice" not in page.content, url

    a_admin = UserFactory(company=company, permissions={"admin": 1}, username="a-admin")
    client.force_login(a_admin)
    page = client.get("/admin/activity/actionlog/")
    assert page.status_code == 200
    assert b"B laptop" not in page.content and b"for the audit" not in page.content
    assert b"Company B" not in page.content
    log = ActionLog.objects.get(item_type="asset", item_id=asset.pk, action_type="checkout")
    assert f"/admin/activity/actionlog/{log.pk}/".encode() in page.content  # listed: it concerns A's user
    row_page = client.get(f"/admin/activity/actionlog/{log.pk}/change/", follow=True)
    assert b"for the audit" not in row_page.content and b"B laptop" not in row_page.content
    found = client.get("/admin/activity/actionlog/", {"q": "for the audit"})
    assert f"/admin/activity/actionlog/{log.pk}/".encode() not in found.content
