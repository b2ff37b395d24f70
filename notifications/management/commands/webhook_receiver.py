"""``manage.py webhook_receiver [--port N] [--secret-file PATH | --secret S]``: a local receiver for trying an
integration (API-CONTRACT.md §8a).

Serves HTTP on ``127.0.0.1:N`` only (default 8099) until Ctrl-C or SIGTERM (exit status 0). For each POST (any
path) it prints ``delivery event=<event> delivery_id=<id> signature=<verdict>``, flushed at once, then the body
(indented JSON, or the raw text). The verdict is :func:`notifications.signing.verdict` (the documented receiver);
it answers 200 for ``verified`` and ``unchecked``, 401 otherwise.

The secret comes from ``--secret-file`` (the file's text, trimmed), else ``--secret`` (kept for compatibility, with a
warning: a command line is visible to every user in ``ps``, issue 25), else the environment's ``WEBHOOK_SECRET`` (the
variable the sender signs with). Everything printed that comes from the request is untrusted: control and format
characters (ESC, CR, BEL, C1 controls, bidi overrides, line separators) are printed escaped (``\\x1b``,
``\\u202e``), so a body cannot move the cursor, retitle the terminal or hide text.
"""

from __future__ import annotations

import json
import signal
import threading
import unicodedata
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from assetsvc.conf import app_settings
from assetsvc.models import WEBHOOK_SECRET_MAX, WEBHOOK_SECRET_MIN
from notifications.signing import verdict

HOST = "127.0.0.1"
DEFAULT_PORT = 8099
#: Bodies larger than this are answered 413 unread (a real delivery is a few KB).
MAX_BODY = 1024 * 1024


#: Unicode categories printed escaped: controls (C0, DEL, C1), format characters (bidi overrides, zero-width) and the
#: line and paragraph separators.
UNPRINTABLE = {"Cc", "Cf", "Zl", "Zp"}


def printable(text: str, keep: str = "") -> str:
    """``text`` with every control or format character except those in ``keep`` escaped as ``\\xNN``/``\\uNNNN``."""
    out = []
    for char in text:
        if char in keep or unicodedata.category(char) not in UNPRINTABLE:
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return "".join(out)


def describe(body: bytes) -> tuple[str, str, str]:
    """``(event, delivery_id, shown body)``: the body's keys, ``-`` when absent, and the body as printed (indented
    JSON, or the raw text), every part escaped by :func:`printable` (the body keeps its line breaks and tabs)."""
    try:
        data = json.loads(body)
    except ValueError:
        return "-", "-", printable(body.decode("utf-8", errors="replace"), keep="\n\t")
    fields = data if isinstance(data, dict) else {}
    event = fields.get("event") or "-"
    delivery_id = fields.get("delivery_id") or "-"
    return (printable(str(event)), printable(str(delivery_id)),
            printable(json.dumps(data, indent=2, ensure_ascii=False), keep="\n"))


def read_secret(options: dict) -> str:
    """The secret to check with: ``--secret-file``, else ``--secret``, else ``WEBHOOK_SECRET`` ("" = unchecked).
    A file that cannot be read, or a secret the sender would refuse (not 16 to 255 characters), stops the command;
    the message never quotes the secret."""
    if options.get("secret_file"):
        try:
            secret = Path(options["secret_file"]).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--secret-file: cannot read {options['secret_file']}: {type(exc).__name__}") from None
        source = "--secret-file"
    elif (options.get("secret") or "").strip():
        secret, source = options["secret"].strip(), "--secret"
    else:
        secret, source = (app_settings.WEBHOOK_SECRET or "").strip(), "WEBHOOK_SECRET"
    if secret and not WEBHOOK_SECRET_MIN <= len(secret) <= WEBHOOK_SECRET_MAX:
        raise CommandError(f"{source}: the secret must be {WEBHOOK_SECRET_MIN} to {WEBHOOK_SECRET_MAX} characters "
                           "long (the sender refuses other lengths).")
    return secret


class Command(BaseCommand):
    help = "Receive webhook deliveries on 127.0.0.1 and print each one with its signature verdict."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
        parser.add_argument("--secret-file", default="", metavar="PATH",
                            help="a file holding the webhook secret (else the environment's WEBHOOK_SECRET); "
                                 "without a secret signatures are unchecked")
        parser.add_argument("--secret", default="",
                            help="the webhook secret on the command line (visible in ps: prefer --secret-file)")

    def handle(self, *args, **options) -> None:
        secret = read_secret(options)
        if options["secret"] and not options["secret_file"]:
            self.stderr.write("Warning: --secret is visible to every user of this machine in ps; use --secret-file "
                              "PATH or the environment's WEBHOOK_SECRET.")
            self.stderr.flush()
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
        # Ctrl-C stops it even when started in the background of a script, whose children inherit SIGINT ignored.
        previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
        out.write(f"Listening on http://{HOST}:{server.server_address[1]}/")
        out.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, previous_int)
            server.server_close()
