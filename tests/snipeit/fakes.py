"""Small fakes of Snipe-IT for the reading side's tests (a full stand-in is tests/snipeit/standin.py).

:class:`FakeSnipeit` answers ``{"total", "rows"}`` lists the way Snipe-IT pages them (``limit`` capped at
``max_results``, ``offset`` past the end clamped, ``sort=id&order=asc``), over rows the test owns and may change
between pages (``before_page``), on a real local HTTP server (pytest-httpserver).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

TOKEN = "sn1pe-T0KEN-do-not-leak-4f2a9c"


class FakeSnipeit:
    """Lists by route (without ``/api/v1/``); ``before_page(route, offset)`` runs before each list page is served,
    so a test can add or delete rows between pages; ``requests`` records ``(route, params)``."""

    def __init__(self, server: HTTPServer, *, token: str = TOKEN, max_results: int = 500) -> None:
        self.server, self.token, self.max_results = server, token, max_results
        self.lists: dict[str, list[dict[str, Any]]] = {}
        self.bare: dict[str, Any] = {}
        self.before_page: Callable[[str, int], None] | None = None
        self.reset_offset_past_end: set[str] = set()
        self.ignore_paging: set[str] = set()
        #: Query parameters a route filters its rows by (exact match), e.g. {"reports/activity": {"action_type"}}.
        self.filters: dict[str, set[str]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        server.expect_request(__import__("re").compile(r"/api/v1/.*")).respond_with_handler(self.handle)

    @property
    def url(self) -> str:
        return self.server.url_for("/").rstrip("/")

    def handle(self, request: Request) -> Response:
        route = request.path.removeprefix("/api/v1/").strip("/")
        params = dict(request.args)
        self.requests.append((route, params))
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return _json({"error": "Unauthorized or unauthenticated."}, 401)
        if route in self.bare:
            return _json(self.bare[route])
        if route not in self.lists:
            return _json({"status": "error", "message": "404 endpoint not found.", "payload": None}, 404)
        offset = int(params.get("offset", 0) or 0)
        if self.before_page is not None:
            self.before_page(route, offset)
        rows = self.lists[route]
        for param in self.filters.get(route, ()):
            if param in params:
                rows = [row for row in rows if str(row.get(param)) == params[param]]
        if params.get("sort") == "id":
            rows = sorted(rows, key=lambda row: row.get("id") or 0, reverse=params.get("order") != "asc")
        total = len(rows)
        if route in self.ignore_paging:
            return _json({"total": total, "rows": rows})
        limit = int(params.get("limit", 0) or 0)
        limit = abs(limit) if limit and abs(limit) <= self.max_results else self.max_results
        if route in self.reset_offset_past_end and offset >= total:
            offset = 0  # LicenseSeatsController's quirk
        offset = min(offset, total)
        return _json({"total": total, "rows": rows[offset:offset + limit]})


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")
