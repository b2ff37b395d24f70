"""Upgrades keep data: a database populated before the action log moved from ``inventory`` to ``activity`` migrates
forward with every asset, log row and token intact (the table is kept; only Django's model state moves)."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from rest_framework.test import APIClient

from tests.migrating import migrate_to as _migrate

BEFORE_MOVE = [("inventory", "0002_location_name_ci_unique"), ("activity", None)]


@pytest.mark.django_db(transaction=True)
def test_a_populated_database_keeps_assets_log_rows_and_tokens_across_the_move():
    old = _migrate(BEFORE_MOVE)
    assert "actionlog" in old.all_models["inventory"] and "activity" not in old.all_models
    Company = old.get_model("companies", "Company")
    User = old.get_model("accounts", "User")
    StatusLabel = old.get_model("inventory", "StatusLabel")
    Category = old.get_model("inventory", "Category")
    AssetModel = old.get_model("inventory", "AssetModel")
    Asset = old.get_model("inventory", "Asset")
    OldActionLog = old.get_model("inventory", "ActionLog")
    Application = old.get_model("oauth2_provider", "Application")
    AccessToken = old.get_model("oauth2_provider", "AccessToken")
    PersonalAccessToken = old.get_model("accounts", "PersonalAccessToken")
    ContentType = old.get_model("contenttypes", "ContentType")
    ContentType.objects.get_or_create(app_label="inventory", model="actionlog")

    company = Company.objects.create(name="Acme")
    admin = User.objects.create(username="old-admin", permissions={"superuser": 1}, password="!")
    label = StatusLabel.objects.create(name="Ready", type="deployable")
    category = Category.objects.create(name="Laptops", category_type="asset")
    model = AssetModel.objects.create(name="X1", category=category)
    assets = [Asset.objects.create(asset_tag=f"OLD-{n}", model=model, status=label, company=company)
              for n in range(3)]
    now = timezone.now()
    for asset in assets:
        OldActionLog.objects.create(action_type="create", item_type="asset", item_id=asset.pk, created_by=admin,
                                    company=company, note=f"created {asset.asset_tag}", action_date=now,
                                    remote_ip="10.0.0.1", user_agent="old-client", log_meta={"k": 1})
    raw = "pre-upgrade-token-value"
    client = Application.objects.create(name="Personal Access Client", client_id="c1", client_type="confidential",
                                        authorization_grant_type="client-credentials", skip_authorization=True)
    access = AccessToken.objects.create(user=admin, application=client, token="",
                                        token_checksum=hashlib.sha256(raw.encode()).hexdigest(),
                                        expires=now + timedelta(days=30), scope="")
    PersonalAccessToken.objects.create(user=admin, application=client, access_token=access, name="old",
                                       expires_at=now + timedelta(days=30))
    old_rows = list(OldActionLog.objects.order_by("pk").values())

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from django.contrib.contenttypes.models import ContentType as CurrentContentType

    from activity.models import ActionLog
    from inventory.models import Asset as CurrentAsset

    assert ActionLog._meta.db_table == "inventory_actionlog"
    # every old column keeps its value (activity 0002 adds columns of its own: tested below)
    assert [{key: row[key] for key in old_rows[0]} for row in ActionLog.objects.order_by("pk").values()] == old_rows
    assert set(CurrentAsset.objects.values_list("asset_tag", flat=True)) == {"OLD-0", "OLD-1", "OLD-2"}
    assert CurrentContentType.objects.filter(app_label="activity", model="actionlog").exists()
    assert not CurrentContentType.objects.filter(app_label="inventory", model="actionlog").exists()

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert api.get("/api/v1/users/me").json()["username"] == "old-admin"
    activity = api.get("/api/v1/reports/activity", {"limit": 50}).json()
    assert activity["total"] == 3
    assert {row["note"] for row in activity["rows"]} == {"created OLD-0", "created OLD-1", "created OLD-2"}


@pytest.mark.django_db(transaction=True)
def test_custom_fields_migration_applies_on_a_populated_database():
    """``0014_custom_fields`` adds the field tables and a nullable ``fieldset`` to existing models: rows made before it
    survive, models start without a fieldset, and the new tables work through the API at once."""
    old = _migrate([("inventory", "0013_asset_tally")])
    StatusLabel = old.get_model("inventory", "StatusLabel")
    Category = old.get_model("inventory", "Category")
    AssetModel = old.get_model("inventory", "AssetModel")
    Asset = old.get_model("inventory", "Asset")
    User = old.get_model("accounts", "User")
    label = StatusLabel.objects.create(name="Ready", type="deployable")
    model = AssetModel.objects.create(name="X1", category=Category.objects.create(name="Laptops",
                                                                                   category_type="asset"))
    Asset.objects.create(asset_tag="PRE-1", model=model, status=label)
    User.objects.create(username="pre-admin", permissions={"superuser": 1}, password="!")

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from accounts.models import User as CurrentUser
    from inventory.models import AssetModel as CurrentModel

    assert CurrentModel.objects.get(pk=model.pk).fieldset_id is None
    api = APIClient()
    api.force_authenticate(CurrentUser.objects.get(username="pre-admin"))
    fieldset = api.post("/api/v1/fieldsets", {"name": "Laptops"}, format="json").json()["payload"]
    attached = api.patch(f"/api/v1/models/{model.pk}", {"fieldset_id": fieldset["id"]}, format="json").json()
    assert attached["payload"]["fieldset"] == {"id": fieldset["id"], "name": "Laptops"}
    assert api.get("/api/v1/hardware", {"search": "PRE-1"}).json()["total"] == 1


@pytest.mark.django_db(transaction=True)
def test_recorded_item_migration_backfills_a_populated_log():
    """``activity 0002``/``0003`` (issue 25) record each row's item name and serial and its target's company.
    Existing rows are filled from the database as it is, only where the item still belongs to the row's company: a
    row of an asset that moved to another company since records nothing of it, so that company's later name never
    shows. No row changes company, and every old column keeps its value."""
    old = _migrate([("activity", "0001_initial")])
    Company = old.get_model("companies", "Company")
    User = old.get_model("accounts", "User")
    StatusLabel = old.get_model("inventory", "StatusLabel")
    Category = old.get_model("inventory", "Category")
    AssetModel = old.get_model("inventory", "AssetModel")
    Asset = old.get_model("inventory", "Asset")
    OldLog = old.get_model("activity", "ActionLog")
    a, b = Company.objects.create(name="A"), Company.objects.create(name="B")
    viewer = User.objects.create(username="a-viewer", company=a, permissions={"reports.view": 1}, password="!")
    alice = User.objects.create(username="alice", first_name="Alice", last_name="Amber", company=a, password="!")
    label = StatusLabel.objects.create(name="Ready", type="deployable")
    model = AssetModel.objects.create(name="X1", category=Category.objects.create(name="Laptops",
                                                                                   category_type="asset"))
    stays = Asset.objects.create(asset_tag="STAY-1", name="A desk", serial="S-1", model=model, status=label,
                                 company=a)
    moved = Asset.objects.create(asset_tag="MOVE-1", name="B secret project", serial="B-SERIAL", model=model,
                                 status=label, company=b)  # was A's when its first row was written
    now = timezone.now()

    def row(**values):
        return OldLog.objects.create(action_date=now, **values)

    stays_log = row(action_type="checkout", item_type="asset", item_id=stays.pk, company=a, target_type="user",
                    target_id=alice.pk)
    moved_log = row(action_type="create", item_type="asset", item_id=moved.pk, company=a)
    user_log = row(action_type="update", item_type="user", item_id=alice.pk, company=a)
    label_log = row(action_type="create", item_type="statuslabel", item_id=label.pk)
    gone_log = row(action_type="delete", item_type="asset", item_id=999_999, company=a)
    old_rows = list(OldLog.objects.order_by("pk").values())

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from accounts.models import User as CurrentUser
    from activity.models import ActionLog

    after = {log.pk: log for log in ActionLog.objects.all()}
    assert [{key: value for key, value in vars(after[old_row["id"]]).items() if key in old_row}
            for old_row in old_rows] == old_rows
    assert (after[stays_log.pk].item_name, after[stays_log.pk].item_serial) == ("A desk", "S-1")
    assert after[stays_log.pk].target_company_id == a.pk
    assert (after[moved_log.pk].item_name, after[moved_log.pk].item_serial) == (None, None)
    assert after[user_log.pk].item_name == "Alice Amber"
    assert after[label_log.pk].item_name == "Ready"
    assert after[gone_log.pk].item_name is None

    from assetsvc.models import SiteSettings

    site = SiteSettings.load()
    site.full_multiple_companies_support = True
    site.save()
    api = APIClient()
    api.force_authenticate(CurrentUser.objects.get(username="a-viewer"))
    rows = api.get("/api/v1/reports/activity", {"limit": 50}).json()["rows"]
    items = {entry["id"]: entry["item"] for entry in rows}
    assert items[stays_log.pk]["name"] == "A desk"
    assert items[moved_log.pk] == {"id": moved.pk, "name": None, "type": "asset", "serial": None}
    assert "B secret project" not in str(rows) and "B-SERIAL" not in str(rows)
    assert viewer.pk


@pytest.mark.django_db(transaction=True)
def test_the_tag_key_migration_keeps_look_alike_duplicates_of_before_the_rule():
    """Issue 25 item 9a: ``0016_asset_tag_lookalike_key`` / ``0017_asset_tag_key_unique_alive`` on a database that
    already holds look-alike tags (NFC and decomposed ``Å``, fullwidth and plain, a zero-width space) does not fail.
    The oldest of each group gets the key, the later ones none; every row stays and keeps working, and new
    look-alikes are refused from then on."""
    old = _migrate([("inventory", "0015_custom_value_lookup_ci")])
    StatusLabel = old.get_model("inventory", "StatusLabel")
    Category = old.get_model("inventory", "Category")
    AssetModel = old.get_model("inventory", "AssetModel")
    Asset = old.get_model("inventory", "Asset")
    User = old.get_model("accounts", "User")
    label = StatusLabel.objects.create(name="Ready", type="deployable")
    model = AssetModel.objects.create(name="X1", category=Category.objects.create(name="Laptops",
                                                                                   category_type="asset"))
    made = {tag: Asset.objects.create(asset_tag=tag, model=model, status=label).pk
            for tag in ("ÅSA-1", "A\u030aSA-1", "ABC-1", "ＡＢＣ-1", "AB\u200bC-1", "PLAIN-1")}
    gone = Asset.objects.create(asset_tag="ｇｏｎｅ-1", model=model, status=label, deleted_at=timezone.now()).pk
    User.objects.create(username="pre-admin", permissions={"superuser": 1}, password="!")

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from accounts.models import User as CurrentUser
    from inventory.models import Asset as CurrentAsset

    keys = dict(CurrentAsset.objects.values_list("pk", "asset_tag_key"))
    assert keys[made["ÅSA-1"]] == "åsa-1" and keys[made["A\u030aSA-1"]] is None
    assert keys[made["ABC-1"]] == "abc-1" and keys[made["ＡＢＣ-1"]] is None and keys[made["AB\u200bC-1"]] is None
    assert keys[made["PLAIN-1"]] == "plain-1" and keys[gone] == "gone-1"
    api = APIClient()
    api.force_authenticate(CurrentUser.objects.get(username="pre-admin"))
    kept = api.patch(f"/api/v1/hardware/{made['ＡＢＣ-1']}", {"name": "still works"}, format="json").json()
    assert kept["status"] == "success", kept
    twin = api.post("/api/v1/hardware", {"asset_tag": "ａｂｃ-1", "model_id": model.pk, "status_id": label.pk},
                    format="json").json()
    assert twin["status"] == "error" and twin["messages"] == {"asset_tag": ["The asset tag must be unique."]}
    assert api.post("/api/v1/hardware", {"asset_tag": "GONE-1", "model_id": model.pk, "status_id": label.pk},
                    format="json").json()["status"] == "success"  # a deleted asset's tag is free, as before
