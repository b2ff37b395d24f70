"""``/account/waiting/``: the checkouts awaiting the person's acceptance, each with its EULA, a note and Accept /
Decline. The answer goes through the same services as the mail's link (``inventory.acceptance_views``), so it writes
the same rows: ``accepted`` and the signed PDF, or ``declined`` and the checkin."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.portal.frame import MAX_ID, portal_login_required, portal_render
from assetsvc.request_meta import current_request_meta
from inventory.acceptance_links import AcceptanceLinkError
from inventory.models import CheckoutAcceptance
from inventory.selectors.acceptances import acceptance_items, pending_of
from inventory.services.acceptance import NOTE_MAX, acceptance_answer, item_summary

ALREADY_ANSWERED = "This checkout is no longer waiting for your answer (it was answered or checked in)."
CHOOSE = "Choose Accept or Decline."


@portal_login_required
def waiting(request: HttpRequest) -> HttpResponse:
    rows = list(pending_of(request.user.pk))
    items = acceptance_items(rows)
    cards = []
    for row in rows:
        log = row.checkout_log
        handed_by = log.created_by if log is not None and log.created_by_id else None
        cards.append({"acceptance": row, "item": item_summary(row, items.get((row.item_type, row.item_id))),
                      "handed_by": handed_by.full_name if handed_by is not None else "",
                      "handed_at": log.action_date if log is not None else row.created_at})
    return portal_render(request, "portal/inventory/waiting.html", page="waiting", title="Waiting for me",
                         cards=cards, note_max=NOTE_MAX)


@portal_login_required
@require_POST
def waiting_answer(request: HttpRequest, acceptance_id: int) -> HttpResponse:
    """``POST /account/waiting/<id>/``: accept or decline one of the person's pending checkouts. Someone else's row
    (or no row) is a 404; an answered one a message; either way nothing is written."""
    if acceptance_id > MAX_ID:
        raise Http404
    back = HttpResponseRedirect(reverse("portal:waiting"))
    answer = request.POST.get("answer")
    meta = current_request_meta()
    with transaction.atomic():
        row = (CheckoutAcceptance.objects.select_for_update(of=("self",))
               .filter(pk=acceptance_id, user_id=request.user.pk).first())
        if row is None:
            raise Http404
        if answer not in ("accept", "decline"):
            messages.error(request, CHOOSE)
            return back
        if row.state != CheckoutAcceptance.State.PENDING:
            messages.error(request, ALREADY_ANSWERED)
            return back
        try:
            answered = acceptance_answer(row, answer, note=request.POST.get("note") or "",
                                         remote_ip=meta.get("remote_ip", ""), user_agent=meta.get("user_agent", ""))
        except AcceptanceLinkError:
            messages.error(request, ALREADY_ANSWERED)
            return back
    name = item_summary(answered, acceptance_items([answered]).get((answered.item_type, answered.item_id)))["name"]
    if answered.state == CheckoutAcceptance.State.ACCEPTED:
        messages.success(request, f"You accepted {name}. The signed agreement is under Agreements.")
    else:
        messages.success(request, f"You declined {name}. It was checked back in.")
    return back
