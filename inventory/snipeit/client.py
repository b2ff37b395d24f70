"""Reading a running Snipe-IT through its REST API v1 (issue 31).

:class:`SnipeitClient` is the one way the importer talks to Snipe-IT: GET only, a super user's bearer token, JSON.
It pages every list by id (``sort=id&order=asc``) and de-duplicates by id, because a live Snipe-IT's ``total``
changes while it is read; it waits on 429 (``Retry-After`` when sent; Snipe-IT 8 drops that header, so otherwise a
growing pause up to its 60-second window), retries 5xx answers and connection errors a few times, and keeps to
``rate`` requests per second. Its errors say what to do. The token is held privately and appears in no log line,
exception, ``repr`` or report (any text echoed back by the server has it masked).
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import requests

logger = logging.getLogger("inventory.snipeit")

#: Snipe-IT's ``MAX_RESULTS`` default: the largest page it answers.
PAGE_SIZE = 500
#: The longest pause the client accepts from ``Retry-After`` (Snipe-IT's throttle window is 60 seconds).
MAX_WAIT = 120.0
#: 429 answers in a row before giving up.
MAX_THROTTLED = 20
TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})


class SnipeitError(Exception):
    """Reading Snipe-IT failed; the message says why and what to do (never the token)."""


class SnipeitAuthError(SnipeitError):
    """Snipe-IT refused the token (401) or its user may not read something (403)."""


class SnipeitRouteMissing(SnipeitError):
    """Snipe-IT answered 404 for a route: its version lacks it (or the record is gone)."""


class SnipeitClient:
    """A GET-only reader of Snipe-IT's API v1.

    ``url``: the Snipe-IT address (``https://snipe.example.com``; ``/api/v1`` is added unless given). ``rate``:
    at most this many requests per second (``None``: as fast as Snipe-IT answers). ``retries``: attempts after a 5xx
    or connection error. ``sleep`` and ``clock`` are for tests."""

    def __init__(self, url: str, token: str, *, rate: float | None = None, timeout: float = 30.0, retries: int = 4,
                 page_size: int = PAGE_SIZE, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, session: requests.Session | None = None) -> None:
        if not token or not token.strip():
            raise SnipeitAuthError("No Snipe-IT token: give --token-file or set SNIPEIT_TOKEN.")
        if rate is not None and rate <= 0:
            raise ValueError("rate must be positive")
        base = url.strip().rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise SnipeitError(f"The Snipe-IT URL must start with http:// or https://: {base!r}")
        self.base_url = base if base.endswith("/api/v1") else f"{base}/api/v1"
        self.rate, self.timeout, self.retries, self.page_size = rate, timeout, retries, page_size
        self._token = token.strip()
        self._sleep, self._clock = sleep, clock
        self._last_request: float | None = None
        self._session = session or requests.Session()
        self._session.headers.update({"Accept": "application/json", "User-Agent": "assetsvc-import-snipeit"})
        #: Requests sent, for the report and tests.
        self.requests_sent = 0

    def __repr__(self) -> str:
        return f"<SnipeitClient {self.base_url}>"

    def close(self) -> None:
        self._session.close()

    # -- one request -------------------------------------------------------------------------------------------

    def _mask(self, message: str) -> str:
        return message.replace(self._token, "***") if self._token else message

    def _pace(self) -> None:
        if self.rate is None:
            return
        now = self._clock()
        if self._last_request is not None:
            wait = self._last_request + 1.0 / self.rate - now
            if wait > 0:
                self._sleep(wait)
                now += wait
        self._last_request = now

    def _retry_after(self, response: requests.Response, throttled: int) -> float:
        header = response.headers.get("Retry-After", "").strip()
        wait: float | None = None
        if header:
            try:
                wait = float(header)
            except ValueError:
                try:
                    when = email.utils.parsedate_to_datetime(header)
                    wait = when.timestamp() - time.time()
                except (TypeError, ValueError):
                    wait = None
        if wait is None:
            wait = min(2.0 ** throttled, 60.0)
        return max(0.0, min(wait, MAX_WAIT))

    def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``/api/v1/<path>`` and answer its JSON, waiting on 429 and retrying transient failures."""
        path = path.strip("/")
        return self._decode(path, self._send(path, f"{self.base_url}/{path}", params))

    def download(self, url: str) -> bytes:
        """The bytes of a file Snipe-IT serves at ``url``: a path under ``/api/v1`` (``hardware/12/file/40``) or an
        absolute address on this client's own host (scheme, host and port of ``--url``; any other is refused, so the
        token is never sent elsewhere). Same token header, pacing, 429 and retries as :meth:`get`. A 404 raises
        :class:`SnipeitRouteMissing`; a JSON error envelope (Snipe-IT answers many errors with 200) raises
        :class:`SnipeitError`."""
        if url.startswith(("http://", "https://")):
            wanted, given = urlsplit(self.base_url), urlsplit(url)
            if (given.scheme, given.netloc.lower()) != (wanted.scheme, wanted.netloc.lower()):
                raise SnipeitError(f"Refused to download {given.scheme}://{given.netloc}{given.path}: not on "
                                   f"{wanted.scheme}://{wanted.netloc} (--url), so the token is not sent there.")
            full, path = url, given.path.strip("/")
        else:
            path = url.strip("/")
            full = f"{self.base_url}/{path}"
        response = self._send(path, full, None)
        status = response.status_code
        if status == 404:
            raise SnipeitRouteMissing(self._mask(f"GET /{path}: Snipe-IT answered 404 (no such file)."))
        if status != 200:
            self._decode(path, response)  # the same refusals as a JSON route (401, 403, redirects, others)
            raise SnipeitError(f"GET /{path}: Snipe-IT answered {status}.")
        if "attachment" not in response.headers.get("Content-Disposition", "") \
                and "json" in response.headers.get("Content-Type", ""):
            body = _json_or_none(response)
            if isinstance(body, dict) and body.get("status") == "error":
                message = body.get("messages") or body.get("message") or body.get("payload")
                raise SnipeitError(self._mask(f"GET /{path}: Snipe-IT answered an error: {message}"))
        return response.content

    def _send(self, path: str, url: str, params: dict[str, Any] | None) -> requests.Response:
        """One GET with the token, paced; waits on 429 and retries 5xx and connection errors."""
        failures = throttled = 0
        while True:
            self._pace()
            self.requests_sent += 1
            try:
                response = self._session.get(url, params=params, timeout=self.timeout, allow_redirects=False,
                                             headers={"Authorization": f"Bearer {self._token}"})
            except (requests.ConnectionError, requests.Timeout) as error:
                failures += 1
                reason = self._mask(type(error).__name__)
                if failures > self.retries:
                    raise SnipeitError(f"GET /{path}: Snipe-IT did not answer after {failures} attempts "
                                       f"({reason}); check --url and the network.") from None
                wait = min(0.5 * 2 ** (failures - 1), 30.0)
                logger.warning("GET /%s: %s, retrying in %.1f s", path, reason, wait)
                self._sleep(wait)
                continue
            status = response.status_code
            if status == 429:
                throttled += 1
                if throttled > MAX_THROTTLED:
                    raise SnipeitError(f"GET /{path}: Snipe-IT kept answering 429 (too many requests); "
                                       "try a lower --rate.")
                wait = self._retry_after(response, throttled)
                logger.info("GET /%s: throttled by Snipe-IT (429), waiting %.1f s", path, wait)
                self._sleep(wait)
                continue
            if status in TRANSIENT_STATUSES:
                failures += 1
                if failures > self.retries:
                    raise SnipeitError(f"GET /{path}: Snipe-IT answered {status} {failures} times; "
                                       "see its log (storage/logs/laravel.log).")
                wait = min(0.5 * 2 ** (failures - 1), 30.0)
                logger.warning("GET /%s: Snipe-IT answered %s, retrying in %.1f s", path, status, wait)
                self._sleep(wait)
                continue
            return response

    def _decode(self, path: str, response: requests.Response) -> Any:
        status = response.status_code
        if status == 401:
            raise SnipeitAuthError("Snipe-IT refused the token (401): it is wrong, expired or revoked, or its user "
                                   "is deleted. Create a personal access token in Snipe-IT (Account > Manage API "
                                   "keys) as a super user.")
        if status == 403:
            raise SnipeitAuthError(f"GET /{path}: Snipe-IT answered 403: the token's user may not read this. "
                                   "The import needs a super user's token.")
        if status == 404:
            envelope = _json_or_none(response)
            if isinstance(envelope, dict) and envelope.get("messages"):
                # A route that exists answering "not found" for one record (the files of a deleted asset).
                raise SnipeitError(self._mask(f"GET /{path}: Snipe-IT answered 404: {envelope['messages']}"))
            raise SnipeitRouteMissing(f"GET /{path}: Snipe-IT answered 404: this Snipe-IT version lacks the route "
                                      "(or the record is gone); the import reads Snipe-IT 8.")
        if 300 <= status < 400:
            raise SnipeitError(f"GET /{path}: Snipe-IT redirected ({status}) to "
                               f"{self._mask(response.headers.get('Location', '?'))}; give the final address as "
                               "--url (https, no trailing path).")
        if status != 200:
            raise SnipeitError(f"GET /{path}: Snipe-IT answered {status}.")
        try:
            body = response.json()
        except ValueError:
            raise SnipeitError(f"GET /{path}: the answer is not JSON (a login or setup page?); check --url.") from None
        if isinstance(body, dict) and body.get("status") == "error":
            # Snipe-IT answers most errors with HTTP 200 and its envelope.
            message = body.get("messages") or body.get("message") or body.get("payload")
            raise SnipeitError(self._mask(f"GET /{path}: Snipe-IT answered an error: {message}"))
        return body

    # -- lists -------------------------------------------------------------------------------------------------

    def rows(self, path: str, params: dict[str, Any] | None = None, *,
             key: str | None = "id", on_total: Callable[[int], None] | None = None) -> Iterator[dict[str, Any]]:
        """Every row of a ``{"total", "rows"}`` list, each once, in id order.

        Pages are asked sorted by id ascending. Rows Snipe-IT adds while we read get higher ids and come at the
        end. A row deleted before the current offset shifts the rest one place back, so each page after the first
        starts a few rows early (``overlap``) and rows already seen are dropped; when not even the overlap is
        seen again, the page is asked again from further back. It stops on an empty page, a short page that
        reaches ``total``, or a page with no new row (some lists, such as license seats, start over past the
        end), and never asks more than a bounded number of pages. ``on_total`` is told Snipe-IT's ``total`` of
        the first page (for a progress bar). ``key``: the row's unique key (``assigned_pivot_id`` for a
        component's installations); ``None`` for a list without one (a consumable's handouts, answered whole): its
        rows are taken as they come until ``total`` is reached."""
        if key is None:
            yield from self._plain_rows(path, params, on_total)
            return
        base = dict(params or {})
        base.update(sort="id", order="asc")
        limit = self.page_size
        overlap = 0
        offset = 0
        seen: set[int] = set()
        last_id: int | None = None
        pages = 0
        largest_total = 0
        while True:
            pages += 1
            page = self.get(path, {**base, "limit": limit, "offset": offset})
            body_rows, total = _list_parts(path, page)
            if pages == 1 and on_total is not None:
                on_total(total)
            largest_total = max(largest_total, total)
            new = []
            overlap_seen = False
            for row in body_rows:
                row_id = row.get(key) if isinstance(row, dict) else None
                if not isinstance(row_id, int):
                    raise SnipeitError(f"GET /{path.strip('/')}: a row without {key!r}.")
                if row_id in seen:
                    overlap_seen = True
                    continue
                new.append(row)
            if offset > 0 and overlap and body_rows and not overlap_seen and last_id is not None \
                    and min(row[key] for row in body_rows) > last_id:
                # More rows vanished before us than the overlap covers: ask again from further back.
                offset = max(0, offset - limit)
                logger.info("GET /%s: rows were deleted while reading; re-reading from offset %s", path, offset)
            else:
                for row in new:
                    seen.add(row[key])
                    last_id = row[key] if last_id is None else max(last_id, row[key])
                    yield row
                if not body_rows or not new:
                    return
                if len(body_rows) < limit:
                    if offset + len(body_rows) >= total:
                        return
                    # Snipe-IT caps pages at its MAX_RESULTS: learn the cap and go on.
                    limit = len(body_rows)
                overlap = min(5, max(0, limit // 10))
                offset = offset + len(body_rows) - overlap
            # Bounded by the largest total Snipe-IT gave: three times the pages it needs, and some.
            if pages > 3 * (largest_total // max(1, limit - overlap) + 1) + 10:
                raise SnipeitError(f"GET /{path.strip('/')}: the list did not end after {pages} pages; "
                                   "is Snipe-IT being changed heavily while it is read?")

    def _plain_rows(self, path: str, params: dict[str, Any] | None,
                    on_total: Callable[[int], None] | None) -> Iterator[dict[str, Any]]:
        offset = 0
        for page_number in range(10_000):
            page = self.get(path, {**(params or {}), "limit": self.page_size, "offset": offset})
            body_rows, total = _list_parts(path, page)
            if page_number == 0 and on_total is not None:
                on_total(total)
            yield from body_rows
            offset += len(body_rows)
            if not body_rows or offset >= total:
                return
        raise SnipeitError(f"GET /{path.strip('/')}: the list did not end.")


def _list_parts(path: str, page: Any) -> tuple[list[Any], int]:
    if isinstance(page, list):  # a few sub-lists answer a bare array
        return page, len(page)
    if isinstance(page, dict) and isinstance(page.get("rows"), list):
        return page["rows"], int(page.get("total") or 0)
    raise SnipeitError(f"GET /{path.strip('/')}: expected a list with total and rows.")


def _json_or_none(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
