"""The back office: Django's admin for inventory (docs/back-office.md), one module per resource (issue 26). Django
autodiscovers ``inventory.admin``; importing the modules here registers every admin, in the order the one admin.py
registered them. Company separation, the action pages and HISTORY are in ``inventory.admin.base``; the action log's
own admin is in ``activity.admin``."""

from inventory.admin import (  # noqa: F401
    acceptances,
    assets,
    catalogue,
    custom_fields,
    dashboard,
    kits,
    licenses,
    maintenances,
    requests,
    snipeit,
    stock,
    users,
)
