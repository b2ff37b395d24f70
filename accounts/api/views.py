from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from accounts import services
from accounts.api.serializers import PersonalAccessTokenSerializer, TokenCreateSerializer, UserProfileSerializer
from accounts.models import User
from assetsvc.api.viewsets import ApiView, success


class PersonalAccessTokenListView(ApiView):
    """``GET`` the caller's active tokens; ``POST`` a new one (its value is shown once, in this answer)."""

    permission_section = None  # any authenticated user manages their own tokens (API-CONTRACT.md §5)

    @extend_schema(operation_id="personal_access_tokens_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        tokens = services.personal_tokens_active(user=request.user)
        return success(PersonalAccessTokenSerializer(tokens, many=True).data)

    @extend_schema(operation_id="personal_access_tokens_create", request=TokenCreateSerializer,
                   responses={200: OpenApiTypes.OBJECT})
    def post(self, request):
        serializer = TokenCreateSerializer(data=self.input)
        serializer.is_valid(raise_exception=True)
        name = serializer.validated_data.get("name") or services.DEFAULT_TOKEN_NAME
        record, raw = services.personal_token_issue(user=request.user, name=name)
        return success(
            {"id": str(record.pk), "token": raw, "name": record.name},
            messages=f"Personal API Key {record.name} created successfully",
        )


class PersonalAccessTokenDetailView(ApiView):
    permission_section = None
    not_found_message = "Token not found."
    #: The contract fixes 404 for someone else's or an unknown token, in both error modes: an id that is not a UUID,
    #: and one the view refuses before the service sees it (a NUL byte), included (issue 25).
    not_found_status = 404

    @extend_schema(operation_id="personal_access_tokens_revoke", responses={204: None})
    def delete(self, request, token_id: str):
        services.personal_token_revoke(user=request.user, token_id=token_id)
        return Response(status=204)


class CurrentUserView(ApiView):
    """``GET /users/me``: the caller's profile, bare (not enveloped)."""

    permission_section = None

    @extend_schema(operation_id="users_me", responses={200: UserProfileSerializer})
    def get(self, request):
        user = (User.objects.select_related("company", "location", "department", "manager", "created_by")
                .prefetch_related("groups").get(pk=request.user.pk))
        return Response(UserProfileSerializer(user, context={"request": request}).data)
