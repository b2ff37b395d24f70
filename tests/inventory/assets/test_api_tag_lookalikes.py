"""Issue 25 item 9a: look-alike asset tags. A tag is stored in NFC without invisible characters (zero-width spaces and
joiners, soft hyphens, byte-order marks, bidi controls: Unicode's format characters) and compared for uniqueness on
its folded key (NFKC, case-folded): a decomposed ``Å``, a zero-width space or fullwidth letters no longer make a second
asset beside the plain twin. Every path that writes a tag: API create and PATCH, restore, the CSV import, the admin,
auto-increment."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.test import Client

from inventory.models import Asset
from inventory.services.assets import TAG_TAKEN
from inventory.tags import normalize_tag, tag_key
from tests.factories import AssetFactory, AssetModelFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"
PLAIN = "ÅSA-1"  # NFC
DECOMPOSED = "A\u030aSA-1"
ZERO_WIDTH = "ÅS\u200bA-1\ufeff"
FULLWIDTH = "ＡＢＣ-1"


@pytest.fixture
def catalogue():
    return {"model_id": AssetModelFactory().pk, "status_id": StatusLabelFactory().pk}


def create(client, catalogue, tag):
    return client.post(URL, {"asset_tag": tag, **catalogue}, format="json").json()


def refused_as_taken(body) -> bool:
    return body["status"] == "error" and body["messages"] == {"asset_tag": [TAG_TAKEN]} and body["payload"] is None


def test_the_forms_are_what_the_issue_says():
    assert normalize_tag(DECOMPOSED) == PLAIN == normalize_tag(ZERO_WIDTH)
    assert normalize_tag(FULLWIDTH) == FULLWIDTH  # stored as typed (NFC)
    assert tag_key(FULLWIDTH) == tag_key("abc-1") == "abc-1"
    assert tag_key("\u200d\u2060\u00ad") == ""


@pytest.mark.parametrize(("first", "second"), [(PLAIN, DECOMPOSED), (DECOMPOSED, PLAIN), (PLAIN, ZERO_WIDTH),
                                               ("ABC-1", FULLWIDTH), (FULLWIDTH, "abc-1"), ("STRASSE", "straße")])
def test_a_look_alike_of_a_live_tag_is_refused_on_create(token_client, catalogue, first, second):
    assert create(token_client, catalogue, first)["status"] == "success"
    assert refused_as_taken(create(token_client, catalogue, second))
    assert Asset.objects.count() == 1


def test_a_tag_is_stored_in_nfc_without_invisible_characters(token_client, catalogue):
    body = create(token_client, catalogue, "A\u030a\u200b-\u00ad7\u200e")
    assert body["status"] == "success", body
    assert body["payload"]["asset_tag"] == "Å-7"
    assert Asset.objects.get().asset_tag == "Å-7"


def test_a_tag_of_invisible_characters_only_is_missing(token_client, catalogue):
    body = create(token_client, catalogue, "\u200b\u200d")
    assert body["status"] == "error" and body["messages"] == {"asset_tag": ["The asset tag field is required."]}
    assert Asset.objects.count() == 0


def test_a_look_alike_is_refused_on_patch_and_nothing_changes(token_client, catalogue):
    create(token_client, catalogue, FULLWIDTH)
    other = Asset.objects.get(pk=create(token_client, catalogue, "OTHER-1")["payload"]["id"])
    body = token_client.patch(f"{URL}/{other.pk}", {"asset_tag": "abc-1"}, format="json").json()
    assert refused_as_taken(body)
    other.refresh_from_db()
    assert other.asset_tag == "OTHER-1"
    renamed = token_client.patch(f"{URL}/{other.pk}", {"asset_tag": "O\u200bTHER-2"}, format="json").json()
    assert renamed["status"] == "success" and renamed["payload"]["asset_tag"] == "OTHER-2"


def test_restore_is_refused_while_a_look_alike_lives(token_client, catalogue):
    gone = Asset.objects.get(pk=create(token_client, catalogue, "ABC-1")["payload"]["id"])
    assert token_client.delete(f"{URL}/{gone.pk}").json()["status"] == "success"
    assert create(token_client, catalogue, FULLWIDTH)["status"] == "success"
    body = token_client.post(f"{URL}/{gone.pk}/restore").json()
    assert body["status"] == "error"
    gone.refresh_from_db()
    assert gone.deleted_at is not None


def test_bytag_finds_the_asset_by_a_look_alike(token_client, catalogue):
    asset_id = create(token_client, catalogue, PLAIN)["payload"]["id"]
    assert token_client.get(f"{URL}/bytag/{DECOMPOSED}").json()["id"] == asset_id


def test_auto_increment_skips_a_tag_whose_look_alike_is_taken(token_client, catalogue, site_settings):
    site_settings.auto_increment_assets = True
    site_settings.auto_increment_prefix = "AT-"
    site_settings.zerofill_count = 2
    site_settings.next_auto_tag_base = 1
    site_settings.save()
    AssetFactory(asset_tag="ＡＴ-01")  # fullwidth twin of the next generated tag, made before the rule existed
    body = token_client.post(URL, catalogue, format="json").json()
    assert body["status"] == "success" and body["payload"]["asset_tag"] == "AT-02"


def write_csv(path, tags):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Asset Tag", "Model name", "Category", "Status"])
        writer.writerows([[tag, "MacBook", "Laptops", "Ready to Deploy"] for tag in tags])
    return str(path)


def test_the_csv_import_refuses_look_alikes_of_live_tags_and_of_earlier_lines(superuser, tmp_path):
    StatusLabelFactory(name="Ready to Deploy")
    AssetFactory(asset_tag=PLAIN)
    out, err = io.StringIO(), io.StringIO()
    call_command("import_assets", write_csv(tmp_path / "a.csv", [DECOMPOSED, "N\u200bEW-1", "ＮＥＷ-1"]),
                 stdout=out, stderr=err)
    # line 2 names the live asset (skipped without --update), line 4 repeats line 3
    assert "1 created, 0 updated, 1 skipped, 1 failed" in out.getvalue(), (out.getvalue(), err.getvalue())
    assert sorted(Asset.objects.values_list("asset_tag", flat=True)) == sorted([PLAIN, "NEW-1"])
    assert f"line 4, column Asset Tag: {TAG_TAKEN} Line 3 has the same tag." in err.getvalue()


def test_the_admin_add_form_refuses_a_look_alike(catalogue):
    AssetFactory(asset_tag="ABC-1")
    client = Client()
    client.force_login(UserFactory(superuser=True))
    response = client.post("/admin/inventory/asset/add/", {
        "asset_tag": FULLWIDTH, "model": catalogue["model_id"], "status": catalogue["status_id"]})
    assert response.status_code == 200  # the form again, with its error
    assert TAG_TAKEN in response.content.decode()
    assert Asset.objects.count() == 1
