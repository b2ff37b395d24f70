"""SCIM URNs and the discovery documents (RFC 7643 §5-§7, RFC 7644 §4)."""

from __future__ import annotations

from typing import Any

CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User"
CORE_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
LIST_RESPONSE = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
SERVICE_PROVIDER_CONFIG = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
RESOURCE_TYPE = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema"

CONTENT_TYPE = "application/scim+json"
#: The largest request body a SCIM endpoint reads (a user or a group's membership change is a few KB).
MAX_BODY_BYTES = 1024 * 1024
#: The most resources one list answer holds (``count`` above it is lowered, RFC 7644 §3.4.2.4).
MAX_RESULTS = 200
DEFAULT_COUNT = 100


def service_provider_config(base_url: str) -> dict[str, Any]:
    return {
        "schemas": [SERVICE_PROVIDER_CONFIG],
        "patch": {"supported": True},
        "bulk": {"supported": False, "maxOperations": 0, "maxPayloadSize": MAX_BODY_BYTES},
        "filter": {"supported": True, "maxResults": MAX_RESULTS},
        "changePassword": {"supported": False},
        "sort": {"supported": False},
        "etag": {"supported": False},
        "authenticationSchemes": [{
            "type": "oauthbearertoken",
            "name": "Personal access token",
            "description": "Authorization: Bearer <personal access token> of a user allowed to create, edit and "
                           "delete users (groups: a super user).",
            "primary": True,
        }],
        "meta": {"resourceType": "ServiceProviderConfig", "location": f"{base_url}ServiceProviderConfig"},
    }


def resource_types(base_url: str) -> list[dict[str, Any]]:
    return [
        {"schemas": [RESOURCE_TYPE], "id": "User", "name": "User", "endpoint": "/Users",
         "description": "People (accounts.User)", "schema": CORE_USER,
         "schemaExtensions": [{"schema": ENTERPRISE_USER, "required": False}],
         "meta": {"resourceType": "ResourceType", "location": f"{base_url}ResourceTypes/User"}},
        {"schemas": [RESOURCE_TYPE], "id": "Group", "name": "Group", "endpoint": "/Groups",
         "description": "Permission groups (accounts.PermissionGroup)", "schema": CORE_GROUP,
         "meta": {"resourceType": "ResourceType", "location": f"{base_url}ResourceTypes/Group"}},
    ]


def _attr(name: str, kind: str = "string", *, required: bool = False, multi: bool = False,
          mutability: str = "readWrite", uniqueness: str = "none", case_exact: bool = False,
          sub: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    attribute: dict[str, Any] = {
        "name": name, "type": kind, "multiValued": multi, "required": required, "caseExact": case_exact,
        "mutability": mutability, "returned": "default", "uniqueness": uniqueness,
    }
    if sub is not None:
        attribute["subAttributes"] = sub
    return attribute


def _multi(name: str, value_kind: str = "string") -> dict[str, Any]:
    return _attr(name, "complex", multi=True, sub=[
        _attr("value", value_kind), _attr("type"), _attr("primary", "boolean")])


def schemas(base_url: str) -> list[dict[str, Any]]:
    """The attributes we store (RFC 7643 §7); others a provider sends are accepted and ignored (docs/directory.md)."""
    user = {
        "id": CORE_USER, "name": "User", "description": "User account",
        "attributes": [
            _attr("userName", required=True, uniqueness="server"),
            _attr("name", "complex", sub=[_attr("givenName"), _attr("familyName"),
                                          _attr("formatted", mutability="readOnly")]),
            _attr("displayName", mutability="readOnly"),
            _attr("title"),
            _attr("active", "boolean"),
            _multi("emails"),
            _multi("phoneNumbers"),
            _attr("groups", "complex", multi=True, mutability="readOnly",
                  sub=[_attr("value", mutability="readOnly"), _attr("display", mutability="readOnly")]),
        ],
    }
    enterprise = {
        "id": ENTERPRISE_USER, "name": "EnterpriseUser", "description": "Enterprise user",
        "attributes": [_attr("employeeNumber"), _attr("department")],
    }
    group = {
        "id": CORE_GROUP, "name": "Group", "description": "Permission group (created without permissions)",
        "attributes": [
            _attr("displayName", required=True, uniqueness="server"),
            _attr("members", "complex", multi=True,
                  sub=[_attr("value", mutability="immutable"), _attr("display", mutability="readOnly")]),
        ],
    }
    out = []
    for document in (user, enterprise, group):
        out.append({**document, "schemas": [SCHEMA],
                    "meta": {"resourceType": "Schema", "location": f"{base_url}Schemas/{document['id']}"}})
    return out
