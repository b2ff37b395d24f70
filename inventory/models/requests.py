"""Checkout requests: a user asks for a requestable asset, or for any asset of a requestable model, with a note to
IT; an administrator fulfils the request by checking an asset out to them, or the user cancels it (Snipe-IT's
``checkout_requests``, whose ``requestable_type`` is an asset or an asset model)."""

from __future__ import annotations

from django.db import models

from assetsvc.typing import Actor
from companies.models import Company
from companies.querysets import CompanyScopedQuerySet, limiting_company_id
from inventory.models.assets import Asset
from inventory.models.base import USER_MODEL
from inventory.models.catalogue import AssetModel


class CheckoutRequestQuerySet(CompanyScopedQuerySet):
    #: An asset request is its asset's company's (company separation goes through the asset, as before issue 32).
    company_field = "asset__company"

    def restrict(self, user: Actor | None, action: str = "view") -> CheckoutRequestQuerySet:
        """An asset request follows its asset's company (``company_field``); a model request has no asset and a
        model no company, so it belongs to ``company``: the requester's company when they asked (issue 32)."""
        if user is None or not getattr(user, "is_authenticated", False):
            return self.none()
        limit = limiting_company_id(user)
        if limit is None:
            return self
        return self.filter(models.Q(asset__isnull=False, asset__company_id=limit)
                           | models.Q(asset__isnull=True, company_id=limit))

    def open(self) -> CheckoutRequestQuerySet:
        return self.filter(canceled_at__isnull=True, fulfilled_at__isnull=True)


OPEN = models.Q(canceled_at__isnull=True, fulfilled_at__isnull=True)


class CheckoutRequest(models.Model):
    """A user's request for one asset (``asset``) or for any asset of a model (``model``): exactly one is set."""

    asset = models.ForeignKey(Asset, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="checkout_requests")
    model = models.ForeignKey(AssetModel, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="checkout_requests")
    user = models.ForeignKey(USER_MODEL, on_delete=models.CASCADE, related_name="checkout_requests")
    #: A model request's company (the requester's when they asked); empty for asset requests, which follow the asset.
    company = models.ForeignKey(Company, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    quantity = models.PositiveIntegerField(default=1)
    #: The requester's note to IT.
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    canceled_at = models.DateTimeField(null=True, blank=True)
    fulfilled_at = models.DateTimeField(null=True, blank=True)
    fulfilled_by = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    objects = CheckoutRequestQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(asset__isnull=False, model__isnull=True)
                | models.Q(asset__isnull=True, model__isnull=False),
                name="checkout_request_asset_xor_model",
            ),
            # One open request per user and asset (or model): asking twice is answered, not stored twice.
            models.UniqueConstraint("asset", "user", condition=OPEN, name="checkout_request_one_open_per_user"),
            models.UniqueConstraint("model", "user", condition=OPEN, name="checkout_request_one_open_model_per_user"),
        ]

    def __str__(self) -> str:
        if self.asset_id is None:
            return f"request of model #{self.model_id} by user #{self.user_id}"
        return f"request of asset #{self.asset_id} by user #{self.user_id}"

    @property
    def is_open(self) -> bool:
        return self.canceled_at is None and self.fulfilled_at is None

    @property
    def item_type(self) -> str:
        """Snipe-IT's ``itemType()``: ``"asset"`` or ``"asset_model"``."""
        return "asset" if self.asset_id is not None else "asset_model"

    @property
    def state(self) -> str:
        if self.fulfilled_at:
            return "fulfilled"
        return "canceled" if self.canceled_at else "open"
