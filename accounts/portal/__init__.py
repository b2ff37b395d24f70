"""The employees' own pages ("My items", issue 32) under ``/account/``: sign-in for every active user, separate from
the admin (which stays for staff), and the pages an employee uses on a phone.

``accounts`` owns the frame: the sign-in and sign-out pages, the two-factor pages, the profile and personal access
tokens, the base template and the navigation. ``inventory`` (a layer above) adds its pages (what I hold, waiting for
me, requests, agreements) through the :mod:`accounts.portal.pages` registry in its ``AppConfig.ready()``, so nothing
here imports upward; :mod:`accounts.portal.urls` builds the URL list from that registry.
"""
