"""Domain signals, sent explicitly by ``inventory.services`` after a change (never from ``post_save``).

Every signal is sent inside the service's transaction with these keyword arguments:
``item`` (the model instance), ``actor`` (the acting user), ``target`` (user/asset/location, or None),
``note`` (str) and ``log`` (the ActionLog row). Receivers must defer outside work until the commit
(``transaction.on_commit``, or a task enqueued in the transaction, as the webhook receivers do).
"""

from django.dispatch import Signal

asset_checked_out = Signal()
asset_checked_in = Signal()
asset_audited = Signal()
# Accessories and consumables (inventory.stock); licenses to come.
accessory_checked_out = Signal()
accessory_checked_in = Signal()
consumable_checked_out = Signal()
license_checked_out = Signal()
license_checked_in = Signal()
