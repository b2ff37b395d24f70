"""One-command benchmark of the hardware, accessories, consumables, components, licenses, companies, users,
departments, maintenances, depreciations, kits, imports, files and checkout requests API, of the admin's start
page with its dashboard and of the employees' "My items" page, over HTTP against gunicorn (issue 3 item 7, issues 10,
11, 13, 27, 28 and 32).

    .venv/bin/python benchmarks/run.py [--assets N] [--accessories A] [--kind-rows K] [--database-url URL]
                                       [--requests R] [--keep] [--reuse] [--seed-only] [--explain]
                                       [--floor-dir DIR] [--no-floor] [--throughput] [--throughput-seconds S]
                                       [--clients C] [--workers W]

Steps: prepare a fresh database (a SQLite file under ``benchmarks/results/`` by default, or the PostgreSQL database
named by ``--database-url``, dropped and re-created), migrate, seed N assets with their catalogue and users, and
the other kinds (``benchmarks/seed.py``), issue personal access tokens for a super user and for a user of one
company, count the SQL queries of one request per scenario in-process (Django test client +
``CaptureQueriesContext``), then start gunicorn on a free loopback port and time every scenario with keep-alive HTTP
requests: p50 and p95 latency in milliseconds. On PostgreSQL the team's floor (``floor_http.py`` from
``--floor-dir``) is served beside the product and the scenarios it answers are timed interleaved with it (ratio
product/floor). The hardware scenarios run again as the company user with company separation on (a second table).
``GET /admin/`` (the dashboard) is sent with a signed-in session instead of a token, as ``admin`` (first table) and
as a company administrator (second table), and checked as HTML.
``--throughput`` adds requests per second with concurrent clients against 2 workers, product and floor, and the
product workers' memory. gunicorn is always stopped at the end, and the database is removed unless ``--keep``.

The run sets ``API_THROTTLE_PER_MINUTE`` high so the rate limiter never answers 429 (it still runs, so its cost is
part of every figure), ``DEBUG`` off and a throw-away ``SECRET_KEY``. Results are also written as JSON to
``benchmarks/results/``. See ``benchmarks/README.md`` and ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import secrets
import signal
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
THROTTLE = 1_000_000
#: Timed requests (after one warm-up) of the unpaged lists, ``GET /imports`` and ``GET /account/requests``: about a
#: second each at 10,000 rows, so the default --requests and --warmup would add over two minutes to a run.
UNPAGED_RUNS = 10
sys.path.insert(0, str(ROOT))
# WhiteNoise warns once that `collectstatic` has not run; the benchmark serves no static files.
warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)


@dataclass
class Scenario:
    """One timed request shape. ``build(i)`` returns (method, path, json body or None) for iteration ``i``;
    ``pair`` names a scenario that runs interleaved with this one (checkout then checkin of the same asset);
    ``answered(body)`` sees every accepted answer (an accessory checkout hands the checkin its new row's id)."""

    name: str
    build: object
    check: object = None
    pair: str | None = None
    answered: object = None
    timings: list[float] = field(default_factory=list)
    queries: int | None = None
    sql_ms: float | None = None  # database time of one request (see QueryTimer)
    sql: list[str] = field(default_factory=list)
    status: str = "ok"
    runs: int | None = None  # timed requests of a slow scenario (one warm-up), instead of --requests / --warmup
    floor: bool = False  # the floor (``--floor-dir``) answers it too: timed interleaved with the product
    floor_timings: list[float] = field(default_factory=list)
    #: A page of the back office (issue 28's dashboard): sent with this session cookie and no token, the answer
    #: checked as HTML (``check(status, text)``), not JSON.
    cookie: str | None = None


# ------------------------------------------------------------------------------------------------ database setup


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assets", type=int, default=100_000, help="assets to seed (default 100,000)")
    parser.add_argument("--accessories", type=int, default=None,
                        help="accessories to seed, with 10 checkout rows each (default: 10 per 100 assets, at least "
                             "60; consumables and components are a fifth of it, at least 60 each)")
    parser.add_argument("--database-url", default="",
                        help="postgres://user@127.0.0.1:5432/name (dropped and re-created) or sqlite:///path; "
                             "default: a SQLite file under benchmarks/results/")
    parser.add_argument("--requests", type=int, default=40, help="timed requests per scenario (default 40)")
    # Steady state: a connection plans a statement afresh for its first runs (psycopg prepares it on the second,
    # PostgreSQL settles on its generic plan after five custom ones), and each gunicorn thread has its own
    # connection; a server's kept connections are past that. Default: 8 per thread.
    parser.add_argument("--warmup", type=int, default=None,
                        help="untimed requests per scenario first (default 8 per gunicorn thread)")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads (one worker process)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--only", default="",
                        help="time only the scenarios whose name contains this text (e.g. 'bulk'; case-insensitive)")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse a database kept by an earlier --keep run with the same --assets (no re-seed)")
    parser.add_argument("--kind-rows", type=int, default=10_000,
                        help="consumables, components and licenses to seed, and the companies and users to top up to "
                             "(the lists of the other kinds are measured at this size; default 10,000)")
    parser.add_argument("--floor-dir", default="",
                        help="directory of the team's floor_http.py, timed beside the product (PostgreSQL only; "
                             "default ../shared/bench from the repository root)")
    parser.add_argument("--no-floor", action="store_true", help="do not run the floor")
    parser.add_argument("--throughput", action="store_true",
                        help="also measure requests per second with --clients concurrent clients against --workers "
                             "gunicorn workers (product and floor), and the product workers' memory")
    parser.add_argument("--throughput-seconds", type=float, default=10, help="seconds per throughput scenario "
                        "(default 10)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients of --throughput (default 8)")
    parser.add_argument("--workers", type=int, default=2,
                        help="gunicorn worker processes of --throughput (default 2, WEB_CONCURRENCY=2)")
    parser.add_argument("--import-rows", type=int, default=30_000,
                        help="rows of the CSV import of new assets with and without five custom columns, timed after "
                             "the HTTP scenarios (benchmarks/import_custom.py; 0 skips it; default 30,000)")
    parser.add_argument("--seed-only", action="store_true",
                        help="stop after seeding (and ANALYZE): time the seed alone; add --keep to keep the data")
    parser.add_argument("--explain", action="store_true",
                        help="write the query plans of every scenario's SQL to benchmarks/results/explain-*.txt")
    args = parser.parse_args(argv)
    if args.assets < 100:
        parser.error("--assets must be at least 100")
    if args.requests < 5:
        parser.error("--requests must be at least 5")
    if args.kind_rows < 60:
        parser.error("--kind-rows must be at least 60 (a full page of 50)")
    if args.accessories is not None and args.accessories < 60:
        parser.error("--accessories must be at least 60 (a full page of 50)")
    if args.warmup is None:
        args.warmup = 8 * args.threads
    return args


def database_url(args) -> tuple[str, str]:
    """The URL to use and its kind ("sqlite" or "postgresql"); only loopback servers are accepted."""
    if not args.database_url:
        RESULTS.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{RESULTS / f'bench-{args.assets}.sqlite3'}", "sqlite"
    parts = urlsplit(args.database_url)
    if parts.scheme.startswith("sqlite"):
        return args.database_url, "sqlite"
    if parts.scheme not in {"postgres", "postgresql", "pgsql"}:
        sys.exit(f"unsupported database URL scheme {parts.scheme!r}")
    if (parts.hostname or "") not in LOOPBACK:
        sys.exit("the benchmark only runs against a database on this machine (127.0.0.1, localhost or ::1)")
    if not parts.path.strip("/"):
        sys.exit("the PostgreSQL URL must name a database (e.g. .../assetsvc_bench)")
    return args.database_url, "postgresql"


