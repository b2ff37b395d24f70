"""Custom ``regex:/p/flags`` formats run on RE2 (issue 25 item 2; docs/custom-fields.md "Regex formats"): a pattern
that made Python's ``re`` backtrack for seconds per value is answered at once on every write path (API create and
PATCH, bulk update, audit, bulk audit, CSV import, admin); nested quantifiers and PCRE syntax RE2 lacks are refused
when a format is defined; a stored format RE2 cannot run refuses its values instead of crashing; values checked
against a pattern are capped in length."""

from __future__ import annotations

import io
import time

import pytest
from django.core.management import call_command
from django.test import Client

from activity.models import ActionLog
from inventory.custom_values.formats import MAX_CHECKED_LENGTH
from inventory.models import Asset, AssetFieldValue, CustomField
from tests.factories import AssetFactory, AssetModelFactory, CustomFieldFactory, StatusLabelFactory
from tests.factories.custom_fields import fieldset_of
from tests.ops.test_admin_services import form_data, url

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"
FIELDS = "/api/v1/fields"
#: The issue's pattern: Python's ``re`` doubles its time with every character of ATTACK (9 s at 27 characters).
EVIL = r"regex:/^(\w+\s?)*$/"
ATTACK = "a" * 28 + "!"
#: Generous for one request on a loaded 2-CPU machine; the backtracking engine needed about 20 s here.
BUDGET = 3.0
NESTED = "The format must not repeat a group that itself contains a repetition (a nested quantifier such as (a+)*)."
INVALID = "The selected format is invalid."


def unsupported(detail: str) -> str:
    return f"The format uses regular expression syntax that is not supported ({detail})."


@pytest.fixture
def evil_field():
    """A field stored with the runaway pattern, as formats defined before this fix are."""
    return CustomFieldFactory(name="Code", format=EVIL, display_audit=True)


@pytest.fixture
def evil_model(evil_field):
    return AssetModelFactory(name="Evil", model_number="E1", fieldset=fieldset_of(evil_field))


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def snapshot():
    return (Asset.objects.count(), AssetFieldValue.objects.count(), ActionLog.objects.count())


# --- defining a format ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "message"), [
    (EVIL, NESTED),
    (r"regex:/^([a-z]+-)+$/", NESTED),
    (r"regex:/^(?:a|b+)*$/", NESTED),
    (r"regex:/^((\d{1,3}\.){3})+$/", NESTED),
    (r"regex:/^(?=.*\d).+$/", unsupported("lookahead or lookbehind")),
    (r"regex:/^(?<!x)y$/", unsupported("lookahead or lookbehind")),
    (r"regex:/^(a)\1$/", unsupported("backreference")),
    (r"regex:/^(?P<x>a)(?P=x)$/", unsupported("backreference")),
    (r"regex:/^a++$/", unsupported("possessive quantifier")),
    (r"regex:/^(?>ab)$/", unsupported("atomic group")),
    (r"regex:/^[a-/", INVALID),
])
def test_a_risky_or_unsupported_format_is_refused_when_defined(token_client, fmt, message):
    body = token_client.post(FIELDS, {"name": "F", "element": "text", "format": fmt}, format="json").json()
    assert body["status"] == "error", body
    assert body["messages"] == {"format": [message]}
    assert not CustomField.objects.exists()


def test_a_patch_to_a_risky_format_is_refused_and_changes_nothing(token_client):
    field = CustomFieldFactory(name="Serial code", format="ANY")
    body = token_client.patch(f"{FIELDS}/{field.pk}", {"format": EVIL}, format="json").json()
    assert body["messages"] == {"format": [NESTED]}
    field.refresh_from_db()
    assert field.format == "ANY"


@pytest.mark.parametrize(("fmt", "good", "bad"), [
    (r"regex:/^(\d{1,3}\.){3}\d{1,3}$/", "10.0.0.1", "10.0.0"),  # a fixed count of a repetition is fine
    (r"regex:/^[A-Z]{2}-\d+$/i", "ab-12", "ab12"),
    (r"regex:/^ [a-z]+ \d+ $/x", "abc12", "abc"),  # verbose: spaces are not part of the pattern
    (r"regex:/^\p{Lu}+$/u", "ÉCOLE", "école"),  # PCRE's Unicode classes (Python's re lacks them)
    (r"regex:/^a.b$/s", "a\nb", "ab"),
    (r"regex:/^(ab?)+$/", "abab", "b"),  # an optional item inside a repeat is not a nested quantifier
])
def test_supported_formats_are_stored_and_checked(token_client, fmt, good, bad):
    body = token_client.post(FIELDS, {"name": "F", "element": "textarea", "format": fmt}, format="json").json()
    assert body["status"] == "success", body
    assert body["payload"]["format"] == fmt
    field = CustomField.objects.get()
    model = AssetModelFactory(fieldset=fieldset_of(field))
    asset = AssetFactory(model=model)
    column = field.db_column_name
    ok = token_client.patch(f"{URL}/{asset.pk}", {column: good}, format="json").json()
    assert ok["status"] == "success", ok
    refused = token_client.patch(f"{URL}/{asset.pk}", {column: bad}, format="json").json()
    assert refused["messages"] == {column: ["The F field format is invalid."]}
    assert AssetFieldValue.objects.get(asset=asset, field=field).value == good.strip()


def test_the_admin_refuses_a_risky_format(superuser):
    client = Client()
    client.force_login(superuser)
    page = url(CustomField, "add")
    response = client.post(page, {**form_data(client, page), "name": "Code", "element": "text", "format": EVIL})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["format"] == [NESTED]
    assert not CustomField.objects.exists()


# --- stored runaway patterns on every write path ------------------------------------------------------------------


