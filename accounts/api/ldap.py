"""The directory's routes (issue 30, docs/directory.md), super users only; while ``LDAP_SERVER_URI`` is empty each
answers the "not configured" error envelope it answered before.

- ``POST /users/ldapsync``: ``manage.py ldap_sync`` (``dry_run`` in the body: report only); the envelope's payload
  carries the counts (created, updated, deactivated, unchanged, skipped) and the usernames.
- ``GET`` and ``POST /settings/ldaptest``: connect, bind as ``LDAP_BIND_DN`` and search once: the number of people
  found, or the failure's error class (never the exception's text, which may quote a DN, never a password).
- ``POST /settings/ldaptestlogin``: ``ldaptest_user`` and ``ldaptest_password`` (Snipe-IT's names; ``username`` and
  ``password`` too) tried as a directory sign-in; no user is created or changed here, the password is never echoed.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from accounts.ldap.directory import LDAPException
from accounts.ldap.services import enabled_config, ldap_sync, ldap_test, ldap_test_login
from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.permissions import HasItemPermission, IsSuperUser
from assetsvc.api.viewsets import ApiView, success
from assetsvc.exceptions import ConflictError


class LdapTestFailedError(ConflictError):
    """The directory could not be reached, refused the bind, or refused the person's password."""

    default_code = "ldap_test_failed"


def _failure(what: str, exc: LDAPException) -> LdapTestFailedError:
    return LdapTestFailedError(f"{what}: {type(exc).__name__}")


def _envelope(message: str, payload: dict) -> dict:
    return {"type": "object", "properties": {
        "status": {"type": "string", "example": "success"},
        "messages": {"type": "string", "example": message},
        "payload": {"type": "object", "properties": payload}}}


_NAMES = {"type": "array", "items": {"type": "string"}}
SYNC_SCHEMA = _envelope("LDAP sync: 4 created, 0 updated, 0 deactivated, 0 unchanged, 0 skipped", {
    "dry_run": {"type": "boolean"}, "created": {"type": "integer"}, "updated": {"type": "integer"},
    "deactivated": {"type": "integer"}, "unchanged": {"type": "integer"}, "skipped": {"type": "integer"},
    "created_users": _NAMES, "updated_users": _NAMES, "deactivated_users": _NAMES,
    "skipped_users": {"type": "array", "items": {"type": "object", "properties": {
        "username": {"type": "string"}, "reason": {"type": "string"}}}},
    "unmatched": {"type": "array", "items": {"type": "object", "properties": {
        "username": {"type": "string"}, "field": {"type": "string"}, "value": {"type": "string"},
        "reason": {"type": "string"}}}}})
TEST_SCHEMA = _envelope("Successfully connected and bound to the LDAP server: 5 users found.", {
    "users": {"type": "integer", "example": 5}, "disabled": {"type": "integer", "example": 1}})
LOGIN_SCHEMA = _envelope("It worked! jdoe successfully binded to LDAP.", {
    "username": {"type": "string", "example": "jdoe"}})


class SuperUserView(ApiView):
    permission_section = None  # not a permission key: super users only
    permission_classes = [HasItemPermission, IsSuperUser]


class UserLdapSyncView(SuperUserView):
    """``POST /users/ldapsync``; the path comes before ``users/{id}``: its other methods answer 405."""

    @extend_schema(operation_id="users_ldap_sync", request=None,
                   responses={200: OpenApiResponse(response=SYNC_SCHEMA)})
    def post(self, request):
        dry_run = str(request.data.get("dry_run", "")).strip().lower() in {"1", "true", "yes", "on"}
        try:
            report = ldap_sync(actor=request.user, dry_run=dry_run)
        except LDAPException as exc:
            raise _failure("LDAP sync failed", exc) from exc
        counts = report.counts()
        text = ("LDAP sync (dry run): " if dry_run else "LDAP sync: ") + ", ".join(
            f"{count} {name}" for name, count in counts.items())
        return success(report.as_dict(), text)


def _test():
    try:
        result = ldap_test()
    except LDAPException as exc:
        raise _failure("LDAP test failed", exc) from exc
    return success(result, f"Successfully connected and bound to the LDAP server: {result['users']} users found.")


class LdapTestView(SuperUserView):
    """Snipe-IT v8.1.4 routes ``GET``; issue 27 names ``POST``: both answer the same."""

    @extend_schema(operation_id="settings_ldap_test", request=None,
                   responses={200: OpenApiResponse(response=TEST_SCHEMA)})
    def get(self, request):
        return _test()

    @extend_schema(operation_id="settings_ldap_test_post", request=None,
                   responses={200: OpenApiResponse(response=TEST_SCHEMA)})
    def post(self, request):
        return _test()


class LdapTestLoginSerializer(serializers.Serializer):
    ldaptest_user = serializers.CharField(required=False, allow_blank=True, max_length=255)
    ldaptest_password = serializers.CharField(required=False, allow_blank=True, max_length=1024, write_only=True,
                                              trim_whitespace=False)
    username = serializers.CharField(required=False, allow_blank=True, max_length=255)
    password = serializers.CharField(required=False, allow_blank=True, max_length=1024, write_only=True,
                                     trim_whitespace=False)

    def validate(self, attrs):
        username = attrs.get("ldaptest_user") or attrs.get("username") or ""
        password = attrs.get("ldaptest_password") or attrs.get("password") or ""
        errors = {}
        if not username:
            errors["ldaptest_user"] = ["The ldaptest user field is required."]
        if not password:
            errors["ldaptest_password"] = ["The ldaptest password field is required."]
        if errors:
            raise serializers.ValidationError(errors)
        return {"username": username, "password": password}


class LdapTestLoginView(SuperUserView):
    @extend_schema(operation_id="settings_ldap_test_login", request=LdapTestLoginSerializer,
                   responses={200: OpenApiResponse(response=LOGIN_SCHEMA)})
    def post(self, request):
        enabled_config()  # "not configured" before the input is looked at
        serializer = LdapTestLoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        username = serializer.validated_data["username"]
        try:
            person = ldap_test_login(username=username, password=serializer.validated_data["password"])
        except LDAPException as exc:
            raise _failure("LDAP login test failed", exc) from exc
        if person is None:
            raise LdapTestFailedError(f"Login Failed. {username} did not successfully bind to LDAP.")
        if person.disabled:
            raise LdapTestFailedError(f"Login Failed. {username} is disabled in the directory.")
        return success({"username": person.username},
                       f"It worked! {username} successfully binded to LDAP.")


_SUPER = "Super users only; everyone else gets 403."
_OFF = " While LDAP_SERVER_URI is empty: the error envelope \"LDAP is not configured on this server.\""
register_operation_texts({
    "users_ldap_sync": OperationText(
        "Import users from LDAP", "Runs the directory sync (`manage.py ldap_sync`): creates, updates and "
        "deactivates users that came from the directory; the payload has the counts and usernames. "
        "`dry_run: true` reports without writing." + _OFF, _SUPER),
    "settings_ldap_test": OperationText(
        "Test the LDAP connection", "Connects, binds as LDAP_BIND_DN and searches once: the number of people "
        "found, or the error class." + _OFF, _SUPER),
    "settings_ldap_test_post": OperationText("Test the LDAP connection (POST)", "The same as GET.", _SUPER),
    "settings_ldap_test_login": OperationText(
        "Test an LDAP sign-in", "Tries `ldaptest_user` and `ldaptest_password` as a directory sign-in; nothing "
        "is written and the password is never echoed." + _OFF, _SUPER),
})