def sqlite_path(url: str) -> Path:
    import dj_database_url

    return Path(dj_database_url.parse(url)["NAME"])


def pg_admin(url: str):
    """A connection to the server's ``postgres`` database (autocommit), plus the benchmark database name."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.strip("/")
    admin_url = urlunsplit((parts.scheme.replace("pgsql", "postgresql"), parts.netloc, "/postgres", parts.query, ""))
    if admin_url.startswith("postgres://"):
        admin_url = "postgresql://" + admin_url[len("postgres://"):]
    return psycopg.connect(admin_url, autocommit=True), name


def reset_database(url: str, kind: str) -> None:
    if kind == "sqlite":
        path = sqlite_path(url)
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    from psycopg import sql

    conn, name = pg_admin(url)
    with conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def ensure_database(url: str, kind: str) -> None:
    """For --reuse: create the PostgreSQL database if it is missing, keep it otherwise."""
    if kind == "sqlite":
        sqlite_path(url).parent.mkdir(parents=True, exist_ok=True)
        return
    from psycopg import sql

    conn, name = pg_admin(url)
    with conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_database(url: str, kind: str) -> None:
    if kind == "sqlite":
        path = sqlite_path(url)
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    from psycopg import sql

    conn, name = pg_admin(url)
    with conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def configure_environment(url: str) -> dict[str, str]:
    """The environment of both this process (seeding, query counts) and gunicorn."""
    env = {
        "DATABASE_URL": url,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DEBUG": "false",
        "API_THROTTLE_PER_MINUTE": str(THROTTLE),
        "API_ERROR_STATUS": "compat",
        "APP_FORCE_TLS": "false",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "assetsvc.settings",
    }
    for name in ("REDIS_URL", "WEBHOOK_ENDPOINT", "MAX_RESULTS"):
        os.environ.pop(name, None)  # local-memory rate-limit counter, no webhooks, the default page cap
    os.environ.update(env)
    return {**os.environ}


# ---------------------------------------------------------------------------------------------------- scenarios


@dataclass
class Fixture:
    """Ids the scenarios need, read from the seeded database."""

    token: str
    n_assets: int
    user_id: int
    search: str
    search_total: int
    model_id: int
    model_total: int
    status_id: int
    status_total: int
    company_id: int
    company_total: int
    location_id: int
    location_total: int
    detail_ids: list[int]
    checkout_ids: list[int]
    deep_cursor: str = ""  # the ?cursor= of the page 90% deep (the row before it, default order)
    accessories: int = 0
    consumables: int = 0
    components: int = 0
    licenses: int = 0
    maintenances: int = 0
    companies: int = 0
    users: int = 0
    departments: int = 0
    depreciations: int = 0
    kits: int = 0
    imports: int = 0  # the super user's uploads: all of them (the imports list is unpaged)
    files_asset_id: int | None = None  # the asset whose files are listed (benchmarks/seed.py ``files_asset_id``)
    files: int = 0
    requests: int = 0  # the super user's open checkout requests (``account/requests`` is unpaged)
    busy_accessory_id: int | None = None  # the accessory with the most checkout rows
    busy_rows: int = 0
    checkout_accessory_id: int | None = None  # the busiest accessory with a unit left (checkout + checkin)
    checkout_accessory_rows: int = 0
    custom: dict | None = None  # issue 15: the custom field scenarios' columns and values (prepare_custom)


def prepare_fixture(n_assets: int, needed_checkouts: int, user=None, taken: tuple[int, ...] = ()) -> Fixture:
    """The ids the hardware scenarios use and a token for ``user`` (default the super user ``admin``). A user of a
    company (company separation on) sees that company's assets only: the filters, the deep page, the detail ids and
    the assets to check out (not in ``taken``, another caller's) come from them, and the checkout goes to a person of
    the same company. The ``company_id=`` filter names the user's company, for ``admin`` the benchmark company."""
    import random

    from accounts.models import User
    from accounts.services import personal_token_issue
    from assetsvc.api import keyset
    from benchmarks.seed import SEARCH_FAMILY
    from inventory.models import Asset, AssetModel, StatusLabel

    admin = User.objects.get(username="admin", deleted_at__isnull=True)
    user = user or admin
    _, token = personal_token_issue(user=user, name="benchmark")
    alive = Asset.objects.filter(deleted_at__isnull=True)
    company_id = user.company_id or bench_company_id()
    if user.company_id is not None:
        alive = alive.filter(company_id=user.company_id)
        n_assets = alive.exclude(status__type="archived").count()  # what the lists show, for the deep page
    # The most common model and location: filters that still return many pages.
    model_id, model_total = most_common(alive, "model_id")
    location_id, location_total = most_common(alive, "location_id")
    status = StatusLabel.objects.get(name="Pending")
    search = SEARCH_FAMILY.lower()
    all_ids = list(alive.values_list("id", flat=True))
    # The cursor of the page 90% deep: the last row before it, as the page before would have handed it out.
    newest = alive.exclude(status__type="archived").order_by("-created_at", "-id")
    deep_row = newest.values_list("created_at", "id")[max(0, n_assets * 9 // 10 // 50 * 50 - 1)]
    deep_cursor = keyset.encode_cursor(keyset.keyset_of(newest), deep_row)
    detail_ids = random.Random(7).sample(all_ids, min(200, len(all_ids)))
    checkout_ids = list(alive.available().exclude(id__in=taken).order_by("-id")
                        .values_list("id", flat=True)[:needed_checkouts])
    if len(checkout_ids) < needed_checkouts:
        sys.exit(f"only {len(checkout_ids)} available assets for {needed_checkouts} checkouts; seed more assets")
    people = User.objects.exclude(pk__in=[admin.pk, user.pk]).filter(deleted_at__isnull=True)
    if user.company_id is not None:
        people = people.filter(company_id=user.company_id)
    fx = Fixture(
        token=token, n_assets=n_assets, user_id=people.order_by("id").values_list("id", flat=True)[0],
        search=search, search_total=alive.filter(model__in=AssetModel.objects.filter(name__icontains=search)).count(),
        model_id=model_id, model_total=model_total, status_id=status.pk,
        status_total=alive.filter(status=status).count(), company_id=company_id,
        company_total=alive.filter(company_id=company_id).count(), location_id=location_id,
        location_total=location_total, detail_ids=detail_ids, checkout_ids=checkout_ids, deep_cursor=deep_cursor,
    )
    if user == admin:
        prepare_stock(fx)
    prepare_custom(fx, alive.exclude(status__type="archived"))
    return fx


def prepare_custom(fx: Fixture, listed) -> None:
    """Issue 15 (``benchmarks/seed.py`` ``_seed_custom_fields``): a MAC address one listed asset holds (the exact
    filter finding one row), the most common OS version (the exact filter finding many), a substring of it for
    ``filter=``, the numeric column to sort by, and 500 assets with values for the bulk update."""
    from django.db.models import Count

    from inventory.models import AssetFieldValue, CustomField

    columns = dict(CustomField.objects.values_list("name", "db_column_name"))
    if "MAC Address" not in columns:
        return
    shown = AssetFieldValue.objects.filter(asset__in=listed)
    mac = shown.filter(field__name="MAC Address").order_by("asset_id").values_list("value", flat=True)
    mac_value = mac[mac.count() // 2]
    common = (shown.filter(field__name="OS Version").values("value").order_by().annotate(n=Count("id"))
              .order_by("-n", "value").first())
    bulk_ids = list(shown.filter(field__name="OS Version", asset__deleted_at__isnull=True).order_by("-asset_id")
                    .values_list("asset_id", flat=True)[:500])
    fx.custom = {"mac": (columns["MAC Address"], mac_value), "os": (columns["OS Version"], common["value"]),
                 "os_total": common["n"], "ram": columns["RAM GB"], "bulk_ids": bulk_ids}


def most_common(assets, column: str) -> tuple[int, int]:
    """The value of ``column`` most assets share, and how many share it."""
    from django.db.models import Count

    row = assets.exclude(**{column: None}).values(column).order_by().annotate(n=Count("id")).order_by("-n", column)[0]
    return row[column], row["n"]


def bench_company_id() -> int:
    """The company of the ``company_id=`` filter and of the company user: the first seeded one (each of the five holds
    about a fifth of the assets)."""
    from companies.models import Company

    return Company.objects.order_by("id").values_list("id", flat=True)[0]


def company_user():
    """A user of the benchmark company, not a super user, allowed to view, check out and check in assets (created
    once; a kept database keeps it)."""
    from accounts.models import User

    user, _ = User.objects.update_or_create(
        username="bench.company", defaults={
            "first_name": "Bench", "last_name": "Company", "email": "bench.company@example.com",
            "company_id": bench_company_id(),
            "permissions": {"assets.view": 1, "assets.checkout": 1, "assets.checkin": 1},
        })
    return user


def portal_scenario() -> Scenario | None:
    """Issue 32: ``GET /account/``, the employees' "My items" page, as the seeded person who holds the most assets
    (with their accessories, consumables, seats and the histories of all of them), signed in with a session. The
    answer must be the page with one asset card per asset they hold."""
    import re

    from django.db.models import Count, Q

    from accounts.models import User

    person = (User.objects.filter(deleted_at__isnull=True, is_active=True)
              .annotate(n=Count("assigned_assets", filter=Q(assigned_assets__deleted_at__isnull=True)))
              .order_by("-n", "pk").first())
    if person is None or not person.n:
        return None
    held = person.n

    def check(status: int, text) -> str | None:
        if status != 200 or not isinstance(text, str) or "<h1>My items</h1>" not in text:
            return f"HTTP {status}: {str(text)[:200]}"
        section = text.split('id="assets-heading"', 1)[-1].split("</section>", 1)[0]
        cards = len(re.findall(r'<li class="card">', section))
        if not 0 < cards <= held:
            return f"{cards} asset cards for the {held} assets held"
        return None

    return Scenario(f"GET /account/ (My items, a person holding {held} assets)", lambda i: ("GET", "/account/", None),
                    check, cookie=signed_in(person))


def company_admin():
    """A company administrator of the benchmark company (``{"admin": 1}``, not a super user): the back office's
    start page with company separation on shows them their company's numbers (created once; a kept database keeps
    it)."""
    from accounts.models import User

    user, _ = User.objects.update_or_create(
        username="bench.company.admin", defaults={
            "first_name": "Bench", "last_name": "Company Admin", "email": "bench.company.admin@example.com",
            "company_id": bench_company_id(), "permissions": {"admin": 1},
        })
    return user


def signed_in(user) -> str:
    """The key of a fresh session of ``user`` (a database session, as a sign-in through ``/admin/login/`` makes;
    gunicorn reads it from the same database with the same ``SECRET_KEY``)."""
    from django.conf import settings
    from django.test import Client

    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(user)
    return browser.cookies[settings.SESSION_COOKIE_NAME].value


#: The dashboard's cards as the start page renders them (``templates/admin/inventory/dashboard.html``).
DASHBOARD_CARD = r'<a class="dashboard-card[^"]*" href="[^"]*" data-card="([^"]+)">\s*<span class="value">(\d+)</span>'


def dashboard_scenario(user, who: str, shown: dict) -> Scenario:
    """Issue 28: ``GET /admin/``, the back office's start page with its dashboard, as ``user`` signed in with a
    session. The answer must be the page (HTTP 200, not the sign-in redirect) with the dashboard in it and its
    "Assets" card equal to the live assets ``user`` may see (counted here, with the separation as it is when the
    scenario runs); ``shown`` receives the cards of the last answer, for the report."""
    import re

    from inventory.models import Asset

    expected: dict[str, int] = {}

    def check(status: int, text) -> str | None:
        if status != 200 or not isinstance(text, str) or 'id="dashboard"' not in text:
            return f"HTTP {status}: {str(text)[:200]}"
        cards = {label: int(value) for label, value in re.findall(DASHBOARD_CARD, text)}
        if "assets" not in expected:  # first answer: the separation the scenario runs with is on (or off)
            expected["assets"] = Asset.objects.restrict(user).alive().count()
        if cards.get("Assets") != expected["assets"]:
            return f"the Assets card says {cards.get('Assets')}, expected {expected['assets']}"
        shown.clear()
        shown.update(cards)
        return None

    return Scenario(f"GET /admin/ (dashboard, {who})", lambda i: ("GET", "/admin/", None), check,
                    cookie=signed_in(user))


def cards_line(cards: dict) -> str:
    return ", ".join(f"{label} {value:,}" for label, value in cards.items())


@contextlib.contextmanager
def company_separation():
    """Company separation on (the site setting ``full_multiple_companies_support``, which every request reads, never
    cached) while the company user's scenarios run; off again afterwards, as the other scenarios run."""
    from assetsvc.models import SiteSettings

    def switch(on: bool) -> None:
        settings = SiteSettings.load()
        settings.full_multiple_companies_support = on
        settings.save(update_fields=["full_multiple_companies_support", "updated_at"])

    switch(True)
    try:
        yield
    finally:
        switch(False)


def prepare_stock(fx: Fixture) -> None:
    """The accessories the stock scenarios use: the one with the most checkout rows (``checkedout``), and the
    busiest one with a unit left (checkout then checkin of one unit, so it never runs out)."""
    from django.db.models import Count, F

    from accounts.models import Department, User
    from activity.models import StoredFile
    from benchmarks.seed import files_asset_id
    from companies.models import Company
    from inventory.models import (
        Accessory,
        AccessoryCheckout,
        Component,
        Consumable,
        Depreciation,
        ImportFile,
        Kit,
        License,
        Maintenance,
    )
    from inventory.services import requests as checkout_requests
    from inventory.services.stock import ACCESSORY

    fx.accessories = Accessory.objects.filter(deleted_at__isnull=True).count()
    fx.consumables = Consumable.objects.filter(deleted_at__isnull=True).count()
    fx.components = Component.objects.filter(deleted_at__isnull=True).count()
    fx.licenses = License.objects.filter(deleted_at__isnull=True).count()
    fx.maintenances = Maintenance.objects.filter(deleted_at__isnull=True).count()
    fx.companies = Company.objects.count()
    fx.users = User.objects.filter(deleted_at__isnull=True).count()
    fx.departments = Department.objects.count()
    fx.depreciations = Depreciation.objects.count()
    fx.kits = Kit.objects.count()
    fx.imports = ImportFile.objects.count()
    fx.files_asset_id = files_asset_id()
    fx.files = StoredFile.objects.for_record("asset", fx.files_asset_id).count() if fx.files_asset_id else 0
    admin = User.objects.get(username="admin", deleted_at__isnull=True)
    fx.requests = checkout_requests.open_requests_of(admin).count()
    if not fx.accessories:
        return
    busy = (AccessoryCheckout.objects.values("accessory_id").order_by().annotate(n=Count("id"))
            .order_by("-n", "accessory_id").first())
    if busy:
        fx.busy_accessory_id, fx.busy_rows = busy["accessory_id"], busy["n"]
    left = (Accessory.objects.filter(deleted_at__isnull=True).annotate(units_out=ACCESSORY.assigned_subquery())
            .filter(qty__gt=F("units_out")).order_by("-units_out", "id").first())
    if left is not None:
        fx.checkout_accessory_id = left.pk
        fx.checkout_accessory_rows = AccessoryCheckout.objects.filter(accessory=left).count()


def list_check(expected_rows: int | None = None):
    def check(status: int, body) -> str | None:
        if status != 200 or not isinstance(body, dict) or "rows" not in body or "total" not in body:
            return f"HTTP {status}: {str(body)[:200]}"
        if expected_rows is not None and len(body["rows"]) != expected_rows:
            return f"expected {expected_rows} rows, got {len(body['rows'])} (total {body['total']})"
        return None

    return check


def array_check(expected_rows: int):
    """An unpaged list answered as a bare JSON array (``GET /imports``, as Snipe-IT's)."""
    def check(status: int, body) -> str | None:
        if status != 200 or not isinstance(body, list):
            return f"HTTP {status}: {str(body)[:200]}"
        if len(body) != expected_rows:
            return f"expected {expected_rows} rows, got {len(body)}"
        return None

    return check


def record_check(status: int, body) -> str | None:
    if status != 200 or not isinstance(body, dict) or "asset_tag" not in body:
        return f"HTTP {status}: {str(body)[:200]}"
    return None


def action_check(status: int, body) -> str | None:
    if status != 200 or not isinstance(body, dict) or body.get("status") != "success":
        return f"HTTP {status}: {str(body)[:200]}"
    return None


def scenarios(fx: Fixture, stock: bool = True) -> list[Scenario]:
    """The timed scenarios (``stock``: with the other kinds' scenarios). Each checkout takes the next asset that is
    in (query counting and HTTP timing draw from the same pool, so no asset is used twice) and the checkin that
    follows returns that same asset."""
    deep = (fx.n_assets * 9 // 10) // 50 * 50
    pool = iter(fx.checkout_ids)
    current: dict[str, int] = {}

    def checkout(i):
        current["id"] = next(pool)
        body = {"assigned_user": fx.user_id, "checkout_to_type": "user", "note": "bench"}
        return "POST", f"/api/v1/hardware/{current['id']}/checkout", body

    def checkin(i):
        return "POST", f"/api/v1/hardware/{current['id']}/checkin", {"note": "bench"}

    def get(path):
        return lambda i: ("GET", path, None)

    def me_check(status, body):
        return None if status == 200 and isinstance(body, dict) and "username" in body else f"HTTP {status}"

    hardware = [
        Scenario("GET /users/me (baseline)", get("/api/v1/users/me"), me_check),
        Scenario("GET /hardware?limit=50", get("/api/v1/hardware?limit=50"), list_check(50), floor=True),
        Scenario("GET /hardware?limit=500", get("/api/v1/hardware?limit=500"),
                 list_check(500 if fx.n_assets >= 1000 else None), floor=True),
        Scenario(f"GET /hardware?search={fx.search} ({fx.search_total:,} rows)",
                 get(f"/api/v1/hardware?search={fx.search}&limit=50"), list_check()),
        Scenario(f"GET /hardware?model_id=.. ({fx.model_total:,} rows)",
                 get(f"/api/v1/hardware?model_id={fx.model_id}&limit=50"), list_check()),
        Scenario(f"GET /hardware?status_id=.. ({fx.status_total:,} rows)",
                 get(f"/api/v1/hardware?status_id={fx.status_id}&limit=50"), list_check()),
        Scenario(f"GET /hardware?company_id=.. ({fx.company_total:,} rows)",
                 get(f"/api/v1/hardware?company_id={fx.company_id}&limit=50"), list_check()),
        Scenario(f"GET /hardware?location_id=.. ({fx.location_total:,} rows)",
                 get(f"/api/v1/hardware?location_id={fx.location_id}&limit=50"), list_check()),
        Scenario(f"GET /hardware?offset={deep}&limit=50", get(f"/api/v1/hardware?offset={deep}&limit=50"),
                 list_check(50), floor=True),
        Scenario("GET /hardware?cursor=<90% deep>&limit=50",
                 get(f"/api/v1/hardware?cursor={fx.deep_cursor}&limit=50"), list_check(50)),
        Scenario("GET /hardware/{id}",
                 lambda i: ("GET", f"/api/v1/hardware/{fx.detail_ids[i % len(fx.detail_ids)]}", None), record_check,
                 floor=True),
        Scenario("POST /hardware/{id}/checkout", checkout, action_check, pair="POST /hardware/{id}/checkin"),
        Scenario("POST /hardware/{id}/checkin", checkin, action_check),
    ]
    return hardware + custom_scenarios(fx, bulk=stock) + (stock_scenarios(fx) if stock else [])


def custom_scenarios(fx: Fixture, *, bulk: bool) -> list[Scenario]:
    """Issue 15: the exact filter by a custom column (one row: a MAC address; many rows: the commonest OS version),
    the substring ``filter=``, the sort by a NUMERIC field, and (``bulk``: the super user) a bulk update of 500
    assets writing one custom field (20 timed requests after one warm-up)."""
    from urllib.parse import urlencode

    if not fx.custom:
        return []
    (mac, mac_value), (os_column, os_value) = fx.custom["mac"], fx.custom["os"]

    def get(params):
        return lambda i: ("GET", "/api/v1/hardware?" + urlencode({**params, "limit": 50}), None)

    found = [
        Scenario("GET /hardware?<MAC column>=.. (1 row)", get({mac: mac_value.lower()}), list_check(1)),
        Scenario(f"GET /hardware?<OS column>=.. ({fx.custom['os_total']:,} rows)", get({os_column: os_value}),
                 list_check()),
        Scenario("GET /hardware?filter={<OS column>: 'macos'}", get({"filter": json.dumps({os_column: "macos"})}),
                 list_check()),
        Scenario("GET /hardware?sort=<RAM column>&order=asc", get({"sort": fx.custom["ram"], "order": "asc"}),
                 list_check(50)),
    ]
    if bulk and len(fx.custom["bulk_ids"]) == 500:
        body = {"ids": fx.custom["bulk_ids"]}

        def bulk_update(i):
            return "PATCH", "/api/v1/hardware/bulk", {**body, os_column: f"Bench OS {i}"}

        found.append(Scenario("PATCH /hardware/bulk (500 ids, one _snipeit_* value)", bulk_update, action_check,
                              runs=20))
    return found


def stock_scenarios(fx: Fixture) -> list[Scenario]:
    """The other kinds: the accessory list (default sort, 500 rows, sorted by the ``remaining`` annotation), the
    checkout rows of the busiest accessory, a checkout of one unit followed by the checkin of the row it made (the
    checkout's answer names the row), and the first page of the consumable, component, license, company and user
    lists."""
    if not fx.accessories:
        return []
    current: dict[str, int] = {}

    def get(path):
        return lambda i: ("GET", path, None)

    def checkout(i):
        body = {"assigned_user": fx.user_id, "checkout_qty": 1, "note": "bench"}
        return "POST", f"/api/v1/accessories/{fx.checkout_accessory_id}/checkout", body

    def remember_row(body) -> None:
        current["row"] = body["payload"]["id"]

    def checkin(i):
        return "POST", f"/api/v1/accessories/{current['row']}/checkin", {"note": "bench"}

    page = min(50, fx.accessories)
    found = [
        Scenario(f"GET /accessories?limit=50 ({fx.accessories:,} rows)", get("/api/v1/accessories?limit=50"),
                 list_check(page)),
        Scenario("GET /accessories?limit=500", get("/api/v1/accessories?limit=500"),
                 list_check(min(500, fx.accessories))),
        Scenario("GET /accessories?sort=remaining", get("/api/v1/accessories?sort=remaining&limit=50"),
                 list_check(page)),
    ]
    if fx.busy_accessory_id is not None:
        found.append(Scenario(f"GET /accessories/{{id}}/checkedout ({fx.busy_rows:,} rows)",
                              get(f"/api/v1/accessories/{fx.busy_accessory_id}/checkedout"),
                              list_check(min(50, fx.busy_rows))))
    if fx.checkout_accessory_id is not None:
        found += [
            Scenario(f"POST /accessories/{{id}}/checkout ({fx.checkout_accessory_rows:,} rows)", checkout,
                     action_check, pair="POST /accessories/{row}/checkin", answered=remember_row),
            Scenario("POST /accessories/{row}/checkin", checkin, action_check),
        ]
    for kind, count in (("consumables", fx.consumables), ("components", fx.components), ("licenses", fx.licenses),
                        ("maintenances", fx.maintenances),
                        ("companies", fx.companies), ("users", fx.users), ("departments", fx.departments),
                        ("depreciations", fx.depreciations), ("kits", fx.kits)):
        if count:
            found.append(Scenario(f"GET /{kind}?limit=50 ({count:,} rows)", get(f"/api/v1/{kind}?limit=50"),
                                  list_check(min(50, count))))
    if fx.depreciations:
        found.append(Scenario("GET /reports/depreciation?limit=50", get("/api/v1/reports/depreciation?limit=50"),
                              list_check(50)))
    if fx.imports:  # unpaged, as Snipe-IT's: every upload the caller may see
        found.append(Scenario(f"GET /imports ({fx.imports:,} rows, unpaged)", get("/api/v1/imports"),
                              array_check(fx.imports), runs=UNPAGED_RUNS))
    if fx.files:  # the older per-type path and Snipe-IT v8.5's /{object_type}/{id}/files, the same asset
        for prefix in ("hardware", "assets"):
            found.append(Scenario(f"GET /{prefix}/{{id}}/files?limit=50 ({fx.files:,} rows)",
                                  get(f"/api/v1/{prefix}/{fx.files_asset_id}/files?limit=50"),
                                  list_check(min(50, fx.files))))
    if fx.requests:  # unpaged, as Snipe-IT's: all the caller's open requests
        found.append(Scenario(f"GET /account/requests ({fx.requests:,} rows, unpaged)",
                              get("/api/v1/account/requests"), list_check(fx.requests), runs=UNPAGED_RUNS))
    return found


# ------------------------------------------------------------------------------------- in-process query counts


def count_queries(found: list[Scenario], fx: Fixture, explain: Path | None, kind: str) -> None:
    """One warm-up and one captured request per scenario through Django's test client (same database, same
    settings), so the count is exactly what gunicorn runs for that request."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {fx.token}")
    by_name = {s.name: s for s in found}
    plans: list[str] = []

    def call(scenario: Scenario, i: int):
        method, path, body = scenario.build(i)
        if scenario.cookie:  # a back-office page: the session alone, the answer as HTML
            browser = Client(HTTP_HOST="127.0.0.1")
            browser.cookies[settings.SESSION_COOKIE_NAME] = scenario.cookie
            response = browser.generic(method, path)
            return response.status_code, response.content.decode()
        if method == "GET":
            response = client.get(path)
        else:
            response = client.generic(method, path, data=json.dumps(body), content_type="application/json")
        try:
            payload = response.json()
        except ValueError:
            payload = response.content[:200]
        return response.status_code, payload

    paired = {s.pair for s in found if s.pair}
    for scenario in found:
        if scenario.name in paired:
            continue
        group = [scenario] + ([by_name[scenario.pair]] if scenario.pair else [])
        for member in group:  # warm-up (iteration 0)
            if member.status != "ok":  # the first of a pair failed: its partner has nothing to act on
                continue
            status, payload = call(member, 0)
            problem = member.check(status, payload) if member.check else None
            if problem:
                member.status = problem
            elif member.answered:
                member.answered(payload)
        for member in group:  # measured (iteration 1)
            if member.status != "ok":
                continue
            timer = QueryTimer()
            with CaptureQueriesContext(connection) as captured, connection.execute_wrapper(timer):
                status, payload = call(member, 1)
            problem = member.check(status, payload) if member.check else None
            if problem:
                member.status = problem
                continue
            if member.answered:
                member.answered(payload)
            member.queries = len(captured.captured_queries)
            member.sql_ms = timer.total_ms(connection)
            member.sql = [q["sql"] for q in captured.captured_queries]
            if explain is not None:
                plans.append(explain_queries(member, connection, kind))
    if explain is not None:
        explain.write_text("\n".join(plans))


class QueryTimer:
    """``connection.execute_wrapper`` that records every statement of a request, so its database time can be
    measured: a SELECT is replayed afterwards (best of three, all rows fetched; SQLite reads rows lazily, so timing
    ``execute`` alone would miss most of the work), a write counts with the time its ``execute`` took."""

    def __init__(self):
        self.statements: list[tuple[str, object, bool, float]] = []

    def __call__(self, execute, sql, params, many, context):
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.statements.append((sql, params, many, time.perf_counter() - began))

    def total_ms(self, connection) -> float:
        total = 0.0
        for sql, params, many, seconds in self.statements:
            if many or not sql.lstrip().upper().startswith("SELECT"):
                total += seconds
                continue
            replays = []
            for _ in range(3):
                with connection.cursor() as cursor:
                    began = time.perf_counter()
                    cursor.execute(sql, params)
                    cursor.fetchall()
                    replays.append(time.perf_counter() - began)
            total += min(replays)
        return total * 1000


def explain_queries(scenario: Scenario, connection, kind: str) -> str:
    lines = [f"=== {scenario.name}"]
    for sql in scenario.sql:
        lines.append(f"--- {sql}")
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        prefix = "EXPLAIN QUERY PLAN " if kind == "sqlite" else "EXPLAIN (ANALYZE, BUFFERS) "
        try:
            with connection.cursor() as cursor:
                cursor.execute(prefix + sql)
                rows = cursor.fetchall()
        except Exception as exc:  # noqa: BLE001 - a plan we cannot get is reported, not fatal
            lines.append(f"    (no plan: {exc})")
            continue
        lines.extend("    " + " | ".join(str(c) for c in row) for row in rows)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------- HTTP timing


@dataclass
class Server:
    base: str
    command: list[str]
    process: subprocess.Popen


@contextlib.contextmanager
def gunicorn(app: str, env: dict[str, str], token: str, *, threads: int, workers: int = 1, cwd: Path = ROOT,
             name: str = "product"):
    """Run gunicorn serving ``app`` (``workers`` processes of ``threads`` threads) from ``cwd`` on a free loopback
    port, until it answers ``GET /api/v1/hardware?limit=1`` (the product and the floor both do); always stopped."""
    import requests

    from tests.live import free_port

    port = free_port()
    RESULTS.mkdir(parents=True, exist_ok=True)
    log_path = RESULTS / f"gunicorn-{name}.log"
    # The gunicorn of the interpreter running this script (``make bench`` runs ``$(BIN)/python``), so a checkout
    # without its own .venv (a git worktree) benchmarks with the environment it was started with.
    command = [str(Path(sys.executable).parent / "gunicorn"), app, "--bind", f"127.0.0.1:{port}",
               "--workers", str(workers), "--threads", str(threads), "--graceful-timeout", "5",
               "--log-level", "warning"]
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn ({name}) exited with {process.returncode}; see {log_path}")
            try:
                response = requests.get(f"{base}/api/v1/hardware?limit=1",
                                        headers={"Authorization": f"Bearer {token}"}, timeout=5)
                if response.status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn ({name}) did not answer within 60 s; see {log_path}")
            time.sleep(0.2)
        yield Server(base, command, process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def floor_directory(args, kind: str) -> Path | None:
    """The directory of the team's floor (``floor_http.py``), or None (with a note) when it is absent or the
    database is SQLite (the floor reads PostgreSQL only)."""
    if args.no_floor:
        return None
    folder = Path(args.floor_dir) if args.floor_dir else ROOT.parent / "shared" / "bench"
    if kind != "postgresql":
        print("  floor: skipped (the floor reads PostgreSQL only)")
        return None
    if not (folder / "floor_http.py").is_file():
        print(f"  floor: skipped ({folder / 'floor_http.py'} not found; --floor-dir names its directory)")
        return None
    return folder.resolve()


def floor_env(env: dict[str, str]) -> dict[str, str]:
    """The product's environment plus the floor's own: its database, as a libpq URL."""
    url = env["DATABASE_URL"]
    return {**env, "FLOOR_DSN": "postgresql://" + url.split("://", 1)[1]}


def client_session(token: str):
    import requests

    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {token}", "Accept": "application/json"})
    return session


def browser_session(cookie: str):
    """A keep-alive client of the back office: the session cookie, HTML accepted, no token."""
    import requests
    from django.conf import settings

    session = requests.Session()
    session.headers.update({"Accept": "text/html"})
    session.cookies.set(settings.SESSION_COOKIE_NAME, cookie)
    return session


def row_ids(body) -> list:
    """The ids an answer carries, in order (a list's rows, or a record), to check the floor answers the same."""
    if isinstance(body, dict) and "rows" in body:
        return [row.get("id") for row in body["rows"]]
    return [body.get("id")] if isinstance(body, dict) else []


def time_scenarios(found: list[Scenario], base: str, token: str, requests_n: int, warmup: int,
                   floor: str | None = None) -> None:
    """Time every scenario with one keep-alive client; with ``floor`` (the floor's base URL), each request of a
    ``floor`` scenario goes to the product and then the same request to the floor (as ``pair.py`` does, so machine
    noise lands on both), and both must answer the same ids in the same order."""
    session = client_session(token)
    floor_session = client_session(token) if floor else None
    pages = {}  # one keep-alive browser session per back-office scenario's cookie, without the token
    by_name = {s.name: s for s in found}
    paired = {s.pair for s in found if s.pair}

    def timed(client, method: str, url: str, body) -> tuple[float, int, object]:
        began = time.perf_counter()
        response = client.request(method, url, json=body, timeout=120)
        payload = response.json()  # the body is read in full inside the timing
        return (time.perf_counter() - began) * 1000, response.status_code, payload

    def timed_page(cookie: str, method: str, url: str) -> tuple[float, int, str]:
        if cookie not in pages:
            pages[cookie] = browser_session(cookie)
        began = time.perf_counter()
        response = pages[cookie].request(method, url, timeout=120, allow_redirects=False)
        text = response.text  # read in full inside the timing
        return (time.perf_counter() - began) * 1000, response.status_code, text

    def call(scenario: Scenario, i: int) -> tuple[float, float | None]:
        method, path, body = scenario.build(i)
        if scenario.cookie:
            elapsed, status, text = timed_page(scenario.cookie, method, base + path)
            problem = scenario.check(status, text) if scenario.check else None
            if problem:
                raise ScenarioFailed(problem)
            return elapsed, None
        elapsed, status, payload = timed(session, method, base + path, body)
        problem = scenario.check(status, payload) if scenario.check else None
        if problem:
            raise ScenarioFailed(problem)
        if scenario.answered:
            scenario.answered(payload)
        if not (floor and scenario.floor):
            return elapsed, None
        floor_elapsed, floor_status, floor_payload = timed(floor_session, method, floor + path, body)
        if floor_status != 200:
            raise ScenarioFailed(f"floor: HTTP {floor_status}: {str(floor_payload)[:200]}")
        if row_ids(payload) != row_ids(floor_payload):
            raise ScenarioFailed("the product and the floor answer different rows")
        return elapsed, floor_elapsed

    for scenario in found:
        if scenario.name in paired:
            continue
        group = [scenario] + ([by_name[scenario.pair]] if scenario.pair else [])
        if any(member.status != "ok" for member in group):
            continue
        first, runs = (1, scenario.runs) if scenario.runs else (warmup, requests_n)
        try:
            for i in range(first + runs):
                for member in group:
                    elapsed, floor_elapsed = call(member, i)
                    if i >= first:
                        member.timings.append(elapsed)
                        if floor_elapsed is not None:
                            member.floor_timings.append(floor_elapsed)
        except ScenarioFailed as exc:
            for member in group:
                member.status = str(exc)
                member.timings.clear()
                member.floor_timings.clear()
        print(f"  timed {' + '.join(m.name for m in group)}", flush=True)


class ScenarioFailed(Exception):
    pass


# ---------------------------------------------------------------------------------------------------- throughput


def drive(base: str, token: str, path_of, *, clients: int, seconds: float | None = None,
          count: int | None = None) -> tuple[int, float]:
    """``clients`` threads, each with its own keep-alive session, send ``GET base + path_of(i)`` until ``seconds``
    have passed or ``count`` requests were sent; every answer must be a 200. Returns (requests, seconds taken)."""
    import itertools
    import threading

    numbers = itertools.count()
    deadline = time.monotonic() + seconds if seconds else None
    failures: list[str] = []
    done = [0] * clients

    def client(k: int) -> None:
        session = client_session(token)
        while not failures:
            i = next(numbers)
            if (count is not None and i >= count) or (deadline is not None and time.monotonic() >= deadline):
                return
            response = session.get(base + path_of(i), timeout=120)
            response.content  # noqa: B018 - read the whole body
            if response.status_code != 200:
                failures.append(f"HTTP {response.status_code}: {response.text[:200]}")
            done[k] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise ScenarioFailed(failures[0])
    return sum(done), time.perf_counter() - began


def workers_rss_mib(server: Server) -> list[float]:
    """Resident memory (VmRSS) of each of gunicorn's worker processes, in MiB."""
    from tests.live import child_pids, rss_kib

    return [round(rss_kib(pid) / 1024, 1) for pid in sorted(child_pids(server.process.pid))]


def measure_throughput(env: dict[str, str], fx: Fixture, args, floor: Path | None) -> dict:
    """Requests per second of ``GET /hardware?limit=50`` and ``GET /hardware/{id}`` with ``--clients`` concurrent
    clients for ``--throughput-seconds`` each, on the product and then on the floor, both served by ``--workers``
    gunicorn worker processes of ``--threads`` threads; and the product's worker memory before and after 1,000
    ``limit=500`` requests."""
    paths = {
        "GET /hardware?limit=50": lambda i: "/api/v1/hardware?limit=50",
        "GET /hardware/{id}": lambda i: f"/api/v1/hardware/{fx.detail_ids[i % len(fx.detail_ids)]}",
    }
    servers = [("product", "assetsvc.wsgi", env, ROOT)]
    if floor is not None:
        servers.append(("floor", "floor_http:app", floor_env(env), floor))
    result: dict = {"rps": {name: {} for name in paths}, "memory_mib": {}}
    for server_name, app, server_env, cwd in servers:
        with gunicorn(app, server_env, fx.token, threads=args.threads, workers=args.workers, cwd=cwd,
                      name=f"{server_name}-throughput") as server:
            for name, path_of in paths.items():
                drive(server.base, fx.token, path_of, clients=args.clients, count=4 * args.clients)  # warm-up
                sent, took = drive(server.base, fx.token, path_of, clients=args.clients,
                                   seconds=args.throughput_seconds)
                result["rps"][name][server_name] = round(sent / took, 1)
                print(f"  throughput {server_name} {name}: {sent / took:.1f} requests/s", flush=True)
            if server_name == "product":
                before = workers_rss_mib(server)
                drive(server.base, fx.token, lambda i: "/api/v1/hardware?limit=500", clients=args.clients,
                      count=1000)
                result["memory_mib"] = {"before": before, "after": workers_rss_mib(server)}
    return result


def throughput_table(result: dict) -> str:
    floor = any("floor" in by_server for by_server in result["rps"].values())
    lines = ["| scenario | product req/s |" + (" floor req/s | product/floor |" if floor else ""),
             "|---|---:|" + ("---:|---:|" if floor else "")]
    for name, by_server in result["rps"].items():
        line = f"| {name} | {by_server['product']:.1f} |"
        if floor:
            line += f" {by_server['floor']:.1f} | {by_server['product'] / by_server['floor']:.2f} |"
        lines.append(line)
    memory = result["memory_mib"]
    lines.append(f"product worker RSS (MiB, per worker): {memory['before']} before, {memory['after']} after "
                 f"1,000 GET /hardware?limit=500")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------- reporting


def percentile(values: list[float], pct: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def table(found: list[Scenario]) -> str:
    """The markdown table; with the floor's columns when some scenario was timed against the floor."""
    width = max(len(s.name) for s in found)
    floor = any(s.floor_timings for s in found)
    lines = [f"| {'scenario':<{width}} | p50 ms | p95 ms | SQL queries | SQL ms |"
             + (" floor p50 | floor p95 | ratio p50 | ratio p95 |" if floor else ""),
             f"|{'-' * (width + 2)}|-------:|-------:|------------:|-------:|"
             + ("----------:|----------:|----------:|----------:|" if floor else "")]
    for s in found:
        if s.status != "ok" or not s.timings:
            lines.append(f"| {s.name:<{width}} | {'n/a':>6} | {'n/a':>6} | {'n/a':>11} | {'n/a':>6} |"
                         + (f" {'':>9} |" * 4 if floor else "") + f"  {s.status[:120]}")
            continue
        p50, p95 = percentile(s.timings, 50), percentile(s.timings, 95)
        line = f"| {s.name:<{width}} | {p50:6.1f} | {p95:6.1f} | {s.queries:>11} | {s.sql_ms:6.1f} |"
        if s.floor_timings:
            f50, f95 = percentile(s.floor_timings, 50), percentile(s.floor_timings, 95)
            line += f" {f50:9.1f} | {f95:9.1f} | {p50 / f50:9.2f} | {p95 / f95:9.2f} |"
        elif floor:
            line += f" {'':>9} |" * 4
        lines.append(line)
    return "\n".join(lines)


def scenario_results(found: list[Scenario]) -> list[dict]:
    def summary(timings: list[float]) -> dict:
        if not timings:
            return {"p50_ms": None, "p95_ms": None}
        return {"p50_ms": round(percentile(timings, 50), 2), "p95_ms": round(percentile(timings, 95), 2)}

    return [{"name": s.name, "status": s.status, "queries": s.queries,
             "sql_ms_one_request": round(s.sql_ms, 2) if s.sql_ms is not None else None,
             **summary(s.timings), "timings_ms": [round(t, 2) for t in s.timings],
             **({"floor": {**summary(s.floor_timings), "timings_ms": [round(t, 2) for t in s.floor_timings]}}
                if s.floor_timings else {})} for s in found]


def database_version(kind: str) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        if kind == "sqlite":
            cursor.execute("select sqlite_version()")
            return f"SQLite {cursor.fetchone()[0]}"
        cursor.execute("show server_version")
        return f"PostgreSQL {cursor.fetchone()[0]}"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


# --------------------------------------------------------------------------------------------------------- main


def seed_database(args, url: str, kind: str, began: float) -> None:
    """Migrate, then seed (or, with ``--reuse``, keep a database that already holds the wanted data) and ANALYZE."""
    from django.core.management import call_command
    from django.db import connections

    from benchmarks.seed import SeedCounts, seed
    from inventory.models import Accessory, Asset, Component

    call_command("migrate", verbosity=0, interactive=False)
    print(f"  migrated: {time.perf_counter() - began:.1f}s", flush=True)
    wanted = SeedCounts.for_assets(args.assets, args.accessories, args.kind_rows)
    if (args.reuse and Asset.objects.count() >= args.assets and Accessory.objects.count() == wanted.accessories
            and Component.objects.count() == wanted.components):
        print("  reusing the seeded database")
        return
    if args.reuse:
        connections.close_all()
        reset_database(url, kind)
        call_command("migrate", verbosity=0, interactive=False)
    seed_began = time.perf_counter()
    seed(args.assets, log=lambda msg: print(msg, flush=True), accessories=args.accessories,
         kind_rows=args.kind_rows)
    print(f"  seeded in {time.perf_counter() - seed_began:.1f}s", flush=True)
    with connections["default"].cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if kind == "postgresql" else "ANALYZE")
    print(f"  analyzed: seed and ANALYZE {time.perf_counter() - seed_began:.1f}s", flush=True)


def only(found: list[Scenario], text: str) -> list[Scenario]:
    """``--only``: the scenarios whose name contains ``text`` (a pair's partner comes with it)."""
    if not text:
        return found
    names = {s.name for s in found if text.lower() in s.name.lower()}
    names |= {s.pair for s in found if s.name in names and s.pair}
    return [s for s in found if s.name in names]


def time_csv_import(env: dict[str, str], args: argparse.Namespace) -> list[str]:
    """The set-based CSV import's figures (``--import-rows`` new assets with and without custom columns, in a
    transaction rolled back) on the seeded database, in a process of its own: its output lines."""
    only_text = args.only.lower()
    if args.import_rows <= 0 or (only_text and "import" not in only_text and "bulk" not in only_text):
        return []
    print(f"  timing the CSV import of {args.import_rows:,} rows", flush=True)
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("import_custom.py")),
                           "--rows", str(args.import_rows)], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        return [f"failed (exit {done.returncode}): {(done.stderr or done.stdout).strip().splitlines()[-1:]}"]
    return done.stdout.strip().splitlines()


def main(argv=None) -> int:
    args = parse_args(argv)
    url, kind = database_url(args)
    shown_url = url.split("@")[-1] if kind == "postgresql" else url
    needed = args.warmup + args.requests + 2
    env = configure_environment(url)
    print(f"Benchmark: {args.assets:,} assets on {kind} ({shown_url})")
    print(f"  environment: DEBUG=false, API_THROTTLE_PER_MINUTE={THROTTLE} (rate limiter never answers 429; "
          f"its counter still runs), throw-away SECRET_KEY, API_ERROR_STATUS=compat")
    began = time.perf_counter()
    ok = False
    try:
        if args.reuse:
            ensure_database(url, kind)
        else:
            reset_database(url, kind)
        import django

        django.setup()
        from django.db import connections

        from accounts.models import User

        seed_database(args, url, kind, began)
        if args.seed_only:
            print(f"total {time.perf_counter() - began:.0f}s (--seed-only: no timing)")
            return 0

        version = database_version(kind)
        fx = prepare_fixture(args.assets, needed)
        found = only(scenarios(fx), args.only)
        member = company_user()
        company_fx = prepare_fixture(args.assets, needed, user=member, taken=tuple(fx.checkout_ids))
        company_found = only(scenarios(company_fx, stock=False), args.only)
        cards: dict[str, dict] = {"super user": {}, "company admin": {}}
        admin = User.objects.get(username="admin", deleted_at__isnull=True)
        found += only([dashboard_scenario(admin, "super user", cards["super user"])], args.only)
        found += only([scenario for scenario in [portal_scenario()] if scenario is not None], args.only)
        boss = company_admin()
        company_found += only([dashboard_scenario(boss, "company admin", cards["company admin"])], args.only)
        explain = RESULTS / f"explain-{kind}-{args.assets}.txt" if args.explain else None
        count_queries(found, fx, explain, kind)
        with company_separation():
            count_queries(company_found, company_fx, explain and explain.with_stem(explain.stem + "-company"), kind)
        print("  counted SQL queries in-process", flush=True)
        floor = floor_directory(args, kind)
        connections.close_all()  # gunicorn gets the database to itself

        with gunicorn("assetsvc.wsgi", env, fx.token, threads=args.threads) as product:
            print(f"  gunicorn: {' '.join(product.command[1:])}", flush=True)
            load_before = [round(x, 2) for x in os.getloadavg()]
            with (gunicorn("floor_http:app", floor_env(env), fx.token, threads=args.threads, cwd=floor,
                           name="floor") if floor else contextlib.nullcontext()) as floor_server:
                if floor_server:
                    print(f"  floor: {floor / 'floor_http.py'}, same gunicorn settings, timed interleaved")
                time_scenarios(found, product.base, fx.token, args.requests, args.warmup,
                               floor=floor_server.base if floor_server else None)
            with company_separation():
                connections.close_all()
                time_scenarios(company_found, product.base, company_fx.token, args.requests, args.warmup)
            connections.close_all()
            load_after = [round(x, 2) for x in os.getloadavg()]
        rates = measure_throughput(env, fx, args, floor) if args.throughput else None
        imports = time_csv_import(env, args)

        summary = (f"{args.assets:,} assets, {fx.accessories:,} accessories, {fx.consumables:,} consumables, "
                   f"{fx.components:,} components, {fx.licenses:,} licenses, {fx.companies:,} companies, "
                   f"{fx.users:,} users, {fx.departments:,} departments, {fx.kits:,} kits, {fx.imports:,} imports, "
                   f"{fx.files:,} files on one asset, {fx.requests:,} open checkout requests, "
                   f"{version}, {os.cpu_count()} CPU ({cpu_model()}), Python {platform.python_version()}, "
                   f"gunicorn 1 worker x {args.threads} threads, {args.requests} timed requests per scenario after "
                   f"{args.warmup} warm-ups, one client, keep-alive; load average "
                   f"{load_before[0]:.2f} before timing, {load_after[0]:.2f} after")
        company_summary = (f"As a company user (company separation on: full_multiple_companies_support; "
                           f"{member.username}, not a super user, assets.view/checkout/checkin, in a company whose "
                           f"hardware list shows {company_fx.n_assets:,} assets; the dashboard as "
                           f"{boss.username}, the same company's administrator, permissions {{\"admin\": 1}})")
        print()
        print(summary)
        print(table(found))
        print()
        if company_found:
            print(company_summary)
            print(table(company_found))
        for who, shown in cards.items():
            if shown:
                print(f"Dashboard of the {who}: {cards_line(shown)}")
        print("SQL queries and SQL ms: one in-process request per scenario (Django test client, same database); "
              "p50/p95: over HTTP" + ("; floor: ../shared/bench/floor_http.py, ratio = product / floor" if floor
                                       else ""))
        if rates:
            print()
            print(f"Throughput: {args.workers} gunicorn workers x {args.threads} threads each, {args.clients} "
                  f"concurrent keep-alive clients, {args.throughput_seconds:g} s per scenario")
            print(throughput_table(rates))
        if imports:
            print()
            print("CSV import of new assets (benchmarks/import_custom.py, rolled back; issue 25 item 23):")
            print("\n".join(f"  {line}" for line in imports))
        if explain is not None:
            print(f"query plans: {explain}")
        result = {
            "summary": summary, "assets": args.assets, "accessories": fx.accessories, "consumables": fx.consumables,
            "components": fx.components, "licenses": fx.licenses, "companies": fx.companies, "users": fx.users,
            "departments": fx.departments, "kits": fx.kits, "imports": fx.imports, "files": fx.files,
            "requests": fx.requests, "database": version, "kind": kind,
            "load_average": {"before": load_before, "after": load_after},
            "scenarios": scenario_results(found),
            "company_user": {"summary": company_summary, "scenarios": scenario_results(company_found)},
            "dashboard_cards": cards,
            "throughput": rates,
            "csv_import": imports,
            "seconds": round(time.perf_counter() - began, 1),
        }
        out = RESULTS / f"result-{kind}-{args.assets}.json"
        out.write_text(json.dumps(result, indent=2))
        print(f"total {time.perf_counter() - began:.0f}s; results in {out}")
        ok = all(s.status == "ok" for s in found + company_found)
    finally:
        if not args.keep:
            try:
                from django.db import connections

                connections.close_all()
            except Exception:  # noqa: BLE001,S110 - Django may not be set up yet
                pass
            drop_database(url, kind)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
