"""The live-asset tally (PostgreSQL; migration 0013, ``inventory/selectors/tally.py``): ``GET /hardware`` takes its
exact
``total`` from it instead of counting, so it must equal the count after every way an asset is written (the API's
verbs, the ORM's bulk and queryset writes, raw SQL, rolled-back transactions, ``TRUNCATE``), for every caller and
every list it answers, also with writers racing; lists it cannot answer still count.

The oracle is the ORM's own count of the rows the list shows, never the tally."""

from __future__ import annotations

import threading
from io import StringIO

import pytest
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from inventory.choices import StatusType
from inventory.models import Asset, StatusLabel
from tests.conftest import TokenClient
from tests.factories import AssetFactory, AssetModelFactory, CompanyFactory, StatusLabelFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
URL = "/api/v1/hardware"


def shown(params: dict, company=None, *, archived_listed: bool = False) -> int:
    """The oracle: how many assets the hardware list with ``params`` shows (``company``: a company user's)."""
    rows = Asset.objects.filter(deleted_at__isnull=True)
    if company is not None:
        rows = rows.filter(company=company)
    if "company_id" in params:
        rows = rows.filter(company_id__in=[int(i) for i in str(params["company_id"]).split(",")])
    if "status_id" in params:
        rows = rows.filter(status_id__in=[int(i) for i in str(params["status_id"]).split(",")])
    elif not archived_listed:
        rows = rows.exclude(status__type=StatusType.ARCHIVED)
    return rows.count()


def tally_rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM inventory_asset_tally")
        return cursor.fetchone()[0]


@pytest.fixture
def world():
    """Two companies, assets without one, a ready, a broken and an archived label."""
    ready = StatusLabelFactory(name="Ready", type=StatusType.DEPLOYABLE)
    broken = StatusLabelFactory(name="Broken", type=StatusType.UNDEPLOYABLE)
    archived = StatusLabelFactory(name="Gone", type=StatusType.ARCHIVED)
    acme, globex = CompanyFactory(name="Acme"), CompanyFactory(name="Globex")
    model = AssetModelFactory()
    for company, label, count in ((acme, ready, 4), (acme, archived, 2), (globex, broken, 3), (None, ready, 2)):
        AssetFactory.create_batch(count, company=company, status=label, model=model)
    return {"ready": ready, "broken": broken, "archived": archived, "acme": acme, "globex": globex, "model": model}


def assert_totals(client, world, company=None, *, archived_listed: bool = False) -> None:
    """Every list the tally answers shows the oracle's total (and, for a company user, only their company's)."""
    acme, globex = world["acme"].pk, world["globex"].pk
    for params in ({}, {"company_id": acme}, {"company_id": f"{acme},{globex}"},
                   {"status_id": world["ready"].pk}, {"status_id": world["archived"].pk},
                   {"status_id": f"{world['ready'].pk},{world['broken'].pk}", "company_id": globex}):
        response = client.get(URL, {**params, "limit": 1})
        assert response.status_code == 200, response.content
        assert response.json()["total"] == shown(params, company, archived_listed=archived_listed), params


def test_the_list_total_comes_from_the_tally_not_from_counting_assets(world):
    client = TokenClient(UserFactory(superuser=True))
    with CaptureQueriesContext(connection) as queries:
        body = client.get(URL, {"limit": 2}).json()
    assert body["total"] == shown({}) == 9 and len(body["rows"]) == 2
    sql = [query["sql"] for query in queries.captured_queries]
    assert any("inventory_asset_tally" in statement for statement in sql)
    assert not any("COUNT(" in statement.upper() and "inventory_asset_tally" not in statement for statement in sql)
    assert_totals(client, world)


def test_a_company_user_gets_their_companys_total(world, fmcs_on):
    user = UserFactory(company=world["acme"], permissions={"assets.view": 1})
    client = TokenClient(user)
    assert client.get(URL).json()["total"] == 4
    assert client.get(URL, {"company_id": world["globex"].pk}).json()["total"] == 0
    assert_totals(client, world, company=world["acme"])


