"""The Snipe-IT client against a real local HTTP server: paging by id while the data changes, Snipe-IT's page cap
and seat-list quirk, 429 with and without Retry-After, 5xx and connection retries, clear errors, the rate, and the
token never leaking (issue 31)."""

from __future__ import annotations

import email.utils
import json
import logging
import socket
import time

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from inventory.snipeit.client import MAX_WAIT, SnipeitAuthError, SnipeitClient, SnipeitError, SnipeitRouteMissing
from tests.snipeit.fakes import TOKEN, FakeSnipeit


@pytest.fixture
def server():
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


@pytest.fixture
def fake(server):
    return FakeSnipeit(server)


class Sleeps(list):
    """A recorded sleep: tests never wait."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client_for(fake_or_url, *, page_size=10, **kwargs) -> tuple[SnipeitClient, Sleeps]:
    sleeps = Sleeps()
    url = fake_or_url if isinstance(fake_or_url, str) else fake_or_url.url
    return SnipeitClient(url, TOKEN, page_size=page_size, sleep=sleeps, **kwargs), sleeps


def rows(*ids: int) -> list[dict]:
    return [{"id": row_id, "name": f"row {row_id}"} for row_id in ids]


def test_every_row_once_sorted_by_id(fake):
    fake.lists["companies"] = rows(*range(1, 50, 2))[::-1]  # 25 rows, odd ids, served in any order
    client, _ = client_for(fake)
    totals = []
    read = [row["id"] for row in client.rows("companies", on_total=totals.append)]
    assert read == list(range(1, 50, 2))
    assert totals == [25]
    first = fake.requests[0][1]
    assert (first["sort"], first["order"], first["limit"], first["offset"]) == ("id", "asc", "10", "0")


def test_rows_added_while_paging_are_read_once(fake):
    fake.lists["hardware"] = rows(*range(1, 31))
    added = iter(range(100, 105))

    def grow(route, offset):
        if offset:
            fake.lists["hardware"].append({"id": next(added), "name": "new"})

    fake.before_page = grow
    client, _ = client_for(fake)
    read = [row["id"] for row in client.rows("hardware")]
    assert len(read) == len(set(read))
    assert set(range(1, 31)) <= set(read)
    assert 100 in read


@pytest.mark.parametrize("deleted", [1, 4])  # within the overlap of a page, and more than it
def test_rows_deleted_before_the_offset_miss_nothing(fake, deleted):
    fake.lists["users"] = rows(*range(1, 41))
    state = {"done": False}

    def shrink(route, offset):
        if offset and not state["done"]:
            state["done"] = True
            del fake.lists["users"][:deleted]  # rows already read vanish: the rest shift back

    fake.before_page = shrink
    client, _ = client_for(fake)
    read = [row["id"] for row in client.rows("users")]
    assert read == list(range(1, 41))


def test_a_page_cap_below_the_asked_limit_is_learned(server):
    fake = FakeSnipeit(server, max_results=4)
    fake.lists["licenses"] = rows(*range(1, 12))
    client, _ = client_for(fake, page_size=10)
    assert [row["id"] for row in client.rows("licenses")] == list(range(1, 12))


def test_a_list_that_starts_over_past_its_end_ends(fake):
    fake.lists["licenses/3/seats"] = rows(*range(1, 11))  # exactly one full page
    fake.reset_offset_past_end.add("licenses/3/seats")
    client, _ = client_for(fake)
    assert [row["id"] for row in client.rows("licenses/3/seats")] == list(range(1, 11))
    assert len(fake.requests) <= 3


def test_a_list_that_never_ends_is_an_error(server):
    counter = iter(range(1, 10**6))

    def endless(request):
        # Always a full page of new rows while claiming a total of 20.
        return Response(json.dumps({"total": 20, "rows": [{"id": next(counter)} for _ in range(10)]}),
                        content_type="application/json")

    server.expect_request("/api/v1/endless").respond_with_handler(endless)
    client, _ = client_for(server.url_for("/"))
    with pytest.raises(SnipeitError, match="did not end"):
        list(client.rows("endless"))
    assert len(server.log) < 30


def test_rows_by_another_key_and_without_a_key(fake):
    fake.lists["components/5/assets"] = [{"assigned_pivot_id": 7, "id": 2}, {"assigned_pivot_id": 8, "id": 2}]
    fake.lists["consumables/4/users"] = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    fake.ignore_paging.add("consumables/4/users")
    client, _ = client_for(fake)
    assert len(list(client.rows("components/5/assets", key="assigned_pivot_id"))) == 2
    assert [row["name"] for row in client.rows("consumables/4/users", key=None)] == ["a", "b", "c"]


def test_429_waits_for_retry_after_in_seconds(server):
    server.expect_ordered_request("/api/v1/companies").respond_with_json(
        {"status": "error", "messages": "Too many requests", "payload": None}, status=429,
        headers={"Retry-After": "7"})
    server.expect_ordered_request("/api/v1/companies").respond_with_json({"total": 0, "rows": []})
    client, sleeps = client_for(server.url_for("/"))
    assert client.get("companies") == {"total": 0, "rows": []}
    assert sleeps == [7.0]


def test_429_retry_after_as_a_date_and_capped(server):
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    server.expect_ordered_request("/api/v1/x").respond_with_data("", status=429, headers={"Retry-After": later})
    server.expect_ordered_request("/api/v1/x").respond_with_data("", status=429, headers={"Retry-After": "86400"})
    server.expect_ordered_request("/api/v1/x").respond_with_json({"ok": 1})
    client, sleeps = client_for(server.url_for("/"))
    assert client.get("x") == {"ok": 1}
    assert 25 <= sleeps[0] <= 31
    assert sleeps[1] == MAX_WAIT


def test_429_without_retry_after_backs_off(server):
    # Snipe-IT 8 drops Retry-After from its 429 (docs: snipeit-behaviour.md §2.7).
    for _ in range(3):
        server.expect_ordered_request("/api/v1/x").respond_with_data("", status=429)
    server.expect_ordered_request("/api/v1/x").respond_with_json({"ok": 1})
    client, sleeps = client_for(server.url_for("/"))
    assert client.get("x") == {"ok": 1}
    assert sleeps == [2.0, 4.0, 8.0]


def test_transient_5xx_is_retried_then_reported(server):
    server.expect_ordered_request("/api/v1/x").respond_with_data("oops", status=502)
    server.expect_ordered_request("/api/v1/x").respond_with_data("oops", status=503)
    server.expect_ordered_request("/api/v1/x").respond_with_json({"ok": 1})
    client, sleeps = client_for(server.url_for("/"))
    assert client.get("x") == {"ok": 1}
    assert sleeps == [0.5, 1.0]

    server.clear()
    server.expect_request("/api/v1/y").respond_with_data("oops", status=500)
    client, sleeps = client_for(server.url_for("/"), retries=2)
    with pytest.raises(SnipeitError, match="answered 500 3 times"):
        client.get("y")
    assert len(sleeps) == 2


def test_connection_errors_are_retried_then_reported():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client, sleeps = client_for(f"http://127.0.0.1:{port}", retries=2, timeout=2)
    with pytest.raises(SnipeitError, match="did not answer after 3 attempts"):
        client.get("companies")
    assert sleeps == [0.5, 1.0]


@pytest.mark.parametrize(("status", "body", "error", "text"), [
    (401, {"error": "Unauthorized or unauthenticated."}, SnipeitAuthError, "refused the token"),
    (403, {"message": "This action is unauthorized."}, SnipeitAuthError, "super user"),
    (404, {"status": "error", "message": "404 endpoint not found.", "payload": None}, SnipeitRouteMissing,
     "version lacks the route"),
    (200, {"status": "error", "messages": "Asset not found", "payload": None}, SnipeitError, "Asset not found"),
])
def test_errors_say_what_to_do(server, status, body, error, text):
    server.expect_request("/api/v1/x").respond_with_json(body, status=status)
    client, _ = client_for(server.url_for("/"))
    with pytest.raises(error, match=text):
        client.get("x")


def test_a_record_404_is_not_a_missing_route(server):
    server.expect_request("/api/v1/hardware/9/files").respond_with_json(
        {"status": "error", "messages": "Asset does not exist.", "payload": None}, status=404)
    client, _ = client_for(server.url_for("/"))
    with pytest.raises(SnipeitError, match="Asset does not exist") as caught:
        client.get("hardware/9/files")
    assert not isinstance(caught.value, SnipeitRouteMissing)


def test_html_and_redirects_are_errors_and_not_followed(server):
    server.expect_request("/api/v1/login").respond_with_data("<html>login</html>", content_type="text/html")
    server.expect_request("/api/v1/moved").respond_with_response(
        Response("", status=302, headers={"Location": "https://elsewhere.example/api/v1/moved"}))
    client, _ = client_for(server.url_for("/"))
    with pytest.raises(SnipeitError, match="not JSON"):
        client.get("login")
    with pytest.raises(SnipeitError, match="redirected"):
        client.get("moved")


def test_the_rate_spaces_requests(fake):
    fake.bare["x"] = {"ok": 1}
    now = [100.0]
    sleeps = Sleeps()

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds

    client = SnipeitClient(fake.url, TOKEN, rate=4, sleep=sleep, clock=lambda: now[0])
    for _ in range(3):
        client.get("x")
    assert sleeps == [0.25, 0.25]


def test_the_url_gets_api_v1_once(fake):
    fake.bare["version"] = {"version": "v8.1.4"}
    for url in (fake.url, fake.url + "/", fake.url + "/api/v1", fake.url + "/api/v1/"):
        client, _ = client_for(url)
        assert client.get("version") == {"version": "v8.1.4"}


def test_the_token_never_leaks(server, caplog):
    """Logs (every logger, DEBUG, urllib3 too), exception texts, reprs and echoed error bodies never hold the token."""
    caplog.set_level(logging.DEBUG)
    server.expect_ordered_request("/api/v1/a").respond_with_data("", status=429)
    server.expect_ordered_request("/api/v1/a").respond_with_data("", status=503)
    server.expect_ordered_request("/api/v1/a").respond_with_json(
        {"status": "error", "messages": f"bad token {TOKEN}", "payload": None})
    server.expect_request("/api/v1/b").respond_with_json({"error": "Unauthorized or unauthenticated."}, status=401)
    server.expect_request("/api/v1/c").respond_with_response(
        Response("", status=302, headers={"Location": f"https://x.example/?t={TOKEN}"}))
    client, _ = client_for(server.url_for("/"))
    texts = [repr(client), str(client.__dict__.get("base_url"))]
    for path in ("a", "b", "c"):
        with pytest.raises(SnipeitError) as caught:
            client.get(path)
        texts += [str(caught.value), repr(caught.value)]
    texts += [record.getMessage() for record in caplog.records]
    assert any("throttled" in text for text in texts)
    assert all(TOKEN not in text for text in texts)
    # The token did go to Snipe-IT, in the header only.
    request, _ = server.log[0]
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in request.url


def test_an_empty_token_is_refused():
    with pytest.raises(SnipeitAuthError, match="SNIPEIT_TOKEN"):
        SnipeitClient("https://snipe.example.com", "  ")
