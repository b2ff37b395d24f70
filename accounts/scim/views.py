"""The SCIM endpoints (RFC 7644) on DRF, outside ``/api/v1``: their own JSON (``application/scim+json``), their own
error shape, and the ``SCIM_ENABLED`` gate (off: every ``/scim/v2/`` path is the site's ordinary 404)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Prefetch, QuerySet
from django.http import Http404, QueryDict
from rest_framework import exceptions as drf
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import PersonalAccessTokenAuthentication
from accounts.models import PermissionGroup, User
from accounts.scim import schema
from accounts.scim.errors import ScimError
from accounts.scim.filters import GROUP_ATTRIBUTES, USER_ATTRIBUTES, filter_q
from accounts.scim.resources import group_patch, group_resource, user_patch_values, user_resource, user_values
from accounts.scim.services import (
    ensure_super_user,
    scim_group_change,
    scim_group_create,
    scim_user_create,
    scim_user_deactivate,
    scim_user_update,
)
from accounts.services import USERNAME_TAKEN, group_delete
from assetsvc.exceptions import DomainError

logger = logging.getLogger("accounts.scim")

#: The rights a SCIM client's token needs (a super user passes them all; ``admin`` passes item keys).
MANAGE_USERS = ("users.create", "users.edit", "users.delete")


class ScimRenderer(JSONRenderer):
    media_type = schema.CONTENT_TYPE
    charset = None


class ScimParser(JSONParser):
    media_type = schema.CONTENT_TYPE


class AlwaysScim(BaseContentNegotiation):
    """SCIM answers are ``application/scim+json`` whatever ``Accept`` says (Okta and Entra send either)."""

    def select_parser(self, request, parsers):
        content_type = request.content_type.split(";")[0].strip().lower()
        for parser in parsers:
            if parser.media_type == content_type:
                return parser
        return None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ScimTokenAuthentication(PersonalAccessTokenAuthentication):
    """The API's bearer authentication (a personal access token, resolved once per request, refused when revoked,
    expired or of a deactivated or deleted user), answering in the SCIM realm."""

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="scim"'


class MayManageUsers(BasePermission):
    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and all(user.has_access(key) for key in MANAGE_USERS))


def error_response(status: int, detail: str, scim_type: str | None = None, headers: dict | None = None) -> Response:
    body: dict[str, Any] = {"schemas": [schema.ERROR], "status": str(status), "detail": detail}
    if scim_type:
        body["scimType"] = scim_type
    return Response(body, status=status, headers=headers)


def _validation_detail(exc: DjangoValidationError) -> tuple[str, str | None, int]:
    messages = exc.message_dict if hasattr(exc, "error_dict") else {"": exc.messages}
    if USERNAME_TAKEN in messages.get("username", []) or "The name has already been taken." in messages.get("name", []):
        return "userName" if "username" in messages else "displayName", "uniqueness", 409
    text = "; ".join(f"{field}: {' '.join(texts)}" if field else " ".join(texts) for field, texts in messages.items())
    return text, "invalidValue", 400


def scim_exception_handler(exc, context) -> Response:
    """Every refusal in SCIM's error shape (RFC 7644 §3.12); nothing internal in the detail of a 500."""
    if isinstance(exc, ScimError):
        return error_response(exc.status, exc.detail, exc.scim_type)
    if isinstance(exc, drf.NotAuthenticated):
        return error_response(401, "Authentication required: Authorization: Bearer <personal access token>.",
                              headers={"WWW-Authenticate": 'Bearer realm="scim"'})
    if isinstance(exc, drf.AuthenticationFailed):
        return error_response(401, "The token is invalid or has expired.",
                              headers={"WWW-Authenticate": 'Bearer realm="scim"'})
    if isinstance(exc, drf.PermissionDenied | DjangoPermissionDenied):
        return error_response(403, "Insufficient permissions.")
    if isinstance(exc, drf.NotFound | Http404):
        return error_response(404, "Resource not found.")
    if isinstance(exc, DjangoValidationError):
        detail, scim_type, status = _validation_detail(exc)
        if status == 409:
            detail = f"{detail} is already taken."
        return error_response(status, detail, scim_type)
    if isinstance(exc, DomainError):
        status = {"not_found": 404, "conflict": 409}.get(exc.kind, 400)
        return error_response(status, str(exc), None if status == 404 else "invalidValue")
    if isinstance(exc, drf.ParseError):
        return error_response(400, "The body is not valid JSON.", "invalidSyntax")
    if isinstance(exc, drf.APIException):
        return error_response(exc.status_code, str(exc.detail))
    logger.exception("SCIM request failed")
    return error_response(500, "The request could not be completed.")


