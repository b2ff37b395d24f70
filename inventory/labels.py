"""Asset labels (issue 14): the QR code of an asset, encoding its tag and the address of its admin page, as SVG or
PNG (segno), and the label sheets the admin's "Print labels" page lays labels out on."""

from __future__ import annotations

import io
from dataclasses import dataclass

import segno
from django.urls import reverse

from inventory.models import Asset

#: ``?format=`` of ``GET hardware/{id}/qr`` → the answer's content type.
QR_FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
QR_DEFAULT_FORMAT = "svg"


def admin_path(asset: Asset) -> str:
    """The path of the asset's admin change page (made absolute by the caller, from its request)."""
    return reverse("admin:inventory_asset_change", args=[asset.pk])


def qr_text(asset: Asset, admin_url: str) -> str:
    """What the code holds: the tag on the first line, the admin page's address on the second."""
    return f"{asset.asset_tag}\n{admin_url}"


def _code(asset: Asset, admin_url: str) -> segno.QRCode:
    return segno.make(qr_text(asset, admin_url), error="m", micro=False)


def asset_qr(asset: Asset, admin_url: str, fmt: str = QR_DEFAULT_FORMAT, *, scale: int = 4) -> bytes:
    """The code as a file of ``fmt`` (one of :data:`QR_FORMATS`)."""
    if fmt not in QR_FORMATS:
        raise ValueError(f"unknown QR format {fmt!r}")
    out = io.BytesIO()
    _code(asset, admin_url).save(out, kind=fmt, scale=scale, border=2)
    return out.getvalue()


def asset_qr_svg_inline(asset: Asset, admin_url: str) -> str:
    """The code as an inline ``<svg>`` element (no XML declaration) that stretches to its box (the label's CSS)."""
    return _code(asset, admin_url).svg_inline(scale=1, border=2, omitsize=True)


@dataclass(frozen=True)
class LabelSheet:
    """A sheet of labels: its page size (CSS ``@page``), its grid, one label's size and the gaps, all in mm."""

    key: str
    title: str
    page: str
    columns: int
    rows: int
    width: float
    height: float
    margin_top: float
    margin_left: float
    gap_x: float
    gap_y: float = 0.0

    @property
    def per_page(self) -> int:
        return self.columns * self.rows


#: Common label sheets (from the makers' templates); ``?sheet=`` of the labels page picks one.
LABEL_SHEETS = {
    sheet.key: sheet for sheet in (
        LabelSheet("l7160", "Avery L7160 (A4, 3 x 7, 63.5 x 38.1 mm)", "A4", 3, 7, 63.5, 38.1, 15.15, 7.2, 2.5),
        LabelSheet("l7163", "Avery L7163 (A4, 2 x 7, 99.1 x 38.1 mm)", "A4", 2, 7, 99.1, 38.1, 15.15, 4.65, 2.5),
        LabelSheet("5160", "Avery 5160 (Letter, 3 x 10, 66.7 x 25.4 mm)", "letter", 3, 10, 66.7, 25.4, 12.7, 4.8, 3.2),
    )
}
DEFAULT_LABEL_SHEET = "l7160"
