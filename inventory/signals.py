"""Domain signals, sent explicitly by ``inventory.services.assets`` after a change (never from ``post_save``).

Every signal is sent inside the service's transaction with these keyword arguments:
``item`` (the model instance), ``actor`` (the acting user), ``target`` (user/asset/location, or None),
``note`` (str) and ``log`` (the ActionLog row); the accessory and consumable checkouts and the accessory checkin add
``quantity`` (the units moved). Every ``*_checked_out`` signal also carries ``acceptance``: the pending
``CheckoutAcceptance`` the checkout opened (a checkout to a user of a category with ``require_acceptance``; its link is
``inventory.acceptance_links.acceptance_url(acceptance)``), else None (issue 29). Receivers must defer outside work
until the commit (``transaction.on_commit``, or a task enqueued in the transaction, as the webhook receivers do).
"""

from django.dispatch import Signal

asset_checked_out = Signal()
asset_checked_in = Signal()
asset_audited = Signal()
# Accessories and consumables (inventory.services.stock); licenses to come.
accessory_checked_out = Signal()
accessory_checked_in = Signal()
consumable_checked_out = Signal()
license_checked_out = Signal()
license_checked_in = Signal()

# A record's own life (API-CONTRACT.md §8a, optional events): created, updated (a PATCH or PUT that changed something;
# never a checkout, checkin or audit), deleted and restored, one signal per kind and action. Sent with
# ``target=None`` and ``note=""`` after the action-log row by the create / update / delete / restore services.
asset_created = Signal()
asset_updated = Signal()
asset_deleted = Signal()
asset_restored = Signal()
accessory_created = Signal()
accessory_updated = Signal()
accessory_deleted = Signal()
accessory_restored = Signal()
consumable_created = Signal()
consumable_updated = Signal()
consumable_deleted = Signal()
consumable_restored = Signal()
component_created = Signal()
component_updated = Signal()
component_deleted = Signal()
component_restored = Signal()
license_created = Signal()
license_updated = Signal()
license_deleted = Signal()
license_restored = Signal()

#: The past tense of each lifecycle action (``activity.choices.ActionType`` value → event suffix).
LIFECYCLE_ACTIONS = {"create": "created", "update": "updated", "delete": "deleted", "restore": "restored"}


def lifecycle(kind: str, action: str) -> Signal:
    """The signal of ``<kind>.<past tense of action>`` (``action``: an ``ActionType`` value such as ``"create"``)."""
    return globals()[f"{kind}_{LIFECYCLE_ACTIONS[action]}"]


def send_lifecycle(kind: str, action: str, *, item, actor, log) -> None:
    """Send a record's lifecycle signal (inside the service's transaction, after its action-log row)."""
    lifecycle(kind, action).send(sender=type(item), item=item, actor=actor, target=None, note="", log=log)

# Checkout acceptance (issue 29, inventory.services.acceptance): the person answered a checkout's acceptance. Sent
# after the ``accepted`` / ``declined`` action-log row (a decline's checkin follows, with its own log row and
# ``*_checked_in`` signal) with ``item`` (the asset, accessory, consumable, component or license), ``actor`` and
# ``target`` (both the person), ``note``, ``log`` and ``acceptance`` (the CheckoutAcceptance row; its ``item_type``
# names the kind).
checkout_accepted = Signal()
checkout_declined = Signal()

# Checkout requests (inventory.services.requests): ``item`` (the asset), ``actor`` (the requester) and, on a request,
# ``request`` (the CheckoutRequest row).
asset_requested = Signal()
asset_request_canceled = Signal()
# Requests of a model (issue 32): the same arguments, ``item`` being the AssetModel (events ``model.requested`` and
# ``model.request_canceled``, off by default).
model_requested = Signal()
model_request_canceled = Signal()

# A problem reported by the person who holds an item (issue 32, inventory.services.problems.item_problem_report):
# ``item`` (the asset, accessory, consumable, component or license), ``actor`` and ``target`` (both the person),
# ``note`` (their text), ``log`` (the ``problem reported`` row) and ``kind`` (the item's action-log ``item_type``).
item_problem_reported = Signal()
