"""Checkout requests (Snipe-IT's "request this item"): a user asks for a requestable asset, or for any asset of a
requestable model, with an optional note to IT; they may cancel, and an administrator fulfils the request by checking
an asset out to the requester, or declines it.

Requestable means what Snipe-IT's ``scopeRequestableAssets`` means: the asset is flagged ``requestable``, alive,
and its label is deployable or pending (never archived or undeployable), and the caller may see it (company
separation). A requestable model (``scopeRequestableModels``) is flagged ``requestable`` and alive, whatever its
stock: the page shows how many of its assets are available to the caller. Asking twice for the same asset or model
keeps one open request (the database refuses a second), and each verb runs in one transaction on the locked asset or
model row, so a request cannot race its own cancellation or fulfilment.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Count, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from inventory import signals
from inventory.choices import StatusType
from inventory.models import Asset, AssetModel, CheckoutRequest
from inventory.services.assets import asset_checkout

NOT_REQUESTABLE = "Asset is not requestable"
MODEL_NOT_REQUESTABLE = "Model is not requestable"
REQUESTED = "Request successfully submitted."  # Snipe-IT: admin/hardware/message.requests.success
CANCELED = "Request successfully canceled."  # Snipe-IT: admin/hardware/message.requests.canceled
NOT_REQUESTED = "You have not requested this asset."
MODEL_NOT_REQUESTED = "You have not requested this model."
ASSET_NOT_FOUND = "Asset does not exist."
MODEL_NOT_FOUND = "Model does not exist."
REQUEST_CLOSED = "This request was already canceled or fulfilled."
NONE_AVAILABLE = "No asset of this model is available to check out."
NOTE_TOO_LONG = "The note may be at most {max} characters."
#: The longest note to IT a request keeps.
NOTE_MAX_LENGTH = 2000
#: "My requests" on the employees' page: the last 90 days, at most 50.
HISTORY_DAYS = 90
HISTORY_LIMIT = 50


def requestable_assets(user: User) -> QuerySet[Asset]:
    """The assets ``user`` may request: requestable, alive, deployable or pending, of a company they may see."""
    return (Asset.objects.restrict(user).alive().filter(requestable=True)
            .filter(Q(status__type=StatusType.DEPLOYABLE) | Q(status__type=StatusType.PENDING)))


def available_assets_of_model(user: User) -> QuerySet[Asset]:
    """Assets ``user`` may see that could be checked out now (not assigned, not deleted, deployable label)."""
    return Asset.objects.restrict(user).available()


def requestable_models(user: User) -> QuerySet[AssetModel]:
    """The models ``user`` may request (flagged ``requestable``, alive), each annotated ``available_count``: how many
    of its assets ``user`` may see are available now (one subquery, so a page costs the same whatever its size)."""
    available = (available_assets_of_model(user).filter(model=OuterRef("pk")).order_by().values("model")
                 .annotate(n=Count("pk")).values("n"))
    return (AssetModel.objects.filter(requestable=True, deleted_at__isnull=True)
            .annotate(available_count=Coalesce(Subquery(available, output_field=IntegerField()), Value(0))))


def open_requests_of(user: User) -> QuerySet[CheckoutRequest]:
    """``user``'s open requests, newest first: of assets still alive and visible to them, or of models alive."""
    return requests_of(user).open()


def requests_of(user: User) -> QuerySet[CheckoutRequest]:
    """Every request of ``user`` (open, fulfilled, canceled) whose asset is alive and visible to them, or whose model
    is alive, newest first."""
    return (CheckoutRequest.objects.filter(user=user)
            .filter(Q(asset__in=Asset.objects.restrict(user).alive())
                    | Q(asset__isnull=True, model__deleted_at__isnull=True)))


