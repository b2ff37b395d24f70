"""``import_snipeit --dry-run`` against the Snipe-IT stand-in (issue 31, first step): every kind of the generated
data set is read, each record once, also while the stand-in answers 429 and grows its lists between pages."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from inventory.models import CustomField
from tests.snipeit.conftest import SNIPEIT_TOKEN
from tests.snipeit.standin import SnipeitStandin

#: Report rows (our kind names) and the stand-in's lists they read.
LISTS = {"company": "companies", "location": "locations", "department": "departments",
         "manufacturer": "manufacturers", "supplier": "suppliers", "category": "categories",
         "status_label": "statuslabels", "depreciation": "depreciations", "custom_field": "fields",
         "fieldset": "fieldsets", "asset_model": "models", "group": "groups", "user": "users", "asset": "hardware",
         "accessory": "accessories", "consumable": "consumables", "component": "components", "license": "licenses",
         "maintenance": "maintenances", "kit": "kits", "action": "activity"}


def dry_run(url: str, monkeypatch) -> tuple[dict[str, tuple[int, int, int]], str]:
    monkeypatch.setenv("SNIPEIT_TOKEN", SNIPEIT_TOKEN)
    out, err = io.StringIO(), io.StringIO()
    call_command("import_snipeit", "--url", url, "--dry-run", stdout=out, stderr=err)
    table = {}
    for line in out.getvalue().splitlines():
        match = re.fullmatch(r"(\S+)\s+(\d+)\s+(\d+)\s+(\d+)", line)
        if match:
            table[match.group(1)] = tuple(int(n) for n in match.groups()[1:])
    return table, out.getvalue() + err.getvalue()


@pytest.mark.django_db
def test_a_dry_run_reads_every_record_of_the_stand_in(snipeit_standin, snipeit_dataset, monkeypatch):
    table, text = dry_run(snipeit_standin.url, monkeypatch)
    for kind, listed in LISTS.items():
        assert table[kind][0] == snipeit_dataset.count(listed), kind
    assert table["license.seats"][0] == len(snipeit_dataset.raw["license_seats"])
    assert table["accessory.checkouts"][0] == len(snipeit_dataset.raw["accessory_checkouts"])
    assert SNIPEIT_TOKEN not in text


@pytest.mark.django_db
def test_429s_and_growing_lists_lose_and_double_nothing(snipeit_dataset, monkeypatch):
    # Pages of 50 rows, so the long lists take several pages and the stand-in adds a record before each later one.
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN, rate_limit_every=7, retry_after=0, drift=True,
                        max_results=50) as sit:
        table, text = dry_run(sit.url, monkeypatch)
        drifted = {kind: len(ids) for kind, ids in sit.drifted.items()}
    assert drifted.get("hardware") and drifted.get("activity")
    for kind, listed in LISTS.items():
        # A record added while its list was read may be read or not (it came after the read began); none of the
        # others is lost or read twice.
        original = snipeit_dataset.count(listed)
        assert original <= table[kind][0] <= original + drifted.get(listed, 0), kind
    assert SNIPEIT_TOKEN not in text


@pytest.mark.django_db
def test_the_dry_run_lists_the_custom_fields_and_the_import_takes_the_named_flags(snipeit_standin, snipeit_dataset,
                                                                                   monkeypatch):
    """Snipe-IT 8 does not say which custom fields are encrypted or unique: the dry run lists every field for the
    operator, and ``--encrypted-fields`` / ``--unique-fields`` (columns) set the flags of the fields they name."""
    fields = snipeit_dataset.raw["fields"].values()
    _table, text = dry_run(snipeit_standin.url, monkeypatch)
    assert "--encrypted-fields" in text
    assert all(f["db_column"] in text for f in fields)
    encrypted = sorted(f["db_column"] for f in fields if f["field_encrypted"])
    unique = sorted(f["db_column"] for f in fields if f["is_unique"])
    assert encrypted and unique
    call_command("import_snipeit", "--url", snipeit_standin.url, "--encrypted-fields", ",".join(encrypted),
                 "--unique-fields", ", ".join(unique), stdout=io.StringIO(), stderr=io.StringIO())
    stored = {f.db_column_name: (f.field_encrypted, f.is_unique) for f in CustomField.objects.all()}
    assert stored == {f["db_column"]: (f["field_encrypted"], f["is_unique"]) for f in fields}
