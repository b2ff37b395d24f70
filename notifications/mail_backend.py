"""Django's SMTP backend, plus ``EMAIL_SSL_CAFILE``: the CA bundle that signs the mail server's certificate when the
system's CAs do not (an internal CA; the tests' own server). The certificate is always verified, host name included:
STARTTLS and implicit TLS without verification would hand the password to whoever answers."""

from __future__ import annotations

import ssl
from functools import cached_property

from django.conf import settings
from django.core.mail.backends.smtp import EmailBackend as DjangoEmailBackend


class EmailBackend(DjangoEmailBackend):
    @cached_property
    def ssl_context(self) -> ssl.SSLContext:
        cafile = getattr(settings, "EMAIL_SSL_CAFILE", "") or None
        context = ssl.create_default_context(cafile=cafile)
        if self.ssl_certfile or self.ssl_keyfile:
            context.load_cert_chain(self.ssl_certfile, self.ssl_keyfile)
        return context