def recent_requests_of(user: User) -> list[CheckoutRequest]:
    """"My requests": the last :data:`HISTORY_DAYS` days of ``user``'s requests, at most :data:`HISTORY_LIMIT`,
    newest first, with what the page shows of the asset or model."""
    since = timezone.now() - timedelta(days=HISTORY_DAYS)
    return list(requests_of(user).filter(created_at__gte=since)
                .select_related("asset__model", "asset__location", "asset__status", "model__manufacturer")
                .order_by("-created_at", "-id")[:HISTORY_LIMIT])


def _clean_note(note: str) -> str:
    note = (note or "").strip()
    if len(note) > NOTE_MAX_LENGTH:
        raise InvalidInputError(NOTE_TOO_LONG.format(max=NOTE_MAX_LENGTH), messages={
            "note": [NOTE_TOO_LONG.format(max=NOTE_MAX_LENGTH)]})
    return note


def _locked_asset(asset_id: int, user: User) -> Asset:
    asset = Asset.objects.restrict(user).alive().select_for_update(of=("self",)).filter(pk=asset_id).first()
    if asset is None:
        raise NotFoundError(ASSET_NOT_FOUND)
    return asset


def _locked_model(model_id: int) -> AssetModel:
    """Models have no company: every signed-in requester may see an alive one."""
    model = AssetModel.objects.filter(deleted_at__isnull=True).select_for_update(of=("self",)).filter(
        pk=model_id).first()
    if model is None:
        raise NotFoundError(MODEL_NOT_FOUND)
    return model


def _log(action: str, asset: Asset, user: User, note: str = "") -> None:
    log_action(action_type=action, item_type="asset", item_id=asset.pk, actor=user, company_id=asset.company_id,
               target_type="user", target_id=user.pk, item=asset, target=user, location_id=user.location_id,
               note=note)


def _log_model(action: str, model: AssetModel, actor: User, requester: User, company_id: int | None,
               note: str = "") -> None:
    log_action(action_type=action, item_type="model", item_id=model.pk, actor=actor, company_id=company_id,
               target_type="user", target_id=requester.pk, item=model, target=requester,
               location_id=requester.location_id, note=note)


@transaction.atomic
def request_create(*, asset_id: int, actor: User, note: str = "") -> CheckoutRequest:
    """``actor`` asks for the asset, with an optional ``note`` to IT. Asking again for an asset one has an open
    request for answers that request (idempotent, as a double click should be; its note is kept); an asset that is
    not requestable is refused."""
    note = _clean_note(note)
    asset = _locked_asset(asset_id, actor)
    if not requestable_assets(actor).filter(pk=asset.pk).exists():
        raise InvalidInputError(NOT_REQUESTABLE)
    existing = CheckoutRequest.objects.open().filter(asset=asset, user=actor).first()
    if existing is not None:
        return existing
    request = CheckoutRequest.objects.create(asset=asset, user=actor, note=note)  # the asset row lock orders clicks
    Asset.objects.filter(pk=asset.pk).update(requests_counter=F("requests_counter") + 1)
    _log(ActionType.REQUESTED, asset, actor, note)
    signals.asset_requested.send(sender=Asset, item=asset, actor=actor, request=request)
    return request


@transaction.atomic
def request_cancel(*, asset_id: int, actor: User) -> int:
    """``actor`` withdraws their open request for the asset; the number of requests canceled (0 or 1)."""
    asset = _locked_asset(asset_id, actor)
    canceled = CheckoutRequest.objects.open().filter(asset=asset, user=actor).update(canceled_at=timezone.now())
    if not canceled:
        raise InvalidInputError(NOT_REQUESTED)
    Asset.objects.filter(pk=asset.pk, requests_counter__gt=0).update(requests_counter=F("requests_counter") - 1)
    _log(ActionType.REQUEST_CANCELED, asset, actor)
    signals.asset_request_canceled.send(sender=Asset, item=asset, actor=actor)
    return canceled


