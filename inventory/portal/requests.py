"""``/account/requests/``: what the signed-in person may request (requestable assets and models), their requests
with the state of each, and the forms that ask for or cancel one, with a note to IT.

Requesting needs ``assets.view.requestable``, checked by the ``permission_checker`` hook as the API checks it
(``account/requestable/hardware``, ``account/request/{asset}``). Company separation is the services': an asset of a
company the person may not see is "not found" (a 404 page, nothing written). Every form posts, then redirects back
to the page with a message (post/redirect/get)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from accounts.portal.frame import MAX_ID, portal_login_required, portal_render
from accounts.portal.pages import PortalPage, register_portal_page
from assetsvc.exceptions import InvalidInputError, NotFoundError
from assetsvc.registry import hook
from inventory.services import requests as services

PERMISSION = "assets.view.requestable"
PAGE_SIZE = 25
#: Ids beyond this are not ours (and would overflow the database's integer): answered "not found".
TITLE = "Request"
NOT_FOUND_TEXT = {"asset": "That asset does not exist, or you may not request it.",
                  "model": "That model does not exist, or you may not request it."}


def may_request(user) -> bool:
    """Whether ``user`` may ask for items (the API's permission for ``account/request/{asset}``)."""
    return user is not None and user.is_authenticated and hook("permission_checker")(user, PERMISSION)


def _refused(request: HttpRequest) -> HttpResponse:
    return portal_render(request, "portal/inventory/request_refused.html", page="requests", title=TITLE, status=403,
                         text="Your account may not request items. Ask IT if you need something.")


def _not_found(request: HttpRequest, kind: str) -> HttpResponse:
    return portal_render(request, "portal/inventory/request_refused.html", page="requests", title=TITLE, status=404,
                         text=NOT_FOUND_TEXT[kind])


def _page_url(query: str = "", page: int | str = "") -> str:
    params = {key: value for key, value in (("q", query), ("page", page)) if value not in ("", None, 1, "1")}
    url = reverse("portal:requests")
    return f"{url}?{urlencode(params)}" if params else url


@require_safe
@portal_login_required
def requests_page(request: HttpRequest) -> HttpResponse:
    """The page: my requests (last 90 days, at most 50), then requestable assets (searched, 25 a page), then
    requestable models with how many are available."""
    user = request.user
    if not may_request(user):
        return _refused(request)
    query = request.GET.get("q", "").strip()[:100]
    assets = services.requestable_assets(user).select_related("model", "location", "status")
    models = services.requestable_models(user).select_related("manufacturer", "category")
    if query:
        assets = assets.filter(Q(asset_tag__icontains=query) | Q(name__icontains=query) | Q(serial__icontains=query)
                               | Q(model__name__icontains=query) | Q(model__model_number__icontains=query))
        models = models.filter(Q(name__icontains=query) | Q(model_number__icontains=query)
                               | Q(manufacturer__name__icontains=query))
    page = Paginator(assets.order_by("asset_tag", "pk"), PAGE_SIZE).get_page(request.GET.get("page"))
    mine = services.recent_requests_of(user)
    open_assets = {r.asset_id for r in mine if r.is_open and r.asset_id is not None}
    open_models = {r.model_id for r in mine if r.is_open and r.model_id is not None}
    # A request older than the history shown is still open: ask the database for the page's items (one query).
    open_assets |= set(services.open_requests_of(user).filter(asset__in=[a.pk for a in page])
                       .values_list("asset_id", flat=True))
    models = list(models.order_by("name", "pk"))
    open_models |= set(services.open_requests_of(user).filter(model__in=[m.pk for m in models])
                       .values_list("model_id", flat=True))
    return portal_render(
        request, "portal/inventory/requests.html", page="requests", title=TITLE, query=query, assets=page,
        models=models, mine=mine, open_assets=open_assets, open_models=open_models,
        back=_page_url(query, page.number), history_days=services.HISTORY_DAYS, note_max=services.NOTE_MAX_LENGTH,
        previous_url=_page_url(query, page.previous_page_number()) if page.has_previous() else "",
        next_url=_page_url(query, page.next_page_number()) if page.has_next() else "",
    )


def _back(request: HttpRequest) -> HttpResponseRedirect:
    """Back to the page the form was on (its search and page number), never anywhere else."""
    back = request.POST.get("back", "")
    base = reverse("portal:requests")
    if not (back == base or back.startswith(f"{base}?")) or "\\" in back or "//" in back:
        back = base
    return HttpResponseRedirect(back)


def _act(request: HttpRequest, item_id: int, kind: str, call, done: str) -> HttpResponse:
    if not may_request(request.user):
        return _refused(request)
    if item_id > MAX_ID:
        return _not_found(request, kind)
    try:
        call(item_id)
    except NotFoundError:
        return _not_found(request, kind)
    except InvalidInputError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return _back(request)


def _note(request: HttpRequest) -> str:
    return request.POST.get("note", "")


@require_POST
@portal_login_required
def request_asset(request: HttpRequest, asset_id: int) -> HttpResponse:
    return _act(request, asset_id, "asset", lambda pk: services.request_create(
        asset_id=pk, actor=request.user, note=_note(request)), services.REQUESTED)


@require_POST
@portal_login_required
def cancel_asset(request: HttpRequest, asset_id: int) -> HttpResponse:
    return _act(request, asset_id, "asset", lambda pk: services.request_cancel(asset_id=pk, actor=request.user),
                services.CANCELED)


@require_POST
@portal_login_required
def request_model(request: HttpRequest, model_id: int) -> HttpResponse:
    return _act(request, model_id, "model", lambda pk: services.model_request_create(
        model_id=pk, actor=request.user, note=_note(request)), services.REQUESTED)


@require_POST
@portal_login_required
def cancel_model(request: HttpRequest, model_id: int) -> HttpResponse:
    return _act(request, model_id, "model", lambda pk: services.model_request_cancel(model_id=pk, actor=request.user),
                services.CANCELED)


#: The page and its forms' targets.
PAGES = (
    PortalPage("requests", "requests/", requests_page, label="Request", order=30, visible=may_request),
    PortalPage("request_asset", "requests/asset/<int:asset_id>/", request_asset),
    PortalPage("request_asset_cancel", "requests/asset/<int:asset_id>/cancel/", cancel_asset),
    PortalPage("request_model", "requests/model/<int:model_id>/", request_model),
    PortalPage("request_model_cancel", "requests/model/<int:model_id>/cancel/", cancel_model),
)


def register() -> None:
    """Called by :func:`inventory.portal.pages.register` (``InventoryConfig.ready()``)."""
    for page in PAGES:
        register_portal_page(page)