class ScimView(APIView):
    """The base of every SCIM endpoint: the gate, authentication, the right to manage users, the body limit, the
    SCIM content types and error shape. The address of each resource is ``base_url`` (the tenant URL)."""

    authentication_classes = [ScimTokenAuthentication]
    permission_classes = [MayManageUsers]
    parser_classes = [ScimParser, JSONParser]
    renderer_classes = [ScimRenderer]
    content_negotiation_class = AlwaysScim
    throttle_classes: list = []
    schema = None  # not part of /api/docs: SCIM describes itself (ServiceProviderConfig, ResourceTypes, Schemas)

    def dispatch(self, request, *args, **kwargs):
        if not settings.SCIM_ENABLED:
            raise Http404  # the ordinary 404 of an unknown path: nothing tells that SCIM exists
        return super().dispatch(request, *args, **kwargs)

    def get_exception_handler(self):
        return scim_exception_handler

    def initial(self, request, *args, **kwargs):
        announced = request.META.get("CONTENT_LENGTH", "").strip()
        if announced.isdigit() and int(announced) > schema.MAX_BODY_BYTES:
            raise ScimError(f"The body is larger than {schema.MAX_BODY_BYTES} bytes.", status=413)
        super().initial(request, *args, **kwargs)

    @property
    def base_url(self) -> str:
        return self.request.build_absolute_uri("/scim/v2/")

    def body(self) -> Any:
        data = self.request.data
        return {} if isinstance(data, QueryDict) else data  # no body at all

    def paging(self) -> tuple[int, int]:
        """``startIndex`` (1-based; below 1 is 1) and ``count`` (0 asks only for the total; capped), RFC 7644
        §3.4.2.4."""
        def number(name: str, default: int) -> int:
            raw = self.request.query_params.get(name)
            if raw is None or raw == "":
                return default
            try:
                return int(raw)
            except ValueError as exc:
                raise ScimError(f"{name} must be an integer.", scim_type="invalidValue") from exc
        return max(number("startIndex", 1), 1), min(max(number("count", schema.DEFAULT_COUNT), 0),
                                                     schema.MAX_RESULTS)

    def list_response(self, queryset: QuerySet, render) -> Response:
        start, count = self.paging()
        total = queryset.count()
        page = list(queryset[start - 1:start - 1 + count]) if count else []
        return Response({"schemas": [schema.LIST_RESPONSE], "totalResults": total, "startIndex": start,
                         "itemsPerPage": len(page), "Resources": [render(item) for item in page]})


class NotFoundView(ScimView):
    """Any other path under ``/scim/v2/``: SCIM's 404 (after authentication, so it tells nothing to strangers)."""

    def get(self, request, rest: str = ""):
        raise Http404

    post = put = patch = delete = get


# --- discovery ----------------------------------------------------------------------------------------------------


class ServiceProviderConfigView(ScimView):
    def get(self, request):
        return Response(schema.service_provider_config(self.base_url))


class ResourceTypesView(ScimView):
    def get(self, request, name: str | None = None):
        types = schema.resource_types(self.base_url)
        if name is not None:
            found = next((item for item in types if item["id"] == name), None)
            if found is None:
                raise Http404
            return Response(found)
        return Response({"schemas": [schema.LIST_RESPONSE], "totalResults": len(types), "startIndex": 1,
                         "itemsPerPage": len(types), "Resources": types})


class SchemasView(ScimView):
    def get(self, request, name: str | None = None):
        documents = schema.schemas(self.base_url)
        if name is not None:
            found = next((item for item in documents if item["id"] == name), None)
            if found is None:
                raise Http404
            return Response(found)
        return Response({"schemas": [schema.LIST_RESPONSE], "totalResults": len(documents), "startIndex": 1,
                         "itemsPerPage": len(documents), "Resources": documents})


# --- users --------------------------------------------------------------------------------------------------------


class UserViewMixin:
    def users(self) -> QuerySet:
        """The live users the caller may see (company separation: their company's only), oldest first."""
        return (User.objects.alive().restrict(self.request.user).select_related("department")
                .prefetch_related(Prefetch("groups", queryset=PermissionGroup.objects.order_by("pk")))
                .order_by("pk"))

    def user(self, pk: str) -> User:
        if not pk.isdigit():
            raise Http404
        found = self.users().filter(pk=int(pk)).first()
        if found is None:
            raise Http404
        return found

    def answer(self, user: User, status: int = 200) -> Response:
        resource = user_resource(self.user(str(user.pk)), self.base_url)
        return Response(resource, status=status, headers={"Location": resource["meta"]["location"]})


