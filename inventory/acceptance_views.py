"""The acceptance page (issue 29): ``/accept/<token>/``, opened from the checkout mail's link, no sign-in needed.

``GET`` shows the item, who handed it over and when, the EULA as it was at checkout, a note field and the Accept and
Decline buttons; ``POST`` (with Django's CSRF token) answers through ``inventory.services.acceptance`` and shows a
confirmation. The signed token is the only key (``inventory.acceptance_links``): a changed, foreign or canceled link
answers 404, an expired or already answered one 410, and nothing is written. A signed-in session of someone else than
the link's person is refused the same way, so an administrator cannot answer for an employee by opening their link.
POSTs are rate-limited per address (django-ratelimit, :data:`POST_RATE`)."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django_ratelimit.core import is_ratelimited

from assetsvc.conf import app_settings
from assetsvc.request_meta import current_request_meta
from inventory.acceptance_links import LINK_INVALID, AcceptanceLinkError, read_token
from inventory.models import CheckoutAcceptance
from inventory.services.acceptance import NOTE_MAX, acceptance_answer, acceptance_item, item_summary

#: Answers per client address (a person answers once; this only slows down someone trying tokens).
POST_RATE = "20/m"
TOO_MANY = "Too many answers from your address. Wait a minute and try again."


def _client_ip(group: str, request: HttpRequest) -> str:
    """The caller's address as the action log records it (behind trusted proxies, the forwarded one)."""
    return current_request_meta().get("remote_ip") or request.META.get("REMOTE_ADDR", "")


def _refused(request: HttpRequest, error: AcceptanceLinkError) -> HttpResponse:
    return render(request, "acceptance/refused.html", {"site_name": app_settings.SITE_NAME, "message": str(error)},
                  status=410 if error.gone else 404)


def _open(request: HttpRequest, token: str, *, lock: bool = False) -> CheckoutAcceptance:
    acceptance = read_token(token, lock=lock)
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.pk != acceptance.user_id:
        raise AcceptanceLinkError(LINK_INVALID)
    return acceptance


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def acceptance_page(request: HttpRequest, token: str) -> HttpResponse:
    # Every POST counts, good link or not: the limit is there to slow down someone trying tokens.
    if request.method == "POST" and is_ratelimited(request, group="acceptance", key=_client_ip, rate=POST_RATE,
                                                   method="POST", increment=True):
        return render(request, "acceptance/refused.html", {"site_name": app_settings.SITE_NAME, "message": TOO_MANY},
                      status=429)
    try:
        acceptance = _open(request, token)
    except AcceptanceLinkError as error:
        return _refused(request, error)
    if request.method == "POST":
        return _answer(request, token)
    item = acceptance_item(acceptance)
    log = acceptance.checkout_log
    handed_by = log.created_by if log is not None and log.created_by_id else None
    context = {
        "site_name": app_settings.SITE_NAME,
        "acceptance": acceptance,
        "item": item_summary(acceptance, item),
        "person": acceptance.user.full_name,
        "handed_by": handed_by.full_name if handed_by is not None else "",
        "handed_at": log.action_date if log is not None else acceptance.created_at,
        "eula": acceptance.eula_text,
        "note_max": NOTE_MAX,
    }
    return render(request, "acceptance/page.html", context)


def _answer(request: HttpRequest, token: str) -> HttpResponse:
    answer = request.POST.get("answer")
    if answer not in ("accept", "decline"):
        return _refused(request, AcceptanceLinkError("Choose Accept or Decline."))
    meta = current_request_meta()
    try:
        with transaction.atomic():
            acceptance = _open(request, token, lock=True)
            answered = acceptance_answer(acceptance, answer, note=request.POST.get("note") or "",
                                         remote_ip=meta.get("remote_ip", ""), user_agent=meta.get("user_agent", ""))
    except AcceptanceLinkError as error:
        return _refused(request, error)
    item = acceptance_item(answered)
    return render(request, "acceptance/done.html", {
        "site_name": app_settings.SITE_NAME, "accepted": answered.state == CheckoutAcceptance.State.ACCEPTED,
        "item": item_summary(answered, item),
    })
