"""``GET /``: the web root, outside ``/api/v1`` (API-CONTRACT.md §3). A small HTML page that links to the admin, the
API docs and the API; sync scripts such as jamf2snipe probe it (any 200) before their first API call and stop with
"Host could not be contacted" on a 404. No token, no database: it answers while the database is down, as Snipe-IT's
login page would."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")
