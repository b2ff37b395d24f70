"""Issue 14 part 1: the browsable API docs (Swagger UI at ``/api/docs``, ReDoc at ``/api/redoc``) load only local
files, and the schema they read documents every ``/api/v1`` route with a body, answers, errors and examples."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from drf_spectacular.generators import SchemaGenerator

from assetsvc.api.views import EndpointNotFoundView, SchemaView
from tests.api.test_record_schemas import mismatches
from tests.api.test_record_schemas import resolve as resolve_ref

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def openapi(django_db_setup, django_db_blocker) -> dict[str, Any]:
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


# --- the pages ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/api/docs", "/api/redoc"])
def test_docs_page_uses_only_local_files(client, db, url):
    """No CDN, no web fonts, no outside validator: every ``src``/``href`` is this server's, and each static file
    it names exists (drf-spectacular-sidecar, served by whitenoise)."""
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page, re.I), "the page names an outside host"
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    static = [a for a in assets if a.startswith("/static/")]
    assert static and all(a.startswith("/") for a in assets), assets
    for asset in static:
        assert finders.find(asset.removeprefix("/static/")), asset
        assert client.get(asset).status_code == 200, asset
    assert "/api/v1/schema" in page


@pytest.mark.parametrize("url", ["/api/docs", "/api/redoc"])
def test_docs_page_may_reach_only_this_server(client, db, url):
    """ReDoc's bundle fetches its vendor's logo from a CDN: the page's policy keeps the browser from asking."""
    policy = dict(part.strip().split(" ", 1) for part in client.get(url)["Content-Security-Policy"].split(";"))
    for directive in ("default-src", "connect-src", "img-src", "script-src", "style-src", "font-src"):
        assert "http" not in policy[directive] and "*" not in policy[directive], directive
    assert policy["connect-src"] == "'self'" and policy["default-src"] == "'self'"


def test_swagger_ui_turns_off_its_outside_validator(client, db):
    page = client.get("/api/docs").content.decode()
    assert '"validatorUrl": null' in page


def test_docs_pages_and_schema_need_no_token_but_a_bad_token_is_refused(client, db):
    assert client.get("/api/docs").status_code == 200
    assert client.get("/api/redoc").status_code == 200
    assert client.get("/api/v1/schema", HTTP_ACCEPT="application/json").status_code == 200
    assert client.get("/api/docs", HTTP_AUTHORIZATION="Bearer stale").status_code == 200
    refused = client.get("/api/v1/schema", HTTP_AUTHORIZATION="Bearer stale")
    assert refused.status_code == 401


def test_authorize_in_the_docs_is_a_bearer_token_that_works_on_this_server(openapi, token_client):
    """Swagger UI's "Authorize" asks for the ``personalAccessToken`` bearer scheme; with no ``servers`` entry, "Try
    it out" calls the page's own origin, and every path already starts with ``/api/v1``."""
    assert openapi["components"]["securitySchemes"]["personalAccessToken"] == {
        "type": "http", "scheme": "bearer", "description": "Personal access token: Bearer <token>"}
    assert "servers" not in openapi
    me = openapi["paths"]["/api/v1/users/me"]["get"]
    assert me["security"] == [{"personalAccessToken": []}]
    assert token_client.get("/api/v1/users/me").status_code == 200


# --- every route is in the schema -----------------------------------------------------------------------------------


