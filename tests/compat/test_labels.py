"""A label-printing script, replayed (snipe-it.js and SnipeitPS print labels by tag): read the templates, post the
new assets' tags, decode the base64 PDF from ``payload.pdf``, save it, and check it holds one QR code per asset;
then fetch the file itself as a script piping to ``lp`` does."""

from __future__ import annotations

import base64
import io

import pytest
from pypdf import PdfReader

from tests.factories import AssetFactory

pytestmark = pytest.mark.django_db


def test_print_the_days_new_assets(token_client, tmp_path):
    templates = token_client.get("/api/v1/labels").json()
    names = [row["name"] for row in templates["rows"]]
    avery = next(name for name in names if "5520" in name)
    assert token_client.get(f"/api/v1/labels/{avery}").json()["name"] == avery

    tags = [AssetFactory(asset_tag=f"NEW-{n:03}", name=f"Laptop {n}").asset_tag for n in range(12)]
    answer = token_client.post("/api/v1/hardware/labels", {"asset_tags": tags, "template": avery},
                               format="json").json()
    assert answer["status"] == "success", answer
    saved = tmp_path / "labels.pdf"
    saved.write_bytes(base64.b64decode(answer["payload"]["pdf"]))
    reader = PdfReader(str(saved))
    assert sum(len(page.images) for page in reader.pages) == 12
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert all(tag in text for tag in tags)

    raw = token_client.post("/api/v1/hardware/labels?format=pdf", {"asset_tags": tags[:2]}, format="json")
    assert raw["Content-Type"] == "application/pdf"
    assert len(PdfReader(io.BytesIO(raw.content)).pages) >= 1

    typo = token_client.post("/api/v1/hardware/labels", {"asset_tags": [tags[0], "NEW-999"]}, format="json").json()
    assert typo["status"] == "error" and "NEW-999" in str(typo["messages"])
