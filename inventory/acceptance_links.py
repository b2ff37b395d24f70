"""The signed links of checkout acceptance (issue 29): ``/accept/<token>/``.

A token signs the acceptance row's id, its person's id and the row's ``link_nonce`` with the site's ``SECRET_KEY``
(Django's ``TimestampSigner``, its own salt), so a changed token fails the signature, an old one fails the age check
(``ACCEPTANCE_LINK_DAYS``), and a token of another row, another person or an earlier nonce fails the comparison with
the row. Nothing of the token is stored: the row's nonce is what binds it (and the answer services replace it, so a
used link never works twice).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.core import signing

from inventory.models import CheckoutAcceptance

SALT = "inventory.acceptance.link"

LINK_INVALID = "This link is not valid. Use the link of the latest e-mail, or ask your IT team for a new one."
LINK_EXPIRED = "This link has expired. Ask your IT team to send it again."
LINK_USED = "This item has already been answered, or is no longer waiting for your answer."


class AcceptanceLinkError(Exception):
    """A token that opens nothing; ``str()`` is the text the page shows. ``gone``: the link was good once (expired,
    or already answered or canceled), so the page answers 410 rather than 404."""

    def __init__(self, message: str, *, gone: bool = False) -> None:
        super().__init__(message)
        self.gone = gone


def new_nonce() -> str:
    return secrets.token_urlsafe(24)


def acceptance_token(acceptance: CheckoutAcceptance) -> str:
    """The token of ``acceptance``'s current link (its nonce is made when it is empty)."""
    if not acceptance.link_nonce:
        acceptance.link_nonce = new_nonce()
        CheckoutAcceptance.objects.filter(pk=acceptance.pk).update(link_nonce=acceptance.link_nonce)
    payload = {"a": acceptance.pk, "u": acceptance.user_id, "n": acceptance.link_nonce}
    return signing.TimestampSigner(salt=SALT).sign_object(payload, compress=True)


def acceptance_url(acceptance: CheckoutAcceptance) -> str:
    """The absolute address of ``acceptance``'s page, for a mail (``SITE_URL``)."""
    return f"{settings.SITE_URL}/accept/{acceptance_token(acceptance)}/"


def read_token(token: str, *, lock: bool = False) -> CheckoutAcceptance:
    """The pending acceptance ``token`` opens (locked ``select_for_update`` when ``lock``, inside a transaction), or
    :class:`AcceptanceLinkError` with the reason a person is shown. Reads only; writes nothing."""
    signer = signing.TimestampSigner(salt=SALT)
    try:
        payload = signer.unsign_object(token, max_age=timedelta(days=settings.ACCEPTANCE_LINK_DAYS))
    except signing.SignatureExpired as exc:
        raise AcceptanceLinkError(LINK_EXPIRED, gone=True) from exc
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise AcceptanceLinkError(LINK_INVALID) from exc
    if not isinstance(payload, dict) or not all(isinstance(payload.get(k), t) for k, t in
                                                (("a", int), ("u", int), ("n", str))):
        raise AcceptanceLinkError(LINK_INVALID)
    rows = CheckoutAcceptance.objects.select_related("user")
    if lock:
        rows = rows.select_for_update(of=("self",))
    acceptance = rows.filter(pk=payload["a"]).first()
    if acceptance is None or acceptance.user_id != payload["u"]:
        raise AcceptanceLinkError(LINK_INVALID)
    if acceptance.state != CheckoutAcceptance.State.PENDING:
        raise AcceptanceLinkError(LINK_USED, gone=True)
    if not secrets.compare_digest(acceptance.link_nonce, payload["n"]):
        raise AcceptanceLinkError(LINK_INVALID)
    return acceptance