def test_show_archived_in_list_counts_the_archived_labels_too(world, site_settings):
    site_settings.show_archived_in_list = True
    site_settings.save()
    client = TokenClient(UserFactory(superuser=True))
    assert client.get(URL).json()["total"] == 11
    assert_totals(client, world, archived_listed=True)


def test_every_api_write_keeps_the_total_exact(world):
    client = TokenClient(UserFactory(superuser=True))
    ready, broken, acme, globex = world["ready"], world["broken"], world["acme"], world["globex"]
    created = client.post(URL, {"asset_tag": "T-1", "model_id": world["model"].pk, "status_id": ready.pk,
                                "company_id": acme.pk}, format="json")
    assert created.status_code == 200 and created.json()["status"] == "success", created.content
    pk = created.json()["payload"]["id"]
    assert_totals(client, world)
    for change in ({"company_id": globex.pk}, {"status_id": broken.pk}, {"company_id": None},
                   {"status_id": world["archived"].pk}, {"status_id": ready.pk, "company_id": acme.pk},
                   {"name": "only the name"}):
        response = client.patch(f"{URL}/{pk}", change, format="json")
        assert response.json()["status"] == "success", (change, response.content)
        assert_totals(client, world)
    target, loaned = UserFactory(), StatusLabelFactory(name="Loaned", type=StatusType.DEPLOYABLE)
    checkout = client.post(f"{URL}/{pk}/checkout", {"checkout_to_type": "user", "assigned_user": target.pk,
                                                     "status_id": loaned.pk}, format="json")
    assert checkout.json()["status"] == "success", checkout.content
    assert_totals(client, world)
    checkin = client.post(f"{URL}/{pk}/checkin", {"status_id": broken.pk}, format="json")
    assert checkin.json()["status"] == "success", checkin.content
    assert_totals(client, world)
    assert client.delete(f"{URL}/{pk}").json()["status"] == "success"
    assert_totals(client, world)
    assert client.post(f"{URL}/{pk}/restore").json()["status"] == "success"
    assert_totals(client, world)


def test_orm_bulk_raw_sql_and_truncate_writes_keep_the_total_exact(world):
    client = TokenClient(UserFactory(superuser=True))
    ready, acme = world["ready"], world["acme"]
    Asset.objects.bulk_create([Asset(asset_tag=f"B-{n}", model=world["model"], status=ready, company=acme)
                               for n in range(25)])
    assert_totals(client, world)
    Asset.objects.filter(asset_tag__startswith="B-").update(company=world["globex"], status=world["broken"])
    assert_totals(client, world)
    Asset.objects.filter(asset_tag__startswith="B-1").update(deleted_at=timezone.now())
    assert_totals(client, world)
    Asset.objects.filter(asset_tag__startswith="B-2").delete()
    assert_totals(client, world)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE inventory_asset SET company_id = NULL WHERE asset_tag LIKE 'B-%%'")
    assert_totals(client, world)
    # A label that becomes archived leaves the default list with its assets: the tally keys on the label.
    StatusLabel.objects.filter(pk=world["broken"].pk).update(type=StatusType.ARCHIVED)
    assert_totals(client, world)
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE inventory_asset CASCADE")
    assert client.get(URL).json()["total"] == 0 and tally_rows() == 0
    AssetFactory(company=acme, status=ready, model=world["model"])
    assert_totals(client, world)


def test_a_rolled_back_write_leaves_the_total_as_it_was(world):
    client = TokenClient(UserFactory(superuser=True))
    before = client.get(URL).json()["total"]
    with pytest.raises(RuntimeError), transaction.atomic():
        Asset.objects.bulk_create([Asset(asset_tag=f"R-{n}", model=world["model"], status=world["ready"])
                                   for n in range(5)])
        Asset.objects.filter(company=world["acme"]).update(deleted_at=timezone.now())
        raise RuntimeError("rolled back")
    assert client.get(URL).json()["total"] == before == shown({})
    assert_totals(client, world)


