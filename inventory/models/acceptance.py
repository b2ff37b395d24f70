"""Checkout acceptance (issue 29): an item checked out to a person whose category requires acceptance waits for that
person's answer, given on the page a signed e-mail link opens (Snipe-IT's ``checkout_acceptances``).

One row per checkout to a user that needs an answer, bound to that checkout: the item (``item_type``/``item_id``, the
action-log names), the assignment row of a kind handed out by quantity (``assignment_id``: the accessory checkout,
consumable handout, component installation or license seat), the checkout's action-log row and the person. A row is
``pending`` until the person accepts or declines; a checkin before that answer cancels it (the link then answers
"no longer waiting"). The EULA shown is kept as it was at checkout (``eula_text``, ``eula_sha256``), so what was
accepted is what was shown even if the category's text changes later.
"""

from __future__ import annotations

from django.db import models

from companies.querysets import CompanyScopedQuerySet
from inventory.models.base import USER_MODEL


class CheckoutAcceptanceQuerySet(CompanyScopedQuerySet):
    def pending(self) -> CheckoutAcceptanceQuerySet:
        return self.filter(state=CheckoutAcceptance.State.PENDING)

    def for_item(self, item_type: str, item_id: int) -> CheckoutAcceptanceQuerySet:
        return self.filter(item_type=item_type, item_id=item_id)


def asset_acceptance_exists(state: str, *, holder: bool = False) -> models.Exists:
    """Whether an asset (the outer row) has an acceptance in ``state`` (``holder``: one of its current user), as an
    EXISTS on the ``(item_type, item_id, state)`` index: a list filters and annotates with it in its one query."""
    rows = CheckoutAcceptance.objects.filter(item_type="asset", item_id=models.OuterRef("pk"), state=state)
    if holder:
        rows = rows.filter(user_id=models.OuterRef("assigned_user_id"))
    return models.Exists(rows)


class CheckoutAcceptance(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "awaiting acceptance"
        ACCEPTED = "accepted", "accepted"
        DECLINED = "declined", "declined"
        CANCELED = "canceled", "canceled (checked in before an answer)"

    #: The action-log ``item_type`` of the item (``asset``, ``accessory``, ``consumable``, ``component``, ``license``).
    item_type = models.CharField(max_length=32)
    item_id = models.BigIntegerField()
    #: The assignment row of a kind handed out by quantity (for licenses, the seat); null for assets.
    assignment_id = models.BigIntegerField(null=True, blank=True)
    checkout_log = models.ForeignKey("activity.ActionLog", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    user = models.ForeignKey(USER_MODEL, on_delete=models.CASCADE, related_name="checkout_acceptances")
    #: The item's company (company separation).
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    #: The EULA as shown at checkout (empty when the category has none) and its SHA-256 (hex).
    eula_text = models.TextField(blank=True, default="")
    eula_sha256 = models.CharField(max_length=64, blank=True, default="")
    #: A random value the signed link carries; replaced (so every earlier link dies) when a link is used.
    link_nonce = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, default="")
    remote_ip = models.CharField(max_length=64, blank=True, default="")
    user_agent = models.CharField(max_length=255, blank=True, default="")
    #: The PDF of the accepted EULA (``activity.StoredFile``), when one was made.
    signed_file = models.ForeignKey("activity.StoredFile", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")

    objects = CheckoutAcceptanceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["item_type", "item_id", "state"]),
            models.Index(fields=["user", "state"]),
            models.Index(fields=["state", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.item_type} #{self.item_id} to user #{self.user_id}: {self.get_state_display()}"
