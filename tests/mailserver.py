"""A REAL SMTP server for the e-mail tests (issue 29): aiosmtpd on 127.0.0.1, STARTTLS required before AUTH and
before mail, AUTH PLAIN/LOGIN required, with a certificate of its own CA (made once per session with
``cryptography``) that the service trusts through ``EMAIL_SSL_CAFILE``, host name checked.

``MailServer`` keeps what it received (parsed messages, with the session's TLS and login), can be stopped and started
again on the same port (an outage), can refuse mails with a reply code, and can hold a mail before answering its
recipient or its content (``hold(stage)`` / ``release()``: a worker killed mid-send). ``smtp_server`` (fixture)
starts one and points the settings at it; ``MailServer.env()`` is the environment of a live ``db_worker``.
"""

from __future__ import annotations

import asyncio
import datetime
import email
import email.policy
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USERNAME = "mailer"
PASSWORD = "s3cret-mail-pass"


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """``(ca.pem, server.pem, server.key)``: a CA and a server certificate for 127.0.0.1 and localhost."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "assetsvc test mail CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


@dataclass
class Received:
    """One mail the server accepted."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    tls: bool
    login: str | None

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def to(self) -> str:
        return str(self.message["To"])

    @property
    def message_id(self) -> str:
        return str(self.message["Message-ID"])

    def part(self, content_type: str) -> str:
        """The text of the ``text/plain`` or ``text/html`` part."""
        body = self.message.get_body(preferencelist=(content_type.split("/")[1],))
        assert body is not None and body.get_content_type() == content_type, f"no {content_type} part"
        return body.get_content()

    @property
    def text(self) -> str:
        return self.part("text/plain")

    @property
    def html(self) -> str:
        return self.part("text/html")


@dataclass
class Handler:
    server: MailServer
    received: list[Received] = field(default_factory=list)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802 - aiosmtpd's name
        if self.server.refuse_code:
            return f"{self.server.refuse_code} Refused by the test server"
        await self.server.wait_if_held("rcpt")
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        login = session.auth_data if session.authenticated else None
        # Kept as soon as the content is in, before the answer (as an MTA queues it): a client that dies waiting for
        # the answer has still delivered the mail.
        with self.server.lock:
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message,
                                          tls=session.ssl is not None, login=login))
        await self.server.wait_if_held("data")
        return "250 Message accepted for delivery"


def _authenticate(server, session, envelope, mechanism, auth_data):
    if isinstance(auth_data, LoginPassword) and auth_data.login == USERNAME.encode() and \
            auth_data.password == PASSWORD.encode():
        return AuthResult(success=True, auth_data=USERNAME)
    return AuthResult(success=False, handled=False)


class MailServer:
    def __init__(self, certificates: tuple[Path, Path, Path]):
        self.ca, cert, key = certificates
        self.tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.tls_context.load_cert_chain(cert, key)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.lock = threading.Lock()
        self.handler = Handler(self)
        self.controller: Controller | None = None
        self.refuse_code = 0
        self.hold_stage = ""
        self.holding = threading.Event()
        self.released = threading.Event()
        self.released.set()

    # --- life ------------------------------------------------------------------------------------------------------

    def start(self) -> MailServer:
        self.controller = Controller(
            self.handler, hostname="127.0.0.1", port=self.port, server_hostname="127.0.0.1",
            tls_context=self.tls_context, require_starttls=True, auth_required=True, auth_require_tls=True,
            authenticator=_authenticate, ready_timeout=10,
        )
        self.controller.start()
        return self

    def stop(self) -> None:
        """Stop listening (connections are refused from here on), keeping what was received."""
        self.released.set()
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def running(self) -> bool:
        return self.controller is not None

    def hold(self, stage: str = "data") -> None:
        """From now on the answer at ``stage`` waits until :meth:`release`: ``"rcpt"`` (the recipient is named, the
        content not sent yet) or ``"data"`` (the content is in, the final answer waits). ``holding`` is set once a
        mail waits there."""
        self.hold_stage = stage
        self.holding.clear()
        self.released.clear()

    async def wait_if_held(self, stage: str) -> None:
        if self.hold_stage != stage:
            return
        self.holding.set()
        while not self.released.is_set():
            await asyncio.sleep(0.02)

    def release(self) -> None:
        self.released.set()

    # --- what arrived ----------------------------------------------------------------------------------------------

    @property
    def received(self) -> list[Received]:
        with self.lock:
            return list(self.handler.received)

    def clear(self) -> None:
        with self.lock:
            self.handler.received.clear()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.received) < count:
            time.sleep(0.02)
        return self.received

    # --- how the service reaches it --------------------------------------------------------------------------------

    def settings(self) -> dict[str, object]:
        return {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": self.port, "EMAIL_USE_TLS": True, "EMAIL_USE_SSL": False,
                "EMAIL_HOST_USER": USERNAME, "EMAIL_HOST_PASSWORD": PASSWORD, "EMAIL_SSL_CAFILE": str(self.ca),
                "EMAIL_TIMEOUT": 5}

    def env(self) -> dict[str, str]:
        return {key: ("true" if value is True else "false" if value is False else str(value))
                for key, value in self.settings().items()}