@transaction.atomic
def model_request_create(*, model_id: int, actor: User, note: str = "") -> CheckoutRequest:
    """``actor`` asks for any asset of a requestable model, with an optional ``note``. The request belongs to the
    requester's company (a model has none). Asking again answers the open request, as for an asset."""
    note = _clean_note(note)
    model = _locked_model(model_id)
    if not model.requestable:
        raise InvalidInputError(MODEL_NOT_REQUESTABLE)
    existing = CheckoutRequest.objects.open().filter(model=model, user=actor).first()
    if existing is not None:
        return existing
    request = CheckoutRequest.objects.create(model=model, user=actor, company_id=actor.company_id, note=note)
    _log_model(ActionType.REQUESTED, model, actor, actor, actor.company_id, note)
    signals.model_requested.send(sender=AssetModel, item=model, actor=actor, request=request)
    return request


@transaction.atomic
def model_request_cancel(*, model_id: int, actor: User) -> int:
    """``actor`` withdraws their open request for the model; the number of requests canceled (0 or 1)."""
    model = _locked_model(model_id)
    mine = CheckoutRequest.objects.open().filter(model=model, user=actor)
    company_id = mine.values_list("company_id", flat=True).first()
    canceled = mine.update(canceled_at=timezone.now())
    if not canceled:
        raise InvalidInputError(MODEL_NOT_REQUESTED)
    _log_model(ActionType.REQUEST_CANCELED, model, actor, actor, company_id)
    signals.model_request_canceled.send(sender=AssetModel, item=model, actor=actor)
    return canceled


def _pick_asset(locked: CheckoutRequest, actor: User) -> Asset:
    """An available asset of the requested model that the administrator and the requester may both see, locked;
    one another fulfilment holds is skipped rather than waited for."""
    asset = (available_assets_of_model(actor).filter(model_id=locked.model_id)
             .filter(pk__in=Asset.objects.restrict(locked.user).values("pk"))
             .select_for_update(skip_locked=True, of=("self",)).order_by("asset_tag", "pk").first())
    if asset is None:
        raise ConflictError(NONE_AVAILABLE, code="no_asset_available")
    return asset


@transaction.atomic
def request_fulfil(*, request: CheckoutRequest, actor: User, note: str = "") -> Asset:
    """Check the requested asset (or an available asset of the requested model) out to the requester (the same
    checkout as everywhere: the asset must be available, the requester a live user the administrator may see) and
    close the request. Either both happen or neither. A model with no available asset is a ConflictError."""
    locked = (CheckoutRequest.objects.select_for_update(of=("self",)).select_related("user", "asset", "model")
              .filter(pk=request.pk).first())
    if locked is None:
        raise NotFoundError("Request not found.")
    if not locked.is_open:
        raise ConflictError(REQUEST_CLOSED)
    asset = locked.asset if locked.asset_id is not None else _pick_asset(locked, actor)
    asset = asset_checkout(asset=asset, target=locked.user, actor=actor,
                           note=note or f"Requested by {locked.user.username}")
    locked.fulfilled_at = timezone.now()
    locked.fulfilled_by = actor
    locked.save(update_fields=["fulfilled_at", "fulfilled_by"])
    return asset


@transaction.atomic
def request_decline(*, request: CheckoutRequest, actor: User) -> None:
    """An administrator closes a request without checking anything out (logged as the request canceled)."""
    locked = (CheckoutRequest.objects.select_for_update(of=("self",)).filter(pk=request.pk)
              .select_related("asset", "model", "user").first())
    if locked is None or not locked.is_open:
        raise ConflictError(REQUEST_CLOSED)
    locked.canceled_at = timezone.now()
    locked.save(update_fields=["canceled_at"])
    if locked.asset_id is None:
        _log_model(ActionType.REQUEST_CANCELED, locked.model, actor, locked.user, locked.company_id)
        return
    Asset.objects.filter(pk=locked.asset_id, requests_counter__gt=0).update(
        requests_counter=F("requests_counter") - 1)
    log_action(action_type=ActionType.REQUEST_CANCELED, item_type="asset", item_id=locked.asset_id, actor=actor,
               company_id=locked.asset.company_id, target_type="user", target_id=locked.user_id, item=locked.asset,
               target=locked.user)
