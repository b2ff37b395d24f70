"""The test provider's claims: each user's are written in the config file (``users[].claims``), so a test chooses
e-mail, ``email_verified``, ``preferred_username`` and names per person."""

from __future__ import annotations

from django.conf import settings
from oauth2_provider.oauth2_validators import OAuth2Validator


class ClaimsValidator(OAuth2Validator):
    oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "email_verified": "email"}

    def get_additional_claims(self, request):
        for user in settings.CONFIG["users"]:
            if user["username"] == request.user.username:
                return dict(user.get("claims", {}))
        return {}
