"""``manage.py webhook_receiver [--port N] [--secret S]``: a local receiver for trying an integration
(API-CONTRACT.md §8a).

Serves HTTP on ``127.0.0.1:N`` only (default 8099) until Ctrl-C or SIGTERM (exit status 0). For each POST (any
path) it prints ``delivery event=<event> delivery_id=<id> signature=<verdict>``, flushed at once, then the body
(indented JSON, or the raw text). The verdict is :func:`notifications.signing.verdict` (the documented receiver);
it answers 200 for ``verified`` and ``unchecked``, 401 otherwise.
"""

from __future__ import annotations

import json
import signal
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from django.core.management.base import BaseCommand

from notifications.signing import verdict

HOST = "127.0.0.1"
DEFAULT_PORT = 8099
#: Bodies larger than this are answered 413 unread (a real delivery is a few KB).
MAX_BODY = 1024 * 1024


def describe(body: bytes) -> tuple[str, str, str]:
    """``(event, delivery_id, shown body)``: the body's keys, ``-`` when absent, and the body as printed."""
    try:
        data = json.loads(body)
    except ValueError:
        return "-", "-", body.decode("utf-8", errors="replace")
    fields = data if isinstance(data, dict) else {}
    event = fields.get("event") or "-"
    delivery_id = fields.get("delivery_id") or "-"
    return str(event), str(delivery_id), json.dumps(data, indent=2, ensure_ascii=False)


class Command(BaseCommand):
    help = "Receive webhook deliveries on 127.0.0.1 and print each one with its signature verdict."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
        parser.add_argument("--secret", default="", help="the webhook secret; without it signatures are unchecked")

    def handle(self, *args, **options) -> None:
        secret = (options["secret"] or "").strip()
        out = self.stdout

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    self.send_response(413)
                    self.end_headers()
                    self.close_connection = True
                    return
                body = self.rfile.read(length) if length > 0 else b""
                result = verdict(secret, self.headers, body)
                event, delivery_id, shown = describe(body)
                out.write(f"delivery event={event} delivery_id={delivery_id} signature={result}")
                out.write(shown)
                out.flush()
                self.send_response(200 if result in {"verified", "unchecked"} else 401)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
                pass  # the delivery line says it all

        server = HTTPServer((HOST, options["port"]), Handler)

        def stop(signum, frame):
            # shutdown() waits for serve_forever() to return: from another thread, not this handler's.
            threading.Thread(target=server.shutdown, daemon=True).start()

        previous = signal.signal(signal.SIGTERM, stop)
        out.write(f"Listening on http://{HOST}:{server.server_address[1]}/")
        out.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.server_close()
