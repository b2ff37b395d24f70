"""Where one request's time goes: run a request shape many times in-process under cProfile, on a database kept by
``make bench BENCH_ARGS="--keep ..."`` (issue 13: profile before changing anything).

    .venv/bin/python benchmarks/profile_request.py --database-url postgres://postgres@127.0.0.1:5432/assetsvc_bench \\
        [--path "/api/v1/hardware?limit=50"] [--requests 200] [--top 40] [--sort cumulative|tottime]

The path may contain ``{asset}`` (an asset id, a different one for each request). Requests go through the whole
Django stack (middleware, authentication with a real token, the view, JSON rendering) by Django's test client, as
gunicorn would run them minus HTTP. Prints the wall time per request (timed once without the profiler, then under
it), the SQL time per request (the database cursor's execute calls), and the cProfile table; ``--callers REGEX``
also prints who called the matching functions.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--path", default="/api/v1/hardware?limit=50")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="cumulative", choices=["cumulative", "tottime"])
    parser.add_argument("--user", default="admin", help="username whose token is used (default admin)")
    parser.add_argument("--callers", help="also print the callers of the functions matching this regular expression")
    args = parser.parse_args(argv)

    os.environ.update({"DATABASE_URL": args.database_url, "SECRET_KEY": "profile-only", "DEBUG": "false",
                       "API_THROTTLE_PER_MINUTE": "100000000", "DJANGO_SETTINGS_MODULE": "assetsvc.settings",
                       "LOG_LEVEL": "WARNING"})
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from accounts.services import personal_token_issue
    from inventory.models import Asset

    _, token = personal_token_issue(user=User.objects.get(username=args.user), name="profile")
    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT="application/json")
    ids = list(Asset.objects.order_by("pk").values_list("pk", flat=True)[:: max(1, Asset.objects.count() // 500)])

    def path(i: int) -> str:
        return args.path.replace("{asset}", str(ids[i % len(ids)]))

    for i in range(5):  # warm-up: imports, caches, connection
        response = client.get(path(i))
        assert response.status_code == 200, response.content[:300]

    started = time.perf_counter()
    for i in range(args.requests):
        client.get(path(i))
    plain = time.perf_counter() - started
    sql_seconds = 0.0

    def timed_execute(execute, sql, params, many, context):
        nonlocal sql_seconds
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            sql_seconds += time.perf_counter() - started

    profiler = cProfile.Profile()
    started = time.perf_counter()
    with connection.execute_wrapper(timed_execute):
        profiler.enable()
        for i in range(args.requests):
            client.get(path(i))
        profiler.disable()
    wall = time.perf_counter() - started
    print(f"{args.path}: {plain / args.requests * 1000:.2f} ms per request in-process without the profiler, "
          f"{wall / args.requests * 1000:.2f} ms profiled, of which SQL {sql_seconds / args.requests * 1000:.2f} ms")
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(args.sort)
    stats.print_stats(args.top)
    if args.callers:
        stats.print_callers(args.callers)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
