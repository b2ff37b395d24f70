"""Accepted EULAs (issue 29): ``GET account/eulas`` (the caller's), ``GET users/{id}/eulas`` (a user's, for holders of
``users.view`` who may see that user) and the signed PDF of one, ``GET account/eulas/{id}/file`` and
``GET users/{id}/eulas/{acceptance}/file``: only the person and those who may view that user download it (another
company's user is "not found", as everywhere)."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response

from accounts.models import User
from accounts.services import USER_NOT_FOUND
from activity.downloads import stored_file_response
from assetsvc.api.formats import record_timestamp
from assetsvc.api.viewsets import ApiView
from assetsvc.exceptions import NotFoundError
from assetsvc.registry import hook
from inventory.models import CheckoutAcceptance
from inventory.selectors.acceptances import accepted_of, item_names

EULA_NOT_FOUND = "The signed EULA was not found."


def eula_rows(request, user_id: int, *, own: bool) -> list[dict[str, Any]]:
    rows = list(accepted_of(user_id))
    names = item_names(rows)
    path = "/api/v1/account/eulas/{id}/file" if own else f"/api/v1/users/{user_id}/eulas/{{id}}/file"
    return [{
        "id": row.pk,
        "filename": row.signed_file.filename,
        "url": request.build_absolute_uri(path.format(id=row.pk)),
        "item": {"id": row.item_id, "type": row.item_type, "name": names.get((row.item_type, row.item_id))},
        "checked_out_at": record_timestamp(row.created_at),
        "accepted_at": record_timestamp(row.answered_at),
        "note": row.note or None,
        "eula_sha256": row.eula_sha256 or None,
    } for row in rows]


def visible_user(request, user_id: str) -> User:
    """The user ``user_id`` names, if the caller may see them; "not found" otherwise."""
    value = str(user_id).strip()
    user = None
    if value.isdigit() and len(value) <= 18:
        user = User.objects.restrict(request.user).filter(pk=int(value), deleted_at__isnull=True).first()
    if user is None:
        raise NotFoundError(USER_NOT_FOUND)
    return user


def download(row: CheckoutAcceptance | None) -> FileResponse:
    if row is None:
        raise NotFoundError(EULA_NOT_FOUND)
    return stored_file_response(row.signed_file)


PDF = {(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The signed EULA (PDF).")}


class MyEulasView(ApiView):
    """``GET account/eulas``: the EULAs the caller accepted, newest first (``{total, rows}``, unpaged)."""

    permission_section = None  # one's own

    @extend_schema(operation_id="account_eulas_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        rows = eula_rows(request, request.user.pk, own=True)
        return Response({"total": len(rows), "rows": rows})


class MyEulaFileView(ApiView):
    """``GET account/eulas/{id}/file``: the PDF of one of the caller's accepted EULAs."""

    permission_section = None
    not_found_message = EULA_NOT_FOUND

    @extend_schema(operation_id="account_eulas_file", responses=PDF)
    def get(self, request, acceptance_id: int):
        return download(accepted_of(request.user.pk).filter(pk=acceptance_id).first())


class UserEulasView(ApiView):
    """``GET users/{id}/eulas``: the EULAs a user accepted (``users.view``; another company's user is not found)."""

    permission_section = "users"
    not_found_message = USER_NOT_FOUND

    @extend_schema(operation_id="users_eulas_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request, user_id: str):
        user = visible_user(request, user_id)
        rows = eula_rows(request, user.pk, own=user.pk == request.user.pk)
        return Response({"total": len(rows), "rows": rows})


class UserEulaFileView(ApiView):
    """``GET users/{id}/eulas/{acceptance}/file``: the PDF, for the person or holders of ``users.view`` who may see
    that user."""

    permission_section = None  # the person themselves, or users.view (checked below)
    not_found_message = USER_NOT_FOUND

    @extend_schema(operation_id="users_eulas_file", responses=PDF)
    def get(self, request, user_id: str, acceptance_id: int):
        if str(user_id).strip() != str(request.user.pk):
            if not hook("permission_checker")(request.user, "users.view"):
                raise NotFoundError(USER_NOT_FOUND)
            visible_user(request, user_id)
        return download(accepted_of(int(user_id)).filter(pk=acceptance_id).first())
