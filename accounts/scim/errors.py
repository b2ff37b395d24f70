"""The SCIM error (RFC 7644 §3.12): ``{"schemas": [Error], "status": "<code>", "scimType"?, "detail"}``."""

from __future__ import annotations


class ScimError(Exception):
    """A refusal the SCIM layer decides itself (a bad filter, path or value); ``scim_type`` is RFC 7644's keyword
    (``invalidFilter``, ``invalidPath``, ``invalidValue``, ``invalidSyntax``, ``uniqueness``, ``mutability``,
    ``noTarget``)."""

    def __init__(self, detail: str, *, status: int = 400, scim_type: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.scim_type = scim_type
