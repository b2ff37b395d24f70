"""Our users and permission groups as SCIM resources, and SCIM bodies and PATCH operations as the accounts services'
input (the attribute map of docs/directory.md).

| SCIM | ``accounts.User`` |
|---|---|
| ``id`` | ``pk`` (as text) |
| ``userName`` | ``username`` |
| ``externalId`` | ``external_id`` |
| ``name.givenName``, ``name.familyName`` | ``first_name``, ``last_name`` |
| ``emails`` (the primary, else the work, else the first) | ``email`` |
| ``phoneNumbers`` (the work, else the untyped or first) | ``phone`` |
| ``title`` | ``jobtitle`` |
| ``active`` (also ``"True"``/``"False"``, as Entra sends) | ``is_active`` |
| enterprise ``employeeNumber`` | ``employee_num`` |
| enterprise ``department`` (a name) | ``department`` (found by name in the user's company, else created there) |
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from accounts.scim.errors import ScimError
from accounts.scim.schema import CORE_GROUP, CORE_USER, ENTERPRISE_USER

if TYPE_CHECKING:
    from accounts.models import PermissionGroup, User

#: Attributes of the core and enterprise schemas we do not store: accepted and ignored, so a provider's default
#: attribute mapping (Entra sends ``preferredLanguage``, ``addresses``, ``manager`` ...) does not fail a whole user.
IGNORED = {
    "displayname", "nickname", "profileurl", "usertype", "preferredlanguage", "locale", "timezone", "password",
    "addresses", "ims", "photos", "entitlements", "roles", "x509certificates", "groups", "name.formatted",
    "name.middlename", "name.honorificprefix", "name.honorificsuffix", "manager", "costcenter", "organization",
    "division", "schemas", "id", "meta",
}
#: Our field of each stored text attribute (lower-cased path).
TEXT_PATHS = {
    "username": "username",
    "externalid": "external_id",
    "name.givenname": "first_name",
    "name.familyname": "last_name",
    "title": "jobtitle",
    "employeenumber": "employee_num",
    "department": "department",
}
TYPED = re.compile(r'^(emails|phonenumbers)\[\s*type\s+eq\s+"(\w+)"\s*\](?:\.(\w+))?$')
MAX_TEXT = 191


def iso(moment) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def user_resource(user: User, base_url: str) -> dict[str, Any]:
    location = f"{base_url}Users/{user.pk}"
    resource: dict[str, Any] = {
        "schemas": [CORE_USER, ENTERPRISE_USER],
        "id": str(user.pk),
        "userName": user.username,
        "name": {"givenName": user.first_name, "familyName": user.last_name,
                 "formatted": f"{user.first_name} {user.last_name}".strip()},
        "displayName": user.full_name,
        "active": user.is_active,
        "emails": [{"value": user.email, "type": "work", "primary": True}] if user.email else [],
        "phoneNumbers": [{"value": user.phone, "type": "work"}] if user.phone else [],
        "groups": [{"value": str(group.pk), "display": group.name, "$ref": f"{base_url}Groups/{group.pk}"}
                   for group in user.groups.all()],
        ENTERPRISE_USER: {"employeeNumber": user.employee_num or "",
                          "department": user.department.name if user.department_id else ""},
        "meta": {"resourceType": "User", "created": iso(user.created_at), "lastModified": iso(user.updated_at),
                 "location": location},
    }
    if user.external_id:
        resource["externalId"] = user.external_id
    if user.jobtitle:
        resource["title"] = user.jobtitle
    return resource


def group_resource(group: PermissionGroup, base_url: str, members: list[User] | None = None) -> dict[str, Any]:
    members = list(group.users.filter(deleted_at__isnull=True).order_by("pk")) if members is None else members
    return {
        "schemas": [CORE_GROUP],
        "id": str(group.pk),
        "displayName": group.name,
        "members": [{"value": str(user.pk), "display": user.username, "$ref": f"{base_url}Users/{user.pk}"}
                    for user in members],
        "meta": {"resourceType": "Group", "created": iso(group.created_at), "lastModified": iso(group.updated_at),
                 "location": f"{base_url}Groups/{group.pk}"},
    }


# --- input --------------------------------------------------------------------------------------------------------


def as_bool(value: Any) -> bool:
    """``active`` as a boolean: JSON's ``true``/``false``, or the text Entra ID sends (``"True"``, ``"False"``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    raise ScimError("active must be true or false.", scim_type="invalidValue")


