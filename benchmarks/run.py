"""One-command benchmark of the hardware, accessories, consumables and components API over HTTP against gunicorn
(issue 3 item 7, issues 10 and 11).

    .venv/bin/python benchmarks/run.py [--assets N] [--accessories A] [--database-url URL] [--requests R] [--keep]
                                       [--explain]

Steps: prepare a fresh database (a SQLite file under ``benchmarks/results/`` by default, or the PostgreSQL database
named by ``--database-url``, dropped and re-created), migrate, seed N assets with their catalogue and users, and
accessories, consumables and components with their checkout rows in proportion (``benchmarks/seed.py``), issue a
personal access token for a super user, count the SQL queries of one request per scenario in-process (Django test
client + ``CaptureQueriesContext``), then start gunicorn on a free loopback port and time every scenario with
keep-alive HTTP requests: p50 and p95 latency in milliseconds. gunicorn is always stopped at the end, and the
database is removed unless ``--keep``.

The run sets ``API_THROTTLE_PER_MINUTE`` high so the rate limiter never answers 429 (it still runs, so its cost is
part of every figure), ``DEBUG`` off and a throw-away ``SECRET_KEY``. Results are also written as JSON to
``benchmarks/results/``. See ``benchmarks/README.md`` and ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
THROTTLE = 1_000_000
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
    parser.add_argument("--warmup", type=int, default=3, help="untimed requests per scenario first (default 3)")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads (one worker process)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse a database kept by an earlier --keep run with the same --assets (no re-seed)")
    parser.add_argument("--explain", action="store_true",
                        help="write the query plans of every scenario's SQL to benchmarks/results/explain-*.txt")
    args = parser.parse_args(argv)
    if args.assets < 100:
        parser.error("--assets must be at least 100")
    if args.requests < 5:
        parser.error("--requests must be at least 5")
    if args.accessories is not None and args.accessories < 60:
        parser.error("--accessories must be at least 60 (a full page of 50)")
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
    detail_ids: list[int]
    checkout_ids: list[int]
    accessories: int = 0
    consumables: int = 0
    components: int = 0
    busy_accessory_id: int | None = None  # the accessory with the most checkout rows
    busy_rows: int = 0
    checkout_accessory_id: int | None = None  # the busiest accessory with a unit left (checkout + checkin)
    checkout_accessory_rows: int = 0


def prepare_fixture(n_assets: int, needed_checkouts: int) -> Fixture:
    import random

    from django.db.models import Count

    from accounts.models import User
    from accounts.services import personal_token_issue
    from benchmarks.seed import SEARCH_FAMILY
    from inventory.models import Asset, AssetModel, StatusLabel

    admin = User.objects.get(username="admin", deleted_at__isnull=True)
    _, token = personal_token_issue(user=admin, name="benchmark")
    alive = Asset.objects.filter(deleted_at__isnull=True)
    # The most common model: a filter that still returns many pages.
    model_id = (alive.values("model_id").order_by().annotate(n=Count("id")).order_by("-n", "model_id")[0]
                ["model_id"])
    status = StatusLabel.objects.get(name="Pending")
    search = SEARCH_FAMILY.lower()
    all_ids = list(alive.values_list("id", flat=True))
    detail_ids = random.Random(7).sample(all_ids, min(200, len(all_ids)))
    checkout_ids = list(Asset.objects.available().order_by("-id").values_list("id", flat=True)[:needed_checkouts])
    if len(checkout_ids) < needed_checkouts:
        sys.exit(f"only {len(checkout_ids)} available assets for {needed_checkouts} checkouts; seed more assets")
    user_id = User.objects.exclude(pk=admin.pk).filter(deleted_at__isnull=True).order_by("id").values_list(
        "id", flat=True)[0]
    fx = Fixture(
        token=token, n_assets=n_assets, user_id=user_id, search=search,
        search_total=alive.filter(model__in=AssetModel.objects.filter(name__icontains=search)).count(),
        model_id=model_id, model_total=alive.filter(model_id=model_id).count(), status_id=status.pk,
        status_total=alive.filter(status=status).count(), detail_ids=detail_ids, checkout_ids=checkout_ids,
    )
    prepare_stock(fx)
    return fx


def prepare_stock(fx: Fixture) -> None:
    """The accessories the stock scenarios use: the one with the most checkout rows (``checkedout``), and the
    busiest one with a unit left (checkout then checkin of one unit, so it never runs out)."""
    from django.db.models import Count, F

    from inventory.models import Accessory, AccessoryCheckout, Component, Consumable
    from inventory.stock import ACCESSORY

    fx.accessories = Accessory.objects.filter(deleted_at__isnull=True).count()
    fx.consumables = Consumable.objects.filter(deleted_at__isnull=True).count()
    fx.components = Component.objects.filter(deleted_at__isnull=True).count()
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


def record_check(status: int, body) -> str | None:
    if status != 200 or not isinstance(body, dict) or "asset_tag" not in body:
        return f"HTTP {status}: {str(body)[:200]}"
    return None


def action_check(status: int, body) -> str | None:
    if status != 200 or not isinstance(body, dict) or body.get("status") != "success":
        return f"HTTP {status}: {str(body)[:200]}"
    return None


def scenarios(fx: Fixture) -> list[Scenario]:
    """The timed scenarios. Each checkout takes the next asset that is in (query counting and HTTP timing draw from
    the same pool, so no asset is used twice) and the checkin that follows returns that same asset."""
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
        Scenario("GET /hardware?limit=50", get("/api/v1/hardware?limit=50"), list_check(50)),
        Scenario("GET /hardware?limit=500", get("/api/v1/hardware?limit=500"),
                 list_check(500 if fx.n_assets >= 1000 else None)),
        Scenario(f"GET /hardware?search={fx.search} ({fx.search_total:,} rows)",
                 get(f"/api/v1/hardware?search={fx.search}&limit=50"), list_check()),
        Scenario(f"GET /hardware?model_id=.. ({fx.model_total:,} rows)",
                 get(f"/api/v1/hardware?model_id={fx.model_id}&limit=50"), list_check()),
        Scenario(f"GET /hardware?status_id=.. ({fx.status_total:,} rows)",
                 get(f"/api/v1/hardware?status_id={fx.status_id}&limit=50"), list_check()),
        Scenario(f"GET /hardware?offset={deep}&limit=50", get(f"/api/v1/hardware?offset={deep}&limit=50"),
                 list_check(50)),
        Scenario("GET /hardware/{id}",
                 lambda i: ("GET", f"/api/v1/hardware/{fx.detail_ids[i % len(fx.detail_ids)]}", None), record_check),
        Scenario("POST /hardware/{id}/checkout", checkout, action_check, pair="POST /hardware/{id}/checkin"),
        Scenario("POST /hardware/{id}/checkin", checkin, action_check),
    ]
    return hardware + stock_scenarios(fx)


def stock_scenarios(fx: Fixture) -> list[Scenario]:
    """Accessories, consumables and components: the accessory list (default sort, 500 rows, sorted by the
    ``remaining`` annotation), the checkout rows of the busiest accessory, a checkout of one unit followed by the
    checkin of the row it made (the checkout's answer names the row), and the consumable and component lists."""
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
    if fx.consumables:
        found.append(Scenario(f"GET /consumables?limit=50 ({fx.consumables:,} rows)",
                              get("/api/v1/consumables?limit=50"), list_check(min(50, fx.consumables))))
    if fx.components:
        found.append(Scenario(f"GET /components?limit=50 ({fx.components:,} rows)",
                              get("/api/v1/components?limit=50"), list_check(min(50, fx.components))))
    return found


# ------------------------------------------------------------------------------------- in-process query counts


def count_queries(found: list[Scenario], fx: Fixture, explain: Path | None, kind: str) -> None:
    """One warm-up and one captured request per scenario through Django's test client (same database, same
    settings), so the count is exactly what gunicorn runs for that request."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {fx.token}")
    by_name = {s.name: s for s in found}
    plans: list[str] = []

    def call(scenario: Scenario, i: int):
        method, path, body = scenario.build(i)
        if method == "GET":
            response = client.get(path)
        else:
            response = client.post(path, data=json.dumps(body), content_type="application/json")
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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def gunicorn(env: dict[str, str], threads: int, token: str):
    """Run gunicorn (one worker process, ``threads`` threads) on a free loopback port; always stopped."""
    import requests

    port = free_port()
    RESULTS.mkdir(parents=True, exist_ok=True)
    log_path = RESULTS / "gunicorn.log"
    # The gunicorn of the interpreter running this script (``make bench`` runs ``$(BIN)/python``), so a checkout
    # without its own .venv (a git worktree) benchmarks with the environment it was started with.
    command = [str(Path(sys.executable).parent / "gunicorn"), "assetsvc.wsgi", "--bind", f"127.0.0.1:{port}",
               "--workers", "1", "--threads", str(threads), "--graceful-timeout", "5", "--log-level", "warning"]
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}; see {log_path}")
            try:
                response = requests.get(f"{base}/api/v1/users/me", headers={"Authorization": f"Bearer {token}"},
                                        timeout=2)
                if response.status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer within 60 s; see {log_path}")
            time.sleep(0.2)
        yield base, command
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def time_scenarios(found: list[Scenario], base: str, token: str, requests_n: int, warmup: int) -> None:
    import requests

    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {token}", "Accept": "application/json"})
    by_name = {s.name: s for s in found}
    paired = {s.pair for s in found if s.pair}

    def call(scenario: Scenario, i: int) -> float:
        method, path, body = scenario.build(i)
        began = time.perf_counter()
        response = session.request(method, base + path, json=body, timeout=120)
        payload = response.json()  # the body is read in full inside the timing
        elapsed = (time.perf_counter() - began) * 1000
        problem = scenario.check(response.status_code, payload) if scenario.check else None
        if problem:
            raise ScenarioFailed(problem)
        if scenario.answered:
            scenario.answered(payload)
        return elapsed

    for scenario in found:
        if scenario.name in paired:
            continue
        group = [scenario] + ([by_name[scenario.pair]] if scenario.pair else [])
        if any(member.status != "ok" for member in group):
            continue
        try:
            for i in range(warmup + requests_n):
                for member in group:
                    elapsed = call(member, i)
                    if i >= warmup:
                        member.timings.append(elapsed)
        except ScenarioFailed as exc:
            for member in group:
                member.status = str(exc)
                member.timings.clear()
        print(f"  timed {' + '.join(m.name for m in group)}", flush=True)


class ScenarioFailed(Exception):
    pass


# ---------------------------------------------------------------------------------------------------- reporting


def percentile(values: list[float], pct: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def table(found: list[Scenario]) -> str:
    width = max(len(s.name) for s in found)
    lines = [f"| {'scenario':<{width}} | p50 ms | p95 ms | SQL queries | SQL ms |",
             f"|{'-' * (width + 2)}|-------:|-------:|------------:|-------:|"]
    for s in found:
        if s.status != "ok" or not s.timings:
            lines.append(f"| {s.name:<{width}} | {'n/a':>6} | {'n/a':>6} | {'n/a':>11} | {'n/a':>6} |  "
                         f"{s.status[:120]}")
            continue
        p50, p95 = percentile(s.timings, 50), percentile(s.timings, 95)
        lines.append(f"| {s.name:<{width}} | {p50:6.1f} | {p95:6.1f} | {s.queries:>11} | {s.sql_ms:6.1f} |")
    return "\n".join(lines)


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
        from django.core.management import call_command
        from django.db import connections

        from benchmarks.seed import SeedCounts
        from inventory.models import Accessory, Asset, Component

        call_command("migrate", verbosity=0, interactive=False)
        print(f"  migrated: {time.perf_counter() - began:.1f}s", flush=True)
        wanted = SeedCounts.for_assets(args.assets, args.accessories)
        if (args.reuse and Asset.objects.count() >= args.assets and Accessory.objects.count() == wanted.accessories
                and Component.objects.count() == wanted.components):
            print("  reusing the seeded database")
        else:
            if args.reuse:
                connections.close_all()
                reset_database(url, kind)
                call_command("migrate", verbosity=0, interactive=False)
            from benchmarks.seed import seed

            seed_began = time.perf_counter()
            seed(args.assets, log=lambda msg: print(msg, flush=True), accessories=args.accessories)
            print(f"  seeded in {time.perf_counter() - seed_began:.1f}s", flush=True)
            if kind == "postgresql":
                with connections["default"].cursor() as cursor:
                    cursor.execute("VACUUM ANALYZE")
            else:
                with connections["default"].cursor() as cursor:
                    cursor.execute("ANALYZE")

        version = database_version(kind)
        fx = prepare_fixture(args.assets, needed)
        found = scenarios(fx)
        explain = RESULTS / f"explain-{kind}-{args.assets}.txt" if args.explain else None
        count_queries(found, fx, explain, kind)
        print("  counted SQL queries in-process", flush=True)
        connections.close_all()  # gunicorn gets the database to itself

        with gunicorn(env, args.threads, fx.token) as (base, command):
            print(f"  gunicorn: {' '.join(command[1:])}", flush=True)
            load_before = [round(x, 2) for x in os.getloadavg()]
            time_scenarios(found, base, fx.token, args.requests, args.warmup)
            load_after = [round(x, 2) for x in os.getloadavg()]

        summary = (f"{args.assets:,} assets, {fx.accessories:,} accessories, {fx.consumables:,} consumables, "
                   f"{fx.components:,} components, "
                   f"{version}, {os.cpu_count()} CPU ({cpu_model()}), Python {platform.python_version()}, "
                   f"gunicorn 1 worker x {args.threads} threads, {args.requests} timed requests per scenario after "
                   f"{args.warmup} warm-ups, one client, keep-alive; load average "
                   f"{load_before[0]:.2f} before timing, {load_after[0]:.2f} after")
        print()
        print(summary)
        print(table(found))
        print("SQL queries and SQL ms: one in-process request per scenario (Django test client, same database); "
              "p50/p95: over HTTP")
        if explain is not None:
            print(f"query plans: {explain}")
        result = {
            "summary": summary, "assets": args.assets, "accessories": fx.accessories, "consumables": fx.consumables,
            "components": fx.components,
            "database": version, "kind": kind,
            "load_average": {"before": load_before, "after": load_after},
            "scenarios": [{"name": s.name, "status": s.status, "queries": s.queries,
                           "sql_ms_one_request": round(s.sql_ms, 2) if s.sql_ms is not None else None,
                           "p50_ms": round(percentile(s.timings, 50), 2) if s.timings else None,
                           "p95_ms": round(percentile(s.timings, 95), 2) if s.timings else None,
                           "timings_ms": [round(t, 2) for t in s.timings]} for s in found],
            "seconds": round(time.perf_counter() - began, 1),
        }
        out = RESULTS / f"result-{kind}-{args.assets}.json"
        out.write_text(json.dumps(result, indent=2))
        print(f"total {time.perf_counter() - began:.0f}s; results in {out}")
        ok = all(s.status == "ok" for s in found)
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
