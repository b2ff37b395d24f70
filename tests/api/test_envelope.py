"""What every /api/v1 answer shares: JSON envelopes for 401/403/404/405/422/500, lenient input parsing."""

from __future__ import annotations

import pytest
from django.urls import path
from rest_framework.response import Response

from assetsvc.api.viewsets import ApiView, success
from assetsvc.urls import urlpatterns as real_urlpatterns

pytestmark = pytest.mark.django_db


class EchoView(ApiView):
    """Echoes the merged input (body over query string), for the parsing tests."""

    permission_section = None

    def post(self, request):
        return success(self.input)

    def get(self, request):
        raise RuntimeError("boom: internal detail that must not leak")


class ForbiddenView(ApiView):
    permission_section = "assets"

    def get(self, request):  # pragma: no cover - never reached without assets.view
        return Response({})


urlpatterns = [
    path("api/v1/test-echo", EchoView.as_view()),
    path("api/v1/test-assets", ForbiddenView.as_view()),
    *real_urlpatterns,
]


@pytest.fixture
def echo_urls(settings):
    settings.ROOT_URLCONF = __name__


def test_unknown_endpoint_is_404_envelope(token_client):
    for method in ("get", "post", "patch", "delete"):
        response = getattr(token_client, method)("/api/v1/no-such-thing")
        assert response.status_code == 404, method
        assert response.json() == {"status": "error", "message": "404 endpoint not found.",
                                   "messages": "404 endpoint not found.", "payload": None}


def test_unknown_endpoint_without_token_is_401(api_client):
    assert api_client.get("/api/v1/no-such-thing").status_code == 401


def test_wrong_method_is_405_envelope(token_client):
    response = token_client.put("/api/v1/users/me", {}, format="json")
    assert response.status_code == 405
    assert response.json()["message"] == "Method not allowed"
    assert response.json()["status"] == "error"


def test_json_whatever_accept_says(token_client):
    for accept in ("text/html", "application/xml", "*/*", "nonsense"):
        response = token_client.get("/api/v1/users/me", HTTP_ACCEPT=accept)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
    response = token_client.get("/api/v1/nope", HTTP_ACCEPT="text/html")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"


def test_trailing_slash_is_optional(token_client):
    assert token_client.get("/api/v1/users/me/").status_code == 200
    assert token_client.get("/api/v1/account/personal-access-tokens/").json()["status"] == "success"


def test_missing_permission_is_403_envelope(echo_urls, make_client, user):
    response = make_client(user).get("/api/v1/test-assets")
    assert response.status_code == 403
    assert response.json() == {"status": "error", "message": "Insufficient permissions.",
                               "messages": "Insufficient permissions.", "payload": None}


def test_unhandled_error_is_500_envelope_without_internals(echo_urls, token_client):
    token_client.raise_request_exception = False
    response = token_client.get("/api/v1/test-echo")
    assert response.status_code == 500
    assert response.json()["status"] == "error"
    assert "boom" not in response.content.decode()


def test_body_is_merged_over_query_string(echo_urls, token_client):
    response = token_client.post("/api/v1/test-echo?a=1&b=2&list[]=x&list[]=y", {"b": "body", "c": 3},
                                 format="json")
    assert response.json()["payload"] == {"a": "1", "b": "body", "c": 3, "list": ["x", "y"]}


def test_form_body_labelled_json_is_read_as_form(echo_urls, token_client):
    response = token_client.post("/api/v1/test-echo", "name=Laptop+1&model_id=12", content_type="application/json")
    assert response.json()["payload"] == {"name": "Laptop 1", "model_id": "12"}


def test_real_form_body_is_read(echo_urls, token_client):
    response = token_client.post("/api/v1/test-echo", {"name": "x"})  # multipart
    assert response.json()["payload"] == {"name": "x"}


def test_empty_strings_are_null_and_strings_trimmed(echo_urls, token_client):
    response = token_client.post("/api/v1/test-echo", {"a": "", "b": "  x  "}, format="json")
    assert response.json()["payload"] == {"a": None, "b": "x"}


@pytest.mark.parametrize("body", ['{"a": ', "[1, 2", '{"a": NaN}', "{" * 5000 + "}" * 5000, b"{\xff}"])
def test_broken_json_is_invalid_json_422(echo_urls, token_client, body):
    response = token_client.post("/api/v1/test-echo", body, content_type="application/json")
    assert response.status_code == 422
    assert response.json()["message"] == "Invalid JSON"


def test_non_object_json_body_is_refused(echo_urls, token_client):
    response = token_client.post("/api/v1/test-echo", "[1, 2]", content_type="application/json")
    assert response.json()["status"] == "error"


def test_nul_in_query_string_is_refused(echo_urls, token_client):
    response = token_client.post("/api/v1/test-echo?name=a%00b")  # sort, order, search are lenient (issue 25)
    assert response.json()["status"] == "error"
    assert response.json()["messages"] == {"name": ["NUL characters are not allowed."]}


def test_https_required_when_tls_forced(settings, token_client):
    settings.APP_FORCE_TLS = True
    response = token_client.get("/api/v1/users/me")
    assert response.status_code == 403
    assert response.json()["message"] == "HTTPS is required for the API."
    assert token_client.get("/api/v1/users/me", secure=True).status_code == 200


def test_openapi_schema_is_served(token_client):
    response = token_client.get("/api/v1/schema", HTTP_ACCEPT="application/json")
    assert response.status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/hardware", "/api/v1/hardware/1", "/api/v1/hardware/audits/due",
                                  "/api/v1/companies", "/api/v1/users/1", "/api/v1/statuslabels/selectlist",
                                  "/api/v1/users/me", "/api/v1/account/personal-access-tokens"])
def test_options_is_answered_never_a_500(token_client, make_client, user, path):
    """Found by schemathesis: OPTIONS reaches viewsets as DRF's ``metadata`` action."""
    response = token_client.options(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    if path.startswith(("/api/v1/hardware", "/api/v1/companies")):
        assert make_client(user).options(path).status_code == 403  # needs the view permission


@pytest.mark.parametrize("path", ["/api/v1/hardware/bytag/%00", "/api/v1/hardware/bytag/x%00/checkout",
                                  "/api/v1/companies/1%00"])
def test_nul_in_a_path_segment_is_not_found(token_client, path):
    """Found by probing PostgreSQL: a NUL in a tag or serial must not reach the database."""
    response = token_client.get(path) if "checkout" not in path else token_client.post(path, {}, format="json")
    assert response.status_code in (200, 404)
    assert response.json()["status"] == "error"


def test_nul_in_a_serial_is_an_empty_list(token_client):
    """byserial always answers the list envelope, even for a serial no asset can have."""
    response = token_client.get("/api/v1/hardware/byserial/a%00b")
    assert response.status_code == 200
    assert response.json() == {"total": 0, "rows": []}
