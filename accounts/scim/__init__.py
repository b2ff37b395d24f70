"""SCIM 2.0 provisioning (RFC 7643/7644) at ``/scim/v2/`` for Entra ID and Okta (issue 30; docs/directory.md).

A small implementation on DRF rather than django-scim2 (docs/decisions.md "Issue 30: SCIM provisioning"): every write
goes through the accounts services (``user_create``, ``user_update``, ``group_create``), so the escalation guards,
company separation, the action log and token revocation on deactivation hold exactly as for ``/api/v1``.

- ``schema.py``: the URNs and the discovery documents (ServiceProviderConfig, ResourceTypes, Schemas);
- ``filters.py``: the filters providers send (``userName eq "x"``, ``externalId eq``, ``emails[type eq "work"].value
  eq``, ``displayName eq``) into a ``Q``; anything else is ``invalidFilter``;
- ``resources.py``: our users and permission groups as SCIM resources, and SCIM bodies and PATCH operations into the
  services' input;
- ``services.py``: the SCIM verbs over the accounts services;
- ``views.py``, ``urls.py``: the endpoints, their bearer authentication, the SCIM error shape and the ``SCIM_ENABLED``
  gate.
"""