def test_api_create_and_patch_answer_at_once(token_client, evil_field, evil_model):
    column = evil_field.db_column_name
    asset = AssetFactory(model=evil_model)
    before = snapshot()
    body = {"asset_tag": "R-1", "model_id": evil_model.pk, "status_id": StatusLabelFactory().pk, column: ATTACK}
    created, seconds = timed(lambda: token_client.post(URL, body, format="json").json())
    assert seconds < BUDGET
    assert created["messages"] == {column: ["The Code field format is invalid."]}
    patched, seconds = timed(lambda: token_client.patch(f"{URL}/{asset.pk}", {column: ATTACK}, format="json").json())
    assert seconds < BUDGET
    assert patched["messages"] == {column: ["The Code field format is invalid."]}
    nested, seconds = timed(lambda: token_client.patch(f"{URL}/{asset.pk}", {"custom_fields": {column: ATTACK}},
                                                       format="json").json())
    assert seconds < BUDGET
    assert nested["status"] == "success" and "The Code field format is invalid." in nested["messages"]
    assert snapshot()[:2] == before[:2]
    ok = token_client.patch(f"{URL}/{asset.pk}", {column: "two words"}, format="json").json()
    assert ok["status"] == "success", ok
    assert AssetFieldValue.objects.get(asset=asset).value == "two words"


def test_bulk_update_and_bulk_audit_answer_at_once(token_client, evil_field, evil_model):
    column = evil_field.db_column_name
    assets = [AssetFactory(model=evil_model) for _ in range(3)]
    ids = [asset.pk for asset in assets]
    before = snapshot()
    answer, seconds = timed(lambda: token_client.patch(f"{URL}/bulk", {"ids": ids, column: ATTACK},
                                                       format="json").json())
    assert seconds < BUDGET
    assert answer["status"] == "error"
    assert [row["messages"] for row in answer["results"]] == [{column: ["The Code field format is invalid."]}] * 3
    audited, seconds = timed(lambda: token_client.post(f"{URL}/audit/bulk", {"ids": ids, column: ATTACK},
                                                       format="json").json())
    assert seconds < BUDGET
    assert audited["status"] == "error"
    assert snapshot() == before


def test_audit_answers_at_once(token_client, evil_field, evil_model):
    column = evil_field.db_column_name
    asset = AssetFactory(model=evil_model)
    before = snapshot()
    answer, seconds = timed(lambda: token_client.post(f"{URL}/{asset.pk}/audit", {column: ATTACK},
                                                      format="json").json())
    assert seconds < BUDGET
    assert answer["messages"] == {column: ["The Code field format is invalid."]}
    assert snapshot() == before


def test_csv_import_answers_at_once(superuser, evil_field, evil_model, tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("Asset Tag,Model name,Model Number,Status,Code\n"
                    f"R-1,Evil,E1,Ready to Deploy,{ATTACK}\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    _, seconds = timed(lambda: call_command("import_assets", str(path), "--no-progress", stdout=out, stderr=err))
    assert seconds < BUDGET
    assert "1 failed" in out.getvalue(), (out.getvalue(), err.getvalue())
    assert "column Code: The Code field format is invalid." in err.getvalue()
    assert not Asset.objects.exists()


def test_admin_answers_at_once(superuser, evil_field, evil_model):
    asset = AssetFactory(model=evil_model)
    client = Client()
    client.force_login(superuser)
    page = url(Asset, "change", asset.pk)
    data = form_data(client, page, **{evil_field.db_column_name: ATTACK})
    response, seconds = timed(lambda: client.post(page, data))
    assert seconds < BUDGET
    assert response.status_code == 200
    assert response.context["adminform"].form.errors[evil_field.db_column_name] == [
        "The Code field format is invalid."]
    assert not AssetFieldValue.objects.exists()


# --- stored formats RE2 cannot run, and the length cap --------------------------------------------------------------


def test_a_stored_format_re2_cannot_run_refuses_its_values_without_crashing(token_client):
    field = CustomFieldFactory(name="PIN", format=r"regex:/^(?=.*\d)\w+$/")  # defined before RE2
    other = CustomFieldFactory(name="Room")
    asset = AssetFactory(model=AssetModelFactory(fieldset=fieldset_of(field, other)))
    body = token_client.patch(f"{URL}/{asset.pk}", {field.db_column_name: "abc1", "name": "Renamed"},
                              format="json").json()
    assert body["status"] == "error"
    assert body["messages"] == {field.db_column_name: [
        "The PIN field's format cannot be checked: its pattern uses syntax that is not supported. "
        "An administrator must change the format."]}
    asset.refresh_from_db()
    assert asset.name != "Renamed" and not AssetFieldValue.objects.exists()
    ok = token_client.patch(f"{URL}/{asset.pk}", {other.db_column_name: "12", "name": "Renamed"}, format="json").json()
    assert ok["status"] == "success", ok  # a write that does not send the field is not affected


def test_values_checked_against_a_pattern_are_capped_in_length(token_client):
    field = CustomFieldFactory(name="Blob", format=r"regex:/^[a-z]*$/", element="textarea")
    asset = AssetFactory(model=AssetModelFactory(fieldset=fieldset_of(field)))
    column = field.db_column_name
    body = token_client.patch(f"{URL}/{asset.pk}", {column: "a" * (MAX_CHECKED_LENGTH + 1)}, format="json").json()
    assert body["messages"] == {column: [
        f"The Blob field must not be greater than {MAX_CHECKED_LENGTH} characters for its format."]}
    assert not AssetFieldValue.objects.exists()
    ok = token_client.patch(f"{URL}/{asset.pk}", {column: "a" * MAX_CHECKED_LENGTH}, format="json").json()
    assert ok["status"] == "success", ok
