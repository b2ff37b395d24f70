"""Inventory's entries in the portal's registry (``accounts.portal.pages``), added in ``InventoryConfig.ready()``."""

from __future__ import annotations

from accounts.portal.pages import PortalPage, register_portal_page


def register() -> None:
    from inventory.portal import holdings
    from inventory.portal import requests as request_pages

    register_portal_page(PortalPage("home", "", holdings.my_items, label="My items", order=10))
    request_pages.register()
