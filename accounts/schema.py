"""OpenAPI description of the bearer authentication (drf-spectacular cannot introspect our subclass)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class PersonalAccessTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.PersonalAccessTokenAuthentication"
    name = "personalAccessToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "Personal access token: Bearer <token>"}