def _routes(patterns, prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for entry in patterns:
        route = URLResolver._join_route(prefix, str(entry.pattern))
        if isinstance(entry, URLResolver):
            found += _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            found.append((route, entry.callback))
    return found


def _methods(callback) -> set[str]:
    if getattr(callback, "actions", None):  # a viewset route: its method → action map
        return set(callback.actions) & set(METHODS)
    return {method for method in METHODS if hasattr(callback.view_class, method)}


def _sample(parameter: dict[str, Any]) -> str:
    """A value for a path parameter that its schema accepts (the first alternative of a pattern, else 1 or x)."""
    if parameter["schema"].get("enum"):
        return str(parameter["schema"]["enum"][0])
    pattern = parameter["schema"].get("pattern")
    if pattern:
        alternatives = re.fullmatch(r"\^\(\?:([\w|-]+)\)\$", pattern)
        if alternatives:
            return alternatives.group(1).split("|")[0]
        return next(v for v in ("1", "x", "LAP-1") if re.search(pattern, v))
    return "1" if parameter["schema"].get("type") == "integer" else "x1"


#: Route and method pairs that are another operation under a second pattern (a written exemption, not a gap): a GET
#: of ``/hardware/bytag/A/checkout`` reads the asset tagged ``A/checkout``, i.e. ``GET /hardware/bytag/{tag}``.
ALIASES = {("api/v1/hardware/bytag/(?P<tag>.+)/(?P<verb>(?:checkout|checkin))$", "get"): "/api/v1/hardware/bytag/{tag}"}


def test_every_api_route_and_method_is_in_the_schema(openapi):
    """Walks Django's URL resolver: each ``/api/v1`` route with each method its view answers must be an operation of
    the schema (found by resolving the schema's own paths back to their routes)."""
    wanted = set()
    for route, callback in _routes(get_resolver().url_patterns):
        view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
        if not route.startswith("api/v1/") or view in (EndpointNotFoundView, SchemaView):
            continue
        wanted |= {(route, method) for method in _methods(callback)}
    assert len(wanted) > 100
    documented = set()
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            url = path
            for parameter in operation.get("parameters", ()):
                if parameter["in"] == "path":
                    url = url.replace("{" + parameter["name"] + "}", _sample(parameter))
            match = resolve(url)
            assert method in _methods(match.func), (path, method, match.route)
            documented.add((match.route, method))
    for (route, method), path in ALIASES.items():
        assert method in openapi["paths"][path] and (route, method) in wanted, (route, method)
    missing = wanted - documented - set(ALIASES)
    assert not missing, f"routes missing from the schema: {sorted(missing)}"


# --- what each operation documents ----------------------------------------------------------------------------------

#: Operations whose 2xx has no body schema yet: the hardware verbs and history, and the activity report, answer
#: Snipe-IT's shapes built by hand (docs/assets.md); their examples are real answers instead.
UNTYPED_ANSWERS = {
    ("/api/v1/hardware/{id}/audit", "post"), ("/api/v1/hardware/{id}/checkin", "post"),
    ("/api/v1/hardware/{id}/checkout", "post"), ("/api/v1/hardware/{id}/history", "get"),
    ("/api/v1/hardware/audit", "post"), ("/api/v1/hardware/bytag/{tag}/{verb}", "post"),
    ("/api/v1/hardware/checkinbytag", "post"), ("/api/v1/reports/activity", "get"),
    *((f"/api/v1/{kind}/{{id}}/history", "get") for kind in ("accessories", "consumables", "components", "licenses",
                                                             "users", "locations", "models")),
}
#: POST operations that take no body.
NO_BODY = {"restore", "delete", "cancel", "{asset_id}",  # restores, file deletes, account/request/{asset_id}[/cancel]
           "email", "ldapsync", "mailtest", "ldaptest", "ldaptestlogin",  # the not-configured answers
           "purge_barcodes", "slacktest"}  # the settings tools
#: POST operations whose body is a multipart form with files (issue 27: uploads to records, CSV imports), not JSON.
MULTIPART_BODY = {"files", "upload", "imports"}


def _operations(openapi):
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            yield path, method, operation


def test_every_operation_has_body_answers_errors_and_examples(openapi):
    for path, method, operation in _operations(openapi):
        where = f"{method.upper()} {path}"
        responses = operation["responses"]
        last = path.rsplit("/", 1)[-1]
        if method == "post" and last in MULTIPART_BODY:
            assert "multipart/form-data" in operation.get("requestBody", {}).get("content", {}), where
        elif method in {"put", "patch"} or (method == "post" and last not in NO_BODY):
            assert "application/json" in operation.get("requestBody", {}).get("content", {}), where
        successes = {code: r for code, r in responses.items() if code.startswith("2")}
        assert successes, where
        for code in ("401", "403", "422", "429"):
            assert code in responses, (where, code)
        for code, response in responses.items():
            if code.startswith("4") and code != "429":
                schema = response["content"]["application/json"]["schema"]
                assert schema["$ref"] == "#/components/schemas/ErrorEnvelope", (where, code)
        for code, response in successes.items():
            media = response.get("content", {}).get("application/json")
            if code == "204":
                assert media is None, where
                continue
            assert media is not None and media.get("examples"), (where, code)
            if (path, method) not in UNTYPED_ANSWERS:
                assert "schema" in media, (where, code)
        for media in [r["content"]["application/json"] for r in responses.values() if "content" in r] + \
                [operation.get("requestBody", {}).get("content", {}).get("application/json", {"examples": {1: 1}})]:
            assert media.get("examples"), where


def _fits(value: Any, schema: dict[str, Any], openapi: dict[str, Any]) -> bool:
    """``mismatches`` plus what it leaves out for answers: string patterns and lengths, and exactly one ``oneOf``."""
    schema = resolve_ref(schema, openapi)
    if value is None:
        return bool(schema.get("nullable"))
    if "oneOf" in schema:
        return sum(_fits(value, option, openapi) for option in schema["oneOf"]) == 1
    if mismatches(value, schema, openapi):
        return False
    if isinstance(value, str):
        return schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)) and (
            "pattern" not in schema or bool(re.search(schema["pattern"], value)))
    return True


