"""``POST /users/two_factor_reset`` and ``GET /settings/login-attempts`` (issue 30; Snipe-IT's
``Api\\UsersController::postTwoFactorReset`` and ``Api\\SettingsController::showLoginAttempts``), super users only."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from accounts.models import User
from accounts.services import USER_NOT_FOUND
from accounts.twofactor.attempts import login_attempts
from accounts.twofactor.services import two_factor_reset
from assetsvc.api.fields import IsoUtcField, StrictIntegerField
from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.pagination import TotalRowsPagination
from assetsvc.api.permissions import HasItemPermission, IsSuperUser
from assetsvc.api.viewsets import ApiView
from assetsvc.exceptions import NotFoundError

#: Snipe-IT's answers (``admin/settings/general.two_factor_reset_success``; a missing id is its "No ID provided").
RESET_DONE = "Two factor device successfully reset"
NO_ID = "No ID provided"


class TwoFactorResetSerializer(serializers.Serializer):
    id = StrictIntegerField(min_value=1, error_messages={"required": NO_ID, "null": NO_ID})


class LoginAttemptSerializer(serializers.Serializer):
    username = serializers.CharField(read_only=True)
    remote_ip = serializers.CharField(source="ip_address", read_only=True, allow_null=True)
    user_agent = serializers.CharField(read_only=True)
    successful = serializers.SerializerMethodField()
    created_at = IsoUtcField(source="attempt_time")

    def get_successful(self, row) -> int:
        """Snipe-IT's column is a tinyint: 1 or 0."""
        return 1 if row["successful"] else 0


class SuperUserView(ApiView):
    permission_section = None  # not a permission key: super users only
    permission_classes = [HasItemPermission, IsSuperUser]


class TwoFactorResetView(SuperUserView):
    not_found_message = USER_NOT_FOUND

    @extend_schema(operation_id="users_two_factor_reset", request=TwoFactorResetSerializer,
                   responses={200: OpenApiResponse(
                       response={"type": "object", "properties": {"message": {"type": "string",
                                                                              "example": RESET_DONE}}})})
    def post(self, request):
        serializer = TwoFactorResetSerializer(data=self.input)
        serializer.is_valid(raise_exception=True)
        user = User.objects.restrict(request.user).filter(pk=serializer.validated_data["id"]).first()
        if user is None:
            raise NotFoundError(USER_NOT_FOUND)
        two_factor_reset(actor=request.user, user=user)
        return Response({"message": RESET_DONE})


LOGIN_ATTEMPTS_SCHEMA = {"type": "object", "properties": {
    "total": {"type": "integer"},
    "rows": {"type": "array", "items": {"type": "object", "properties": {
        "username": {"type": "string"}, "remote_ip": {"type": "string", "nullable": True},
        "user_agent": {"type": "string"}, "successful": {"type": "integer", "enum": [0, 1]},
        "created_at": {"type": "string", "format": "date-time"}}}}}}


class LoginAttemptsView(SuperUserView):
    pagination_class = TotalRowsPagination

    @extend_schema(operation_id="settings_login_attempts", parameters=[
        OpenApiParameter("limit", OpenApiTypes.INT), OpenApiParameter("offset", OpenApiTypes.INT),
        OpenApiParameter("cursor", OpenApiTypes.STR, description="Not for this list: a cursor answers 400 (the rows "
                         "come from two tables). Page with `offset`."),
        OpenApiParameter("sort", OpenApiTypes.STR, enum=["username", "remote_ip", "user_agent", "successful",
                                                         "created_at"]),
        OpenApiParameter("order", OpenApiTypes.STR, enum=["asc", "desc"])],
        responses={200: OpenApiResponse(response=LOGIN_ATTEMPTS_SCHEMA)})
    def get(self, request):
        params = request.query_params
        rows = login_attempts(sort=params.get("sort") or "created_at", order=params.get("order") or "desc")
        pager = TotalRowsPagination()
        page = pager.paginate_queryset(rows, request, self)
        return pager.get_paginated_response(LoginAttemptSerializer(page, many=True).data)


_SUPER = "Super users only; everyone else gets 403."
register_operation_texts({
    "users_two_factor_reset": OperationText(
        "Reset a user's two-factor sign-in",
        "Removes the user's authenticator and backup codes (body `{\"id\": user_id}`); they enrol again at their "
        "next admin sign-in when the site requires two-factor sign-in. Logged as `2FA reset`.", _SUPER),
    "settings_login_attempts": OperationText(
        "Recent sign-in attempts",
        "The admin's password sign-ins, successful and failed, newest first (`sort`, `order`, `limit`, `offset`). "
        "No password is ever recorded.", _SUPER),
})
