"""What a dashboard script does with a company-limited token (issue 27), through the API only: the pie charts of
assets by status label and by status type, the assets at a location and those checked out to it, the people based
there, the history of a license, and a note left on an asset and read back. Another company's assets, people and
log rows share the same location and labels and never show nor count."""

from __future__ import annotations

import pytest

from tests.factories import (
    AssetFactory,
    CategoryFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

DASHBOARD_KEYS = {"assets.view": 1, "assets.edit": 1, "statuslabels.view": 1, "locations.view": 1, "users.view": 1,
                  "licenses.view": 1}


def ok(response):
    assert response.status_code == 200, response.content
    body = response.json()
    assert not (isinstance(body, dict) and body.get("status") == "error"), body
    return body


def test_a_dashboard_script(token_client, make_client, fmcs_on):
    ours, theirs = CompanyFactory(name="Ours"), CompanyFactory(name="Theirs")
    office = LocationFactory(name="Head office")
    ready = StatusLabelFactory(name="Ready", type="deployable", color="#00aa00")
    repair = StatusLabelFactory(name="In repair", type="undeployable")
    alice = UserFactory(company=ours, location=office, first_name="Alice", last_name="Admin")
    UserFactory(company=theirs, location=office)

    # the administrator (super user) sets the scene through the API
    laptops = [AssetFactory(company=ours, status=ready, location=office) for _ in range(3)]
    broken = AssetFactory(company=ours, status=repair, location=office)
    for _ in range(5):
        AssetFactory(company=theirs, status=ready, location=office)
    ok(token_client.post(f"/api/v1/hardware/{laptops[0].pk}/checkout", {"assigned_user": alice.pk}, format="json"))
    ok(token_client.post(f"/api/v1/hardware/{laptops[1].pk}/checkout", {"assigned_location": office.pk},
                         format="json"))
    license_id = ok(token_client.post("/api/v1/licenses", {
        "name": "Office suite", "seats": 5, "category_id": CategoryFactory(category_type="license").pk,
        "company_id": ours.pk}, format="json"))["payload"]["id"]
    seat = ok(token_client.get(f"/api/v1/licenses/{license_id}/seats"))["rows"][0]
    ok(token_client.patch(f"/api/v1/licenses/{license_id}/seats/{seat['id']}", {"assigned_to": alice.pk},
                          format="json"))

    script = make_client(UserFactory(company=ours, permissions=DASHBOARD_KEYS))

    # 1. the charts: our four assets only
    by_label = ok(script.get("/api/v1/statuslabels/assets/name"))
    assert by_label["labels"] == ["In repair (1)", "Ready (3)"]
    assert by_label["datasets"][0]["data"] == [1, 3] and by_label["datasets"][0]["backgroundColor"][1] == "#00aa00"
    by_type = ok(script.get("/api/v1/statuslabels/assets/type"))
    assert dict(zip(by_type["labels"], by_type["datasets"][0]["data"], strict=True)) == {
        "Ready to Deploy (1)": 1, "Deployed (2)": 2, "Un-deployable (1)": 1}
    assert ok(script.get(f"/api/v1/statuslabels/{ready.pk}/deployable")) == 1
    assert ok(script.get(f"/api/v1/statuslabels/{repair.pk}/deployable")) == 0
    in_repair = ok(script.get(f"/api/v1/statuslabels/{repair.pk}/assetlist"))
    assert [row["id"] for row in in_repair["rows"]] == [broken.pk]

    # 2. the office: what sits there, what is checked out to it, who works there
    at_office = ok(script.get(f"/api/v1/locations/{office.pk}/assets", {"sort": "id", "order": "asc"}))
    assert at_office["total"] == 4 and {row["company"]["name"] for row in at_office["rows"]} == {"Ours"}
    assigned = ok(script.get(f"/api/v1/locations/{office.pk}/assigned/assets"))
    assert [row["id"] for row in assigned["rows"]] == [laptops[1].pk]
    people = ok(script.get(f"/api/v1/locations/{office.pk}/users"))
    assert [row["id"] for row in people["rows"]] == [alice.pk] and people["total"] == 1

    # 3. the license's history: created, then a seat checked out to Alice
    history = ok(script.get(f"/api/v1/licenses/{license_id}/history"))
    assert [row["action_type"] for row in history["rows"]] == ["checkout", "create new"]
    assert history["rows"][0]["target"] == {"id": alice.pk, "name": "Alice Admin", "type": "user"}
    assert history["rows"][0]["item"]["serial"] == "------------"  # no key rights: the key stays hidden

    # 4. a note on the broken laptop, read back
    added = ok(script.post(f"/api/v1/notes/{broken.pk}/store", {"note": "Screen cracked, sent to vendor"},
                           format="json"))
    assert added["messages"] == "Note Added"
    notes = ok(script.get(f"/api/v1/notes/{broken.pk}/index"))
    assert [row["note"] for row in notes["rows"]] == ["Screen cracked, sent to vendor"]

    # 5. the select lists a form would fill: ours only
    picks = ok(script.get("/api/v1/hardware/selectlist"))
    assert picks["total_count"] == 4
    assert {row["id"] for row in ok(script.get("/api/v1/users/selectlist"))["results"]} >= {alice.pk}