def test_examples_agree_with_their_schema(openapi):
    """Answers' examples match their schema key for key and type for type (the checker of
    ``test_record_schemas``); request examples carry the body's required keys with the declared types."""
    checked = 0
    for path, method, operation in _operations(openapi):
        for code, response in operation["responses"].items():
            media = response.get("content", {}).get("application/json")
            if not media or "schema" not in media:
                continue
            success = resolve_ref(media["schema"], openapi).get("anyOf", [media["schema"]])[0]
            if success.get("additionalProperties") == {} and "properties" not in success:
                continue  # a free-form object: nothing to compare (its example is a recorded real answer)
            for name, example in media["examples"].items():
                errors = mismatches(example["value"], media["schema"], openapi)
                assert not errors, (method, path, code, name, errors)
                checked += 1
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body:
            schema = resolve_ref(body["schema"], openapi)
            value = body["examples"]["example"]["value"]
            assert set(schema.get("required", ())) <= set(value), (method, path)
            for key, item in value.items():
                assert _fits(item, schema["properties"][key], openapi), (method, path, key, item)
    assert checked > 500


# --- texts for the consumer (issue 27) -----------------------------------------------------------------------------


def _http_operations(openapi: dict[str, Any]):
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def test_every_operation_has_a_summary_and_a_description_for_consumers(openapi):
    """Each operation says what it does and who may call it; a new route without a text fails here (its texts go
    beside its routes with ``register_operation_texts``)."""
    missing = [f"{m.upper()} {p} ({o['operationId']})" for p, m, o in _http_operations(openapi)
               if not o.get("summary") or not o.get("description")]
    assert not missing, missing
    summaries = {o["operationId"]: o["summary"] for _, _, o in _http_operations(openapi)}
    assert all(len(text) <= 60 and not text.endswith(".") for text in summaries.values()), summaries


def test_no_consumer_facing_text_names_a_file_of_the_repository(openapi):
    """Docstrings speak to developers (``docs/assets.md``, ``API-CONTRACT.md §1``); nothing of that reaches
    ``/api/docs``: descriptions and summaries of operations, parameters, answers and schemas alike."""
    from assetsvc.api.operation_docs import INTERNAL_REFERENCE

    found = []

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in {"description", "summary"} and isinstance(value, str):
                    if INTERNAL_REFERENCE.search(value):
                        found.append((where, value))
                else:
                    walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk({"paths": openapi["paths"], "components": openapi["components"], "tags": openapi.get("tags", [])}, "")
    assert not found, found[:10]


def test_operations_say_which_permission_they_need(openapi):
    """The permission sentence is read from the view's own permission lookup, so it says what is enforced."""
    paths = openapi["paths"]
    assert "``assets.view``" in paths["/api/v1/hardware/{id}"]["get"]["description"]
    assert "``assets.checkout``" in paths["/api/v1/hardware/{id}/checkout"]["post"]["description"]
    assert "``licenses.delete``" in paths["/api/v1/licenses/{id}"]["delete"]["description"]
    assert "Super users only" in paths["/api/v1/groups"]["get"]["description"]
    assert "their own account" in paths["/api/v1/users/me"]["get"]["description"]
    assert paths["/api/v1/hardware"]["get"]["summary"] == "List assets"


def test_every_tag_is_described(openapi):
    used = {tag for _, _, o in _http_operations(openapi) for tag in o.get("tags", ())}
    described = {tag["name"]: tag["description"] for tag in openapi["tags"]}
    assert used <= set(described)
    assert all(len(text.split()) >= 3 for text in described.values()), described
