"""Checkout requests: a user asks for a requestable asset; an administrator fulfils the request by checking the
asset out to them, or the user cancels it (Snipe-IT's ``checkout_requests``)."""

from __future__ import annotations

from django.db import models

from companies.querysets import CompanyScopedQuerySet
from inventory.models.assets import Asset
from inventory.models.base import USER_MODEL


class CheckoutRequestQuerySet(CompanyScopedQuerySet):
    #: A request is its asset's company's (company separation goes through the asset).
    company_field = "asset__company"

    def open(self) -> CheckoutRequestQuerySet:
        return self.filter(canceled_at__isnull=True, fulfilled_at__isnull=True)


class CheckoutRequest(models.Model):
    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="checkout_requests")
    user = models.ForeignKey(USER_MODEL, on_delete=models.CASCADE, related_name="checkout_requests")
    quantity = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    canceled_at = models.DateTimeField(null=True, blank=True)
    fulfilled_at = models.DateTimeField(null=True, blank=True)
    fulfilled_by = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    objects = CheckoutRequestQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One open request per user and asset: asking twice is answered, not stored twice.
            models.UniqueConstraint(
                "asset", "user", condition=models.Q(canceled_at__isnull=True, fulfilled_at__isnull=True),
                name="checkout_request_one_open_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"request of asset #{self.asset_id} by user #{self.user_id}"

    @property
    def is_open(self) -> bool:
        return self.canceled_at is None and self.fulfilled_at is None
