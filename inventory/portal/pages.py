"""Inventory's entries in the portal's registry (``accounts.portal.pages``), added in ``InventoryConfig.ready()``."""

from __future__ import annotations

from accounts.portal.pages import PortalPage, register_portal_page


def register() -> None:
    from inventory.portal import agreements, holdings, problems, waiting
    from inventory.portal import requests as request_pages
    from inventory.selectors.acceptances import pending_count

    register_portal_page(PortalPage("home", "", holdings.my_items, label="My items", order=10))
    register_portal_page(PortalPage("waiting", "waiting/", waiting.waiting, label="Waiting for me", order=20,
                                    count=lambda user: pending_count(user.pk)))
    register_portal_page(PortalPage("waiting_answer", "waiting/<int:acceptance_id>/", waiting.waiting_answer))
    request_pages.register()
    register_portal_page(PortalPage("agreements", "agreements/", agreements.agreements, label="Agreements", order=40))
    register_portal_page(PortalPage("agreement_file", "agreements/<int:acceptance_id>/file",
                                    agreements.agreement_file))
    register_portal_page(PortalPage("problem", "items/<str:kind>/<int:pk>/problem/", problems.problem_report))
