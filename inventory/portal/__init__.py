"""Inventory's pages of the employees' portal (issue 32, ``/account/``): what I hold, waiting for me, requests, my
agreements, reporting a problem. They sit on inventory's services and selectors like the admin and the API, inside
the frame ``accounts.portal`` owns, and are registered in :func:`inventory.portal.pages.register`."""
