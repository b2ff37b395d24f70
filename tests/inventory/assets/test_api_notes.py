"""Notes on assets (issue 27): ``POST notes/{id}/store`` writes one action-log row of type ``note added`` (Snipe-IT
v8's notes), ``GET notes/{id}/index`` lists them, newest first. The asset's permissions (``assets.edit`` to add,
``assets.view`` to read) and company separation (another company's asset answers as a missing one)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory.services.assets import asset_note_add
from tests.api_mixins import MISSING, error_of, http_errors, same_answer
from tests.factories import AssetFactory, CompanyFactory, UserFactory

pytestmark = pytest.mark.django_db


def store(client, pk, note="Battery swapped", **extra):
    return client.post(f"/api/v1/notes/{pk}/store", {"note": note, **extra}, format="json")


def index(client, pk, **params):
    return client.get(f"/api/v1/notes/{pk}/index", params)


def test_store_writes_one_note_row_and_answers_it(token_client, superuser):
    asset = AssetFactory(notes="kept")
    before = asset.updated_at
    body = store(token_client, asset.pk).json()
    assert body["status"] == "success" and body["messages"] == "Note Added", body
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.item_id, log.note, log.created_by) == (
        "note added", "asset", asset.pk, "Battery swapped", superuser)
    assert body["payload"] == {"id": log.pk, "created_at": body["payload"]["created_at"], "note": "Battery swapped",
                               "created_by": {"id": superuser.pk, "name": superuser.full_name},
                               "item_id": asset.pk, "item_type": "asset", "action_type": "note added"}
    asset.refresh_from_db()
    assert asset.notes == "kept" and asset.updated_at == before  # the asset itself is unchanged
    history = token_client.get(f"/api/v1/hardware/{asset.pk}/history").json()
    assert [(r["action_type"], r["note"]) for r in history["rows"]] == [("note added", "Battery swapped")]


def test_index_lists_the_notes_newest_first(token_client):
    asset, other = AssetFactory(), AssetFactory()
    for text in ("one", "two", "three"):
        assert store(token_client, asset.pk, text).json()["status"] == "success"
    store(token_client, other.pk, "elsewhere")
    token_client.post(f"/api/v1/hardware/{asset.pk}/audit", {"note": "not a note row"}, format="json")
    body = index(token_client, asset.pk).json()
    assert list(body) == ["total", "rows"] and body["total"] == 3
    assert [row["note"] for row in body["rows"]] == ["three", "two", "one"]
    assert [row["note"] for row in index(token_client, asset.pk, limit=1, offset=1).json()["rows"]] == ["two"]


@pytest.mark.parametrize(("note", "expected"), [
    (None, "The note field is required."),
    ("", "The note field is required."),
    ("   ", "The note field is required."),
    (["a"], "The note must be a string."),
    ("x" * 50_001, "The note may not be greater than 50000 characters."),
    ("bad\x00note", "Null characters are not allowed."),
])
def test_bad_notes_are_refused_and_nothing_is_written(token_client, settings, note, expected):
    asset = AssetFactory()
    assert error_of(store(token_client, asset.pk, note), "note") == [expected]
    assert not ActionLog.objects.exists()
    http_errors(settings)
    assert store(token_client, asset.pk, note).status_code == 422
    assert not ActionLog.objects.exists()


def test_a_long_note_is_kept_whole(token_client):
    asset = AssetFactory()
    assert store(token_client, asset.pk, "y" * 50_000).json()["status"] == "success"
    assert len(ActionLog.objects.get().note) == 50_000


@pytest.mark.parametrize("bad", [MISSING, "abc"])
def test_unknown_or_deleted_asset(token_client, settings, bad):
    deleted = AssetFactory(deleted_at="2024-01-01T00:00:00Z")
    for pk in (bad, deleted.pk):
        assert store(token_client, pk).json()["message"] == "Asset does not exist."
    assert index(token_client, bad).json()["message"] == "Asset does not exist."
    assert not ActionLog.objects.exists()
    http_errors(settings)
    assert store(token_client, bad).status_code == 404 and index(token_client, bad).status_code == 404


def test_permissions(api_client, make_client):
    asset = AssetFactory()
    assert store(api_client, asset.pk).status_code == 401 and index(api_client, asset.pk).status_code == 401
    viewer = make_client(UserFactory(permissions={"assets.view": 1}))
    response = store(viewer, asset.pk)
    assert response.status_code == 403 and response.json()["message"] == "Insufficient permissions."
    assert index(viewer, asset.pk).status_code == 200
    editor = make_client(UserFactory(permissions={"assets.edit": 1}))
    assert store(editor, asset.pk).json()["status"] == "success"
    assert index(editor, asset.pk).status_code == 403
    assert ActionLog.objects.count() == 1


def test_another_companys_asset_answers_as_a_missing_one(make_client, token_client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=mine, permissions={"assets.view": 1, "assets.edit": 1}))
    their_asset = AssetFactory(company=theirs)
    store(token_client, their_asset.pk, "secret")
    same_answer(store(client, their_asset.pk), store(client, MISSING))
    same_answer(index(client, their_asset.pk), index(client, MISSING))
    assert ActionLog.objects.count() == 1
    own = AssetFactory(company=mine)
    assert store(client, own.pk).json()["status"] == "success"
    assert index(client, own.pk).json()["total"] == 1


def test_index_runs_a_constant_number_of_queries(token_client):
    asset = AssetFactory()
    store(token_client, asset.pk, "first")
    index(token_client, asset.pk)
    with CaptureQueriesContext(connection) as few:
        assert index(token_client, asset.pk, limit=500).json()["total"] == 1
    for number in range(20):  # each by another author, of another company
        asset_note_add(asset=asset, actor=UserFactory(company=CompanyFactory()), note=f"note {number}")
    with CaptureQueriesContext(connection) as many:
        assert index(token_client, asset.pk, limit=500).json()["total"] == 21
    assert len(many.captured_queries) == len(few.captured_queries)
