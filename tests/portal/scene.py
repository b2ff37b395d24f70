"""Items handed out through the real checkout services, for the portal's inventory tests (issue 32)."""

from __future__ import annotations

from inventory.services.checkout import CHECKOUT_KINDS, item_checkout
from tests.factories import AssetFactory, UserFactory
from tests.factories.inventory import (
    AccessoryFactory,
    AssetModelFactory,
    CategoryFactory,
    ComponentFactory,
    ConsumableFactory,
    LicenseFactory,
)


def hand_out(kind: str, item, target, *, actor=None, note: str = "", quantity: int = 1):
    actor = actor or UserFactory(superuser=True)
    return item_checkout(kind=CHECKOUT_KINDS[kind], item=item, target=target, actor=actor, note=note,
                         quantity=quantity)


def one_of_each(person, *, company=None, prefix: str = "P", acceptance: bool = False):
    """An asset, an accessory, a consumable, a license seat to ``person`` and a component in the asset; returns the
    items by kind."""
    def category(kind):
        return CategoryFactory(category_type=kind, require_acceptance=acceptance,
                               eula_text=f"Be kind to the {kind}." if acceptance else "")

    asset = AssetFactory(asset_tag=f"{prefix}-LAP", name=f"{prefix} laptop", company=company,
                         model=AssetModelFactory(name=f"{prefix} Model X", category=category("asset")))
    accessory = AccessoryFactory(name=f"{prefix} dock", company=company, category=category("accessory"))
    consumable = ConsumableFactory(name=f"{prefix} toner", company=company, category=category("consumable"))
    license_ = LicenseFactory(name=f"{prefix} office", serial=f"{prefix}-KEY-123", company=company,
                              category=category("license"))
    component = ComponentFactory(name=f"{prefix} ram", serial=f"{prefix}-RAM-SN", company=company)
    hand_out("asset", asset, person, note="first day")
    hand_out("accessory", accessory, person)
    hand_out("consumable", consumable, person)
    hand_out("license", license_, person)
    hand_out("component", component, asset)
    return {"asset": asset, "accessory": accessory, "consumable": consumable, "license": license_,
            "component": component}