def as_text(value: Any, attribute: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ScimError(f"{attribute} must be a string.", scim_type="invalidValue")
    text = str(value).strip()
    if len(text) > MAX_TEXT:
        raise ScimError(f"{attribute} may not be longer than {MAX_TEXT} characters.", scim_type="invalidValue")
    return text


def pick(values: Any, attribute: str, preferred_type: str) -> str:
    """The one value we keep of a multi-valued attribute (``emails``, ``phoneNumbers``): the primary, else the one
    of ``preferred_type``, else the first."""
    if values is None:
        return ""
    if not isinstance(values, list) or not all(isinstance(item, dict) for item in values):
        raise ScimError(f"{attribute} must be a list of objects.", scim_type="invalidValue")
    if not values:
        return ""
    chosen = (next((item for item in values if as_primary(item.get("primary"))), None)
              or next((item for item in values if str(item.get("type", "")).lower() == preferred_type), None)
              or values[0])
    return as_text(chosen.get("value"), f"{attribute}.value")


def as_primary(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _strip_urn(path: str) -> str:
    """A path qualified by its schema (``urn:...:enterprise:2.0:User:department``) as the bare attribute."""
    lowered = path.strip()
    for urn in (ENTERPRISE_USER, CORE_USER):
        if lowered.lower().startswith(urn.lower() + ":"):
            return lowered[len(urn) + 1:]
    return lowered


def apply_user_path(values: dict[str, Any], path: str, value: Any, *, remove: bool = False) -> None:
    """Set ``values`` (the services' input, our field names) from one attribute path and its value."""
    _apply_user_path(values, path, value, remove=remove)
    if values.get("email"):
        try:
            validate_email(values["email"])
        except ValidationError as exc:
            raise ScimError(f"Not an e-mail address: {values['email']}", scim_type="invalidValue") from exc


def _apply_user_path(values: dict[str, Any], path: str, value: Any, *, remove: bool = False) -> None:
    key = _strip_urn(path).lower()
    if key in IGNORED or key.startswith(("addresses", "name.formatted", "manager", "ims", "photos")):
        return
    if key == "active":
        if remove:
            raise ScimError("active cannot be removed.", scim_type="mutability")
        values["activated"] = as_bool(value)
        return
    if key == "username" and remove:
        raise ScimError("userName cannot be removed.", scim_type="mutability")
    if key in TEXT_PATHS:
        values[TEXT_PATHS[key]] = "" if remove else as_text(value, path)
        return
    if key == "name":
        if remove:
            values["first_name"] = values["last_name"] = ""
        elif isinstance(value, dict):
            for sub, sub_value in value.items():
                apply_user_path(values, f"name.{sub}", sub_value)
        else:
            raise ScimError("name must be an object.", scim_type="invalidValue")
        return
    if key in {"emails", "phonenumbers"}:
        field, preferred = ("email", "work") if key == "emails" else ("phone", "work")
        values[field] = "" if remove else pick(value, path, preferred)
        return
    typed = TYPED.match(key)
    if typed:
        attribute, kind, sub = typed.groups()
        if sub not in (None, "value"):
            return  # emails[type eq "work"].primary and the like: nothing of ours
        if kind != "work":
            return  # we keep the work address and phone only
        field = "email" if attribute == "emails" else "phone"
        if remove:
            values[field] = ""
        elif sub == "value":
            values[field] = as_text(value, path)
        else:
            values[field] = pick(value if isinstance(value, list) else [value], path, "work")
        return
    if key == ENTERPRISE_USER.lower():
        if not isinstance(value, dict):
            raise ScimError("The enterprise extension must be an object.", scim_type="invalidValue")
        for sub, sub_value in value.items():
            apply_user_path(values, sub, sub_value, remove=remove)
        return
    raise ScimError(f"Unknown attribute: {path}", scim_type="invalidPath")


def user_values(body: Any, *, replace: bool) -> dict[str, Any]:
    """A whole User resource (POST, PUT) as the services' input. On replace, what the body leaves out is cleared
    (RFC 7644 §3.5.1), except ``active``, which only changes when sent."""
    if not isinstance(body, dict):
        raise ScimError("The body must be a JSON object.", scim_type="invalidSyntax")
    if not isinstance(body.get("userName"), str) or not body["userName"].strip():
        raise ScimError("userName is required.", scim_type="invalidValue")
    values: dict[str, Any] = {}
    if replace:
        values.update({field: "" for field in ("external_id", "first_name", "last_name", "jobtitle", "email",
                                               "phone", "employee_num", "department")})
    for attribute, value in body.items():
        apply_user_path(values, attribute, value)
    if replace and values.get("employee_num") == "":
        values["employee_num"] = None
    return values


def patch_operations(body: Any) -> list[tuple[str, str | None, Any]]:
    """``(op, path, value)`` of a PatchOp body; ``op`` lower-cased (Entra sends ``"Replace"``, ``"Add"``)."""
    if not isinstance(body, dict) or not isinstance(body.get("Operations"), list) or not body["Operations"]:
        raise ScimError("A PatchOp body with Operations is required.", scim_type="invalidSyntax")
    out = []
    for operation in body["Operations"]:
        if not isinstance(operation, dict):
            raise ScimError("Each operation must be an object.", scim_type="invalidSyntax")
        op = str(operation.get("op", "")).lower()
        if op not in {"add", "replace", "remove"}:
            raise ScimError(f"Unknown operation: {operation.get('op')}", scim_type="invalidSyntax")
        path = operation.get("path")
        if path is not None and not isinstance(path, str):
            raise ScimError("path must be a string.", scim_type="invalidPath")
        if op == "remove" and not path:
            raise ScimError("remove needs a path.", scim_type="noTarget")
        out.append((op, path or None, operation.get("value")))
    return out


def user_patch_values(body: Any) -> dict[str, Any]:
    """The services' input of a user PATCH: each operation sets, adds (the same, for our one-valued fields) or
    removes (clears) an attribute; without a path the value is an object of attribute paths."""
    values: dict[str, Any] = {}
    for op, path, value in patch_operations(body):
        if path is None:
            if not isinstance(value, dict):
                raise ScimError("An operation without path needs an object value.", scim_type="invalidValue")
            for attribute, sub_value in value.items():
                apply_user_path(values, attribute, sub_value)
        else:
            apply_user_path(values, path, value, remove=op == "remove")
    if values.get("employee_num") == "":
        values["employee_num"] = None
    return values


MEMBER_FILTER = re.compile(r'^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$', re.IGNORECASE)


def member_ids(value: Any) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    ids = []
    for item in items:
        if not isinstance(item, dict) or "value" not in item:
            raise ScimError("members are objects with a value.", scim_type="invalidValue")
        ids.append(str(item["value"]))
    return ids


def group_patch(body: Any) -> dict[str, Any]:
    """A group PATCH as ``{"name"?, "add": [ids], "remove": [ids], "replace": [ids] | None}`` (member ids as sent).
    Shapes: Entra's ``{"op": "Add"|"Remove", "path": "members", "value": [{"value": id}]}``, Okta's
    ``{"op": "remove", "path": "members[value eq \\"id\\"]"}``, a ``replace`` of ``members`` or ``displayName``, and
    ``{"op": "replace", "value": {"displayName": ...}}``."""
    change: dict[str, Any] = {"add": [], "remove": [], "replace": None}
    for op, path, value in patch_operations(body):
        if path is None:
            if not isinstance(value, dict):
                raise ScimError("An operation without path needs an object value.", scim_type="invalidValue")
            items = list(value.items())
        else:
            items = [(path, value)]
        for attribute, item in items:
            key = attribute.strip()
            lowered = key.lower()
            single = MEMBER_FILTER.match(key)
            if lowered in {"id", "schemas", "meta", "externalid"}:
                continue
            if lowered == "displayname":
                if op == "remove":
                    raise ScimError("displayName cannot be removed.", scim_type="mutability")
                change["name"] = as_text(item, "displayName")
                if not change["name"]:
                    raise ScimError("displayName is required.", scim_type="invalidValue")
            elif single and op == "remove":
                change["remove"].append(single.group(1))
            elif lowered == "members":
                ids = member_ids(item)
                if op == "add":
                    change["add"].extend(ids)
                elif op == "remove":
                    if item is None:
                        change["replace"] = []
                    change["remove"].extend(ids)
                else:
                    change["replace"] = ids
                    change["add"], change["remove"] = [], []
            else:
                raise ScimError(f"Unknown attribute: {attribute}", scim_type="invalidPath")
    return change
