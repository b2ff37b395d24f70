"""The OpenAPI schema builds without a single drf-spectacular warning or error, and validates."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"),
                 stdout=StringIO(), stderr=StringIO())
    text = (tmp_path / "schema.yaml").read_text()
    assert "/api/v1/hardware" in text and "personalAccessToken" in text


@pytest.mark.django_db
def test_path_alternatives_are_anchored_as_a_whole():
    """Found by the fuzz run: the route group ``(?P<verb>checkout|checkin)`` became the pattern ``^checkout|checkin$``
    (``^checkout`` or ``checkin$``), so ``checkoutX`` was a valid verb by the schema, and the server answered 405."""
    import re

    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    operations = [paths["/api/v1/hardware/bytag/{tag}/{verb}"]["post"], paths["/api/v1/hardware/{kind}/{when}"]["get"]]
    patterns = {p["name"]: p["schema"]["pattern"] for op in operations for p in op["parameters"] if p["in"] == "path"}
    for name, good, bad in (("verb", "checkin", "checkoutX"), ("kind", "audits", "xcheckins"),
                            ("when", "due-or-overdue", "duex")):
        assert re.search(patterns[name], good) and not re.search(patterns[name], bad), (name, patterns[name])


#: Operations that are not paged lists but answer 400 for a query parameter of their own.
OWN_400 = {"hardware_qr_retrieve"}


@pytest.mark.django_db
def test_lists_document_the_cursor():
    """``cursor`` beside ``limit``/``offset`` on every paged list, its 400, and the envelope's ``next_cursor``."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    listed = schema["paths"]["/api/v1/hardware"]["get"]
    assert {"cursor", "limit", "offset"} <= {p["name"] for p in listed["parameters"]}
    assert listed["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorEnvelope")
    offset, cursor = schema["components"]["schemas"]["PaginatedAssetRecordList"]["oneOf"]
    assert offset["required"] == list(offset["properties"]) == ["total", "rows"]  # Snipe-IT's, as before
    assert cursor["required"] == ["total", "rows", "next_cursor"]
    assert cursor["properties"]["total"]["nullable"] and cursor["properties"]["next_cursor"]["nullable"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            names = {p["name"] for p in operation.get("parameters", ())}
            paged = "offset" in names
            assert paged == ("cursor" in names), operation
            # a 400 is a cursor the list cannot follow, or a parameter of an opt-in feature (the QR's format)
            assert ("400" in operation["responses"]) == (paged or operation["operationId"] in OWN_400), operation


@pytest.mark.django_db
def test_the_qr_code_documents_its_images_and_its_errors():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    responses = schema["paths"]["/api/v1/hardware/{id}/qr"]["get"]["responses"]
    assert set(responses["200"]["content"]) == {"image/svg+xml", "image/png", "application/json"}
    assert responses["400"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorEnvelope")
