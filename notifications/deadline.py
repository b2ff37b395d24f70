"""A total deadline for one webhook attempt (issue 25 item 11).

``requests``' ``timeout`` bounds the connect and *each socket read*, so a receiver trickling its answer one byte
every two seconds held a worker for as long as it liked (90 s in the red-team run) and was recorded a success. Here
every connection a :func:`session` opens registers its socket with the calling thread's :class:`Deadline`; when the
deadline passes, a timer shuts those sockets down, the blocked read returns at once, and the attempt fails as a
``ReadTimeout``. No attempt outlives ``WEBHOOK_TIMEOUT`` (plus the shutdown), so the sweeper's age limit
(``delivery.stale_after``: twice the timeout and a minute) is never reached by a delivery that is still posting.

urllib3 has no wall-clock deadline of its own (its ``Timeout.total`` still applies per read), hence the small
connection classes below; they change nothing but remember their socket.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

_current = threading.local()


class Deadline:
    """Shuts the attempt's sockets down once ``seconds`` have passed; ``expired`` tells whether it did."""

    def __init__(self, seconds: float):
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if self.expired:
                _shut(sock)
            else:
                self._sockets.append(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


class _Watched:
    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        deadline = getattr(_current, "deadline", None)
        if deadline is not None and self.sock is not None:  # type: ignore[attr-defined]
            deadline.watch(self.sock)  # type: ignore[attr-defined]


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class _Adapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}


@contextmanager
def within(seconds: float) -> Iterator[tuple[requests.Session, Deadline]]:
    """A session whose connections are shut down ``seconds`` after entering, and its :class:`Deadline`."""
    deadline = Deadline(seconds)
    session = requests.Session()
    adapter = _Adapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    _current.deadline = deadline
    deadline.start()
    try:
        yield session, deadline
    finally:
        deadline.cancel()
        _current.deadline = None
        session.close()