class UsersView(UserViewMixin, ScimView):
    def get(self, request):
        queryset = self.users()
        text = request.query_params.get("filter")
        if text:
            queryset = queryset.filter(filter_q(text, USER_ATTRIBUTES, schema.CORE_USER))
        return self.list_response(queryset, lambda user: user_resource(user, self.base_url))

    def post(self, request):
        values = user_values(self.body(), replace=False)
        user = scim_user_create(actor=request.user, values=values)
        return self.answer(user, status=201)


class UserView(UserViewMixin, ScimView):
    def get(self, request, pk: str):
        return self.answer(self.user(pk))

    def put(self, request, pk: str):
        user = self.user(pk)
        values = user_values(self.body(), replace=True)
        return self.answer(scim_user_update(actor=request.user, user=user, values=values))

    def patch(self, request, pk: str):
        user = self.user(pk)
        values = user_patch_values(self.body())
        if values:
            user = scim_user_update(actor=request.user, user=user, values=values)
        return self.answer(user)

    def delete(self, request, pk: str):
        user = self.user(pk)
        if user.is_active:
            scim_user_deactivate(actor=request.user, user=user)
        return Response(status=204)


# --- groups -------------------------------------------------------------------------------------------------------


class GroupViewMixin:
    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        ensure_super_user(request.user)

    def groups(self) -> QuerySet:
        alive = User.objects.filter(deleted_at__isnull=True).order_by("pk")
        return PermissionGroup.objects.prefetch_related(Prefetch("users", queryset=alive)).order_by("pk")

    def group(self, pk: str) -> PermissionGroup:
        found = self.groups().filter(pk=int(pk)).first() if pk.isdigit() else None
        if found is None:
            raise Http404
        return found

    def render(self, group: PermissionGroup) -> dict[str, Any]:
        resource = group_resource(group, self.base_url, members=list(group.users.all()))
        excluded = {name.strip().lower() for name in self.request.query_params.get("excludedAttributes", "").split(",")}
        if "members" in excluded:
            del resource["members"]  # Entra looks groups up with excludedAttributes=members
        return resource

    def answer(self, group: PermissionGroup, status: int = 200) -> Response:
        resource = self.render(self.group(str(group.pk)))
        return Response(resource, status=status, headers={"Location": resource["meta"]["location"]})


class GroupsView(GroupViewMixin, ScimView):
    def get(self, request):
        queryset = self.groups()
        text = request.query_params.get("filter")
        if text:
            queryset = queryset.filter(filter_q(text, GROUP_ATTRIBUTES, schema.CORE_GROUP)).distinct()
        return self.list_response(queryset, self.render)

    def post(self, request):
        body = self.body()
        name = body.get("displayName") if isinstance(body, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise ScimError("displayName is required.", scim_type="invalidValue")
        group = scim_group_create(actor=request.user, name=name.strip()[:255])
        if body.get("members"):
            group = scim_group_change(actor=request.user, group=group,
                                      change={"add": [str(item.get("value")) for item in body["members"]
                                                      if isinstance(item, dict)], "remove": [], "replace": None})
        return self.answer(group, status=201)


class GroupView(GroupViewMixin, ScimView):
    def get(self, request, pk: str):
        return self.answer(self.group(pk))

    def patch(self, request, pk: str):
        group = self.group(pk)
        change = group_patch(self.body())
        scim_group_change(actor=request.user, group=group, change=change)
        return Response(status=204)  # both providers take 204 (RFC 7644 §3.5.2)

    def put(self, request, pk: str):
        group = self.group(pk)
        body = self.body()
        if not isinstance(body, dict) or not isinstance(body.get("displayName"), str):
            raise ScimError("displayName is required.", scim_type="invalidValue")
        members = body.get("members") or []
        change = {"name": body["displayName"].strip()[:255], "add": [], "remove": [],
                  "replace": [str(item.get("value")) for item in members if isinstance(item, dict)]}
        scim_group_change(actor=request.user, group=group, change=change)
        return self.answer(group)

    def delete(self, request, pk: str):
        """Unlinking a group in the directory never deletes rights given here: a group is deleted only while it
        grants nothing (as SCIM created it); one with permissions answers 409 and stays."""
        group = self.group(pk)
        if any(value for value in (group.permissions or {}).values()):
            raise ScimError("This group grants permissions; delete it in the admin.", status=409,
                            scim_type="mutability")
        group_delete(actor=request.user, group=group)
        return Response(status=204)
