"""``/account/agreements/``: the EULAs the person accepted, each with its signed PDF (the rows and the file of the
API's ``GET account/eulas``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse

from accounts.portal.frame import MAX_ID, portal_login_required, portal_render
from activity.downloads import stored_file_response
from assetsvc.exceptions import NotFoundError
from inventory.selectors.acceptances import accepted_of, item_names


@portal_login_required
def agreements(request: HttpRequest) -> HttpResponse:
    rows = list(accepted_of(request.user.pk))
    names = item_names(rows)
    cards = [{"acceptance": row, "name": names.get((row.item_type, row.item_id)) or f"#{row.item_id}"}
             for row in rows]
    return portal_render(request, "portal/inventory/agreements.html", page="agreements", title="Agreements",
                         cards=cards)


@portal_login_required
def agreement_file(request: HttpRequest, acceptance_id: int) -> HttpResponse:
    """The signed PDF of one of the person's agreements; anyone else's (or a lost file) is a 404."""
    row = accepted_of(request.user.pk).filter(pk=acceptance_id).first() if acceptance_id <= MAX_ID else None
    if row is None:
        raise Http404
    try:
        return stored_file_response(row.signed_file)
    except NotFoundError:
        raise Http404 from None
