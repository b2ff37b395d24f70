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
