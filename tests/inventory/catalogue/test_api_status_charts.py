"""``GET statuslabels/assets/name``, ``statuslabels/assets/type`` (Snipe-IT's pie-chart payload, counting only the
live assets the caller sees) and ``GET statuslabels/{id}/deployable`` (a bare ``1`` / ``0``), issue 27."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.api.catalogue.charts import DEFAULT_COLORS
from tests.api_mixins import http_errors
from tests.factories import AssetFactory, CompanyFactory, StatusLabelFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db


def chart(labels, data, colors):
    return {"labels": labels, "datasets": [{"data": data, "backgroundColor": colors,
                                            "hoverBackgroundColor": colors}]}


def test_counts_by_label_name(token_client, site_settings):
    ready = StatusLabelFactory(name="Ready", type="deployable", color="#123456")
    broken = StatusLabelFactory(name="Broken", type="undeployable")
    StatusLabelFactory(name="Unused")
    stored = StatusLabelFactory(name="Stored", type="archived")
    for _ in range(3):
        AssetFactory(status=ready)
    AssetFactory(status=broken)
    AssetFactory(status=broken, deleted_at="2024-01-01T00:00:00Z")
    AssetFactory(status=stored)
    body = token_client.get("/api/v1/statuslabels/assets/name").json()
    assert body == chart(["Broken (1)", "Ready (3)"], [1, 3], [DEFAULT_COLORS[0], "#123456"])
    site_settings.show_archived_in_list = True
    site_settings.save()
    body = token_client.get("/api/v1/statuslabels/assets/name").json()
    assert body["labels"] == ["Broken (1)", "Ready (3)", "Stored (1)"]


def test_counts_by_status_type(token_client):
    deployable, pending = StatusLabelFactory(type="deployable"), StatusLabelFactory(type="pending")
    AssetFactory(status=deployable)
    AssetFactory(status=deployable)
    checked_out_asset(UserFactory(), status=deployable)
    checked_out_asset(UserFactory(), status=pending)
    AssetFactory(status=StatusLabelFactory(type="archived"))
    body = token_client.get("/api/v1/statuslabels/assets/type").json()
    assert body == chart(["Ready to Deploy (2)", "Deployed (2)", "Archived (1)", "Pending (1)"], [2, 2, 1, 1],
                         list(DEFAULT_COLORS[:4]))
    StatusLabelFactory()
    assert token_client.get("/api/v1/statuslabels/assets/type").json() == body


def test_charts_count_only_the_callers_company(make_client, fmcs_on):
    label = StatusLabelFactory(name="Ready", type="deployable")
    mine, theirs = CompanyFactory(), CompanyFactory()
    AssetFactory(status=label, company=mine)
    for _ in range(4):
        AssetFactory(status=label, company=theirs)
    client = make_client(UserFactory(company=mine, permissions={"statuslabels.view": 1}))
    assert client.get("/api/v1/statuslabels/assets/name").json()["labels"] == ["Ready (1)"]
    assert client.get("/api/v1/statuslabels/assets/type").json()["labels"] == ["Ready to Deploy (1)"]


@pytest.mark.parametrize("path", ["/api/v1/statuslabels/assets/name", "/api/v1/statuslabels/assets/type"])
def test_chart_permissions_and_queries(path, api_client, make_client, token_client):
    assert api_client.get(path).status_code == 401
    assert make_client(UserFactory(permissions={"assets.view": 1})).get(path).status_code == 403
    assert make_client(UserFactory(permissions={"statuslabels.view": 1})).get(path).status_code == 200
    AssetFactory()
    token_client.get(path)
    with CaptureQueriesContext(connection) as few:
        token_client.get(path)
    for _ in range(10):
        AssetFactory(company=CompanyFactory())
    with CaptureQueriesContext(connection) as many:
        token_client.get(path)
    assert len(many.captured_queries) == len(few.captured_queries)


@pytest.mark.parametrize("kind,answer", [("deployable", 1), ("pending", 1), ("undeployable", 0), ("archived", 0)])
def test_deployable(kind, answer, token_client):
    label = StatusLabelFactory(type=kind)
    response = token_client.get(f"/api/v1/statuslabels/{label.pk}/deployable")
    assert response.status_code == 200 and response.content == str(answer).encode()


def test_deployable_unknown_and_permissions(token_client, api_client, make_client, settings):
    label = StatusLabelFactory()
    assert token_client.get("/api/v1/statuslabels/999999/deployable").json()["message"] == "Statuslabel not found"
    assert api_client.get(f"/api/v1/statuslabels/{label.pk}/deployable").status_code == 401
    assert make_client(UserFactory(permissions={"assets.view": 1})).get(
        f"/api/v1/statuslabels/{label.pk}/deployable").status_code == 403
    http_errors(settings)
    assert token_client.get("/api/v1/statuslabels/999999/deployable").status_code == 404