def test_many_small_writes_are_folded_and_stay_exact(world):
    """Every write appends a row; a pair that gathers 16 is folded into one, so the tally stays small."""
    client = TokenClient(UserFactory(superuser=True))
    for n in range(60):
        AssetFactory(company=world["acme"], status=world["ready"], model=world["model"], asset_tag=f"S-{n}")
        if n % 3 == 0:
            Asset.objects.filter(asset_tag=f"S-{n}").update(deleted_at=timezone.now())
    assert tally_rows() <= 5 * 17
    assert_totals(client, world)


def test_racing_writers_never_lose_a_change(world):
    """Eight threads, each creating, moving and deleting assets in its own transactions at once: the folds take
    only rows nobody holds, so no change is lost or counted twice and no writer waits for another."""
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def writer(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            for n in range(30):
                with transaction.atomic():
                    asset = Asset.objects.create(asset_tag=f"W-{index}-{n}", model=world["model"],
                                                 status=world["ready"], company=world["acme"])
                    if n % 2:
                        Asset.objects.filter(pk=asset.pk).update(company=world["globex"])
                    if n % 5 == 0:
                        Asset.objects.filter(pk=asset.pk).update(deleted_at=timezone.now())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert Asset.objects.filter(asset_tag__startswith="W-").count() == 240
    assert_totals(TokenClient(UserFactory(superuser=True)), world)


def test_lists_the_tally_cannot_answer_still_count(world):
    client = TokenClient(UserFactory(superuser=True))
    acme = world["acme"]
    Asset.objects.filter(company=acme).update(byod=True)
    for params, expected in (({"byod": "true"}, 4), ({"status": "Deleted"}, 0), ({"search": "zzz-nothing"}, 0),
                             ({"model_id": world["model"].pk}, 9), ({"company_id": "abc"}, 0),
                             ({"status_id": "1,x"}, 0), ({"status": "archived"}, 2)):
        body = client.get(URL, params).json()
        assert body["total"] == expected == len(body["rows"]), params


def test_a_populated_database_migrates_to_an_exact_tally():
    """Upgrading a database that already holds assets fills the tally from them in the migration."""
    from tests.ops.test_migrations import _migrate

    old = _migrate([("inventory", "0012_company_user_filter_indexes")])
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('inventory_asset_tally')")
        assert cursor.fetchone()[0] is None
    Company, StatusLabel_, Category, AssetModel, OldAsset = (
        old.get_model("companies", "Company"), old.get_model("inventory", "StatusLabel"),
        old.get_model("inventory", "Category"), old.get_model("inventory", "AssetModel"),
        old.get_model("inventory", "Asset"))
    company = Company.objects.create(name="Acme")
    ready = StatusLabel_.objects.create(name="Ready", type="deployable")
    gone = StatusLabel_.objects.create(name="Gone", type="archived")
    model = AssetModel.objects.create(name="X1", category=Category.objects.create(name="L", category_type="asset"))
    for n in range(7):
        OldAsset.objects.create(asset_tag=f"OLD-{n}", model=model, status=gone if n == 6 else ready,
                                company=company if n % 2 else None, deleted_at=timezone.now() if n == 5 else None)

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    client = TokenClient(UserFactory(superuser=True))
    assert client.get(URL).json()["total"] == 5 == shown({})
    assert client.get(URL, {"company_id": company.pk}).json()["total"] == 2 == shown({"company_id": company.pk})



def test_recount_assets_rebuilds_a_tally_that_was_bypassed(world):
    """An operator who loaded rows with triggers disabled puts the tally right with one command."""
    from django.core.management import call_command

    client = TokenClient(UserFactory(superuser=True))
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE inventory_asset DISABLE TRIGGER USER")
        cursor.execute("UPDATE inventory_asset SET deleted_at = now() WHERE company_id IS NULL")
        cursor.execute("ALTER TABLE inventory_asset ENABLE TRIGGER USER")
    assert client.get(URL).json()["total"] != shown({})
    out = StringIO()
    call_command("recount_assets", stdout=out)
    assert out.getvalue().strip() == f"{Asset.objects.filter(deleted_at__isnull=True).count()} live assets in 3 " \
                                     "(company, status) pairs."
    assert_totals(client, world)
