"""Checkout requests (Snipe-IT's "request this item"): a user asks for a requestable asset, may cancel, and an
administrator fulfils the request by checking the asset out to the requester.

Requestable means what Snipe-IT's ``scopeRequestableAssets`` means: the asset is flagged ``requestable``, alive,
and its label is deployable or pending (never archived or undeployable), and the caller may see it (company
separation). Asking twice for the same asset keeps one open request (the database refuses a second), and each verb
runs in one transaction on the locked asset row, so a request cannot race its own cancellation or fulfilment.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from inventory import signals
from inventory.choices import StatusType
from inventory.models import Asset, CheckoutRequest
from inventory.services.assets import asset_checkout

NOT_REQUESTABLE = "Asset is not requestable"
REQUESTED = "Request successfully submitted."  # Snipe-IT: admin/hardware/message.requests.success
CANCELED = "Request successfully canceled."  # Snipe-IT: admin/hardware/message.requests.canceled
NOT_REQUESTED = "You have not requested this asset."
ASSET_NOT_FOUND = "Asset does not exist."
REQUEST_CLOSED = "This request was already canceled or fulfilled."


def requestable_assets(user: User) -> QuerySet[Asset]:
    """The assets ``user`` may request: requestable, alive, deployable or pending, of a company they may see."""
    return (Asset.objects.restrict(user).alive().filter(requestable=True)
            .filter(Q(status__type=StatusType.DEPLOYABLE) | Q(status__type=StatusType.PENDING)))


def open_requests_of(user: User) -> QuerySet[CheckoutRequest]:
    """``user``'s open requests, newest first (their own: no separation needed beyond the asset still visible)."""
    return (CheckoutRequest.objects.open().filter(user=user, asset__deleted_at__isnull=True)
            .filter(asset__in=Asset.objects.restrict(user)))


def _locked_asset(asset_id: int, user: User) -> Asset:
    asset = Asset.objects.restrict(user).alive().select_for_update(of=("self",)).filter(pk=asset_id).first()
    if asset is None:
        raise NotFoundError(ASSET_NOT_FOUND)
    return asset


def _log(action: str, asset: Asset, user: User) -> None:
    log_action(action_type=action, item_type="asset", item_id=asset.pk, actor=user, company_id=asset.company_id,
               target_type="user", target_id=user.pk, item=asset, target=user, location_id=user.location_id)


@transaction.atomic
def request_create(*, asset_id: int, actor: User) -> CheckoutRequest:
    """``actor`` asks for the asset. Asking again for an asset one has an open request for answers that request
    (idempotent, as a double click should be); an asset that is not requestable is refused."""
    asset = _locked_asset(asset_id, actor)
    if not requestable_assets(actor).filter(pk=asset.pk).exists():
        raise InvalidInputError(NOT_REQUESTABLE)
    existing = CheckoutRequest.objects.open().filter(asset=asset, user=actor).first()
    if existing is not None:
        return existing
    request = CheckoutRequest.objects.create(asset=asset, user=actor)  # the asset row lock orders double clicks
    Asset.objects.filter(pk=asset.pk).update(requests_counter=F("requests_counter") + 1)
    _log(ActionType.REQUESTED, asset, actor)
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
def request_fulfil(*, request: CheckoutRequest, actor: User, note: str = "") -> Asset:
    """Check the requested asset out to the requester (the same checkout as everywhere: the asset must be
    available, the requester a live user the administrator may see) and close the request. Either both happen or
    neither."""
    locked = CheckoutRequest.objects.select_for_update().filter(pk=request.pk).first()
    if locked is None:
        raise NotFoundError("Request not found.")
    if not locked.is_open:
        raise ConflictError(REQUEST_CLOSED)
    asset = asset_checkout(asset=locked.asset, target=locked.user, actor=actor,
                           note=note or f"Requested by {locked.user.username}")
    locked.fulfilled_at = timezone.now()
    locked.fulfilled_by = actor
    locked.save(update_fields=["fulfilled_at", "fulfilled_by"])
    return asset


@transaction.atomic
def request_decline(*, request: CheckoutRequest, actor: User) -> None:
    """An administrator closes a request without checking anything out (logged as the request canceled)."""
    locked = CheckoutRequest.objects.select_for_update().filter(pk=request.pk).select_related("asset", "user").first()
    if locked is None or not locked.is_open:
        raise ConflictError(REQUEST_CLOSED)
    locked.canceled_at = timezone.now()
    locked.save(update_fields=["canceled_at"])
    Asset.objects.filter(pk=locked.asset_id, requests_counter__gt=0).update(
        requests_counter=F("requests_counter") - 1)
    log_action(action_type=ActionType.REQUEST_CANCELED, item_type="asset", item_id=locked.asset_id, actor=actor,
               company_id=locked.asset.company_id, target_type="user", target_id=locked.user_id, item=locked.asset,
               target=locked.user)
