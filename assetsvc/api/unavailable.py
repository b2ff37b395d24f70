"""Routes Snipe-IT has that this server does not serve yet, in one place: each answers the error envelope with
what is missing (``code="not_available"``: 200 in ``compat`` mode, 409 in ``http`` mode), never a 404 route, a 405 or
a 500. Replace an entry's route with the real view when the feature lands, and drop it from ``FEATURES``."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema

from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.viewsets import ApiView
from assetsvc.exceptions import ConflictError

#: Feature name → the message its route answers.
FEATURES: dict[str, str] = {}


class UnavailableFeatureView(ApiView):
    """``UnavailableFeatureView.as_view(feature="users_two_factor_reset")``: any authenticated caller gets the feature's
    error envelope (an anonymous one 401, as on every route)."""

    permission_section = None
    feature: str = ""

    def refuse(self, request, *args, **kwargs):
        raise ConflictError(FEATURES[self.feature], code="not_available")

    @extend_schema(request=OpenApiTypes.OBJECT, responses={200: OpenApiResponse(
        description="Always the error envelope: the feature is not available on this server yet.")})
    def post(self, request, *args, **kwargs):
        return self.refuse(request)


register_operation_texts({
    f"{feature}_create": OperationText(
        f"Not available yet: {feature.replace('_', ' ')}",
        f"Answers the error envelope: {message}", "Any signed-in user (the answer is the same).")
    for feature, message in FEATURES.items()
})
