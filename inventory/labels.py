"""Asset labels (issue 14): the QR code of an asset, encoding its tag and the address of its admin page, as SVG or
PNG (segno), and the label sheets the admin's "Print labels" page lays labels out on."""

from __future__ import annotations

import io
from dataclasses import dataclass

import segno
from django.urls import reverse
from fpdf import FPDF

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


# -- label PDFs (issue 27: POST hardware/labels, GET labels) ------------------------------------------------------

#: Points per unit (PDF user space is in points, 72 to the inch).
POINTS = {"pt": 1.0, "in": 72.0, "mm": 72.0 / 25.4}
#: What a label may print beside its QR code, in this order (``fields`` of ``POST hardware/labels``).
LABEL_FIELDS = ("name", "tag", "serial", "model")
DEFAULT_LABEL_FIELDS = ("tag", "name")
#: The most assets one request prints (a page of the asset list is at most 500 rows).
MAX_LABELS = 500


@dataclass(frozen=True)
class LabelTemplate:
    """A label template as Snipe-IT names and describes it (``app/Models/Labels``): the page, and for a sheet the
    grid of labels on it. Geometry in points (the makers' Word templates); ``unit`` is what the API reports in.

    A tape (``sheet=False``) is one label per page, the page the size of the label."""

    name: str
    unit: str
    page_width: float
    page_height: float
    label_width: float
    label_height: float
    label_margin: float  # inside each label, on every side (the printable area)
    sheet: bool = True
    columns: int = 1
    rows: int = 1
    first_x: float = 0.0  # left edge of the first column
    first_y: float = 0.0  # top edge of the first row
    column_pitch: float = 0.0  # left edge to left edge
    row_pitch: float = 0.0  # top edge to top edge
    page_margin: float = 0.0  # a tape's margins (a sheet's are first_x / first_y)
    support_asset_tag: bool = True
    support_fields: int = 4

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def slot(self, index: int) -> tuple[float, float]:
        """The top-left corner (points) of label ``index`` (0-based) on its page, row by row."""
        row, column = divmod(index % self.per_page, self.columns)
        return self.first_x + column * self.column_pitch, self.first_y + row * self.row_pitch

    def to_unit(self, points: float, digits: int = 4) -> float:
        return round(points / POINTS[self.unit], digits)

    def describe(self) -> dict:
        """Snipe-IT's ``LabelsTransformer`` shape (sizes in ``unit``; width and height as two-decimal strings)."""
        margin_x = self.first_x if self.sheet else self.page_margin
        margin_y = self.first_y if self.sheet else self.page_margin
        record = {
            "name": self.name,
            "unit": self.unit,
            "width": f"{self.to_unit(self.page_width):.2f}",
            "height": f"{self.to_unit(self.page_height):.2f}",
            "margin_top": self.to_unit(margin_y),
            "margin_bottom": self.to_unit(margin_y),
            "margin_left": self.to_unit(margin_x),
            "margin_right": self.to_unit(margin_x),
            "support_asset_tag": self.support_asset_tag,
            "support_1d_barcode": False,
            "support_2d_barcode": True,
            "support_fields": self.support_fields,
            "support_logo": False,
            "support_title": False,
        }
        if self.sheet:
            label_margin = self.to_unit(self.label_margin)
            record["sheet_info"] = {
                "label_width": self.to_unit(self.label_width),
                "label_height": self.to_unit(self.label_height),
                "label_margin_top": label_margin,
                "label_margin_bottom": label_margin,
                "label_margin_left": label_margin,
                "label_margin_right": label_margin,
                "labels_per_page": self.per_page,
                "label_border": 0,
            }
            record["rectanglesheet_info"] = {
                "columns": self.columns,
                "rows": self.rows,
                "column_spacing": self.to_unit(self.column_pitch - self.label_width),
                "row_spacing": self.to_unit(self.row_pitch - self.label_height),
            }
        return record


_IN, _MM = POINTS["in"], POINTS["mm"]

#: The templates, by Snipe-IT's name; the first is the default of ``POST hardware/labels``.
LABEL_TEMPLATES: dict[str, LabelTemplate] = {
    template.name: template for template in (
        # Avery 5520 (Letter, 3 x 10): Snipe-IT's Sheets\Avery\_5520 (points from Avery's Word template)
        LabelTemplate(r"Sheets\Avery\_5520_A", "in", 8.5 * _IN, 11 * _IN, 189.35, 72.0, 0.06 * _IN,
                      columns=3, rows=10, first_x=13.55, first_y=36.10, column_pitch=211.55 - 13.55,
                      row_pitch=108.10 - 36.10, support_asset_tag=False, support_fields=3),
        # Avery L7163 (A4, 2 x 7): Snipe-IT's Sheets\Avery\L7163
        LabelTemplate(r"Sheets\Avery\L7163_A", "mm", 210 * _MM, 297 * _MM, 280.80, 108.0, 1.0 * _MM,
                      columns=2, rows=7, first_x=13.25, first_y=43.05, column_pitch=301.25 - 13.25,
                      row_pitch=151.05 - 43.05),
        # Dymo LabelWriter 30252 (address labels, 1.125 x 3.5 in): one label per page, the page the label
        LabelTemplate(r"Tapes\Dymo\LabelWriter_30252", "mm", 96.52 * _MM, 1.15 * _IN, 96.52 * _MM, 1.15 * _IN,
                      0.0, sheet=False, page_margin=0.1 * _IN, support_fields=3),
    )
}
DEFAULT_LABEL_TEMPLATE = next(iter(LABEL_TEMPLATES))


def _latin1(text: str) -> str:
    """The PDF's built-in fonts know Latin-1 only: other characters print as ``?`` (the QR code holds the tag
    exactly)."""
    return text.encode("latin-1", "replace").decode("latin-1")


def label_texts(asset: Asset, fields: tuple[str, ...] = DEFAULT_LABEL_FIELDS) -> list[tuple[str, str]]:
    """The lines printed beside the code: (field, text), empty fields left out, in ``fields``' order."""
    values = {"name": asset.name, "tag": asset.asset_tag, "serial": asset.serial,
              "model": asset.model.name if asset.model_id else ""}
    return [(field, values[field]) for field in fields if values.get(field)]


def _fit(pdf, text: str, width: float) -> str:
    """``text`` cut (with ``...``) to ``width`` in the current font."""
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "...") > width:
        text = text[:-1]
    return text + "..."


def _write_label(pdf, template: LabelTemplate, x: float, y: float, asset: Asset, admin_url: str,
                 fields: tuple[str, ...]) -> None:
    inset = template.label_margin + (0.0 if template.sheet else template.page_margin)
    left, top = x + inset, y + inset
    width, height = template.label_width - 2 * inset, template.label_height - 2 * inset
    code = io.BytesIO()
    _code(asset, admin_url).save(code, kind="png", scale=8, border=0)
    code.seek(0)
    pdf.image(code, x=left, y=top, w=height, h=height)
    gap = max(height * 0.1, 4.0)
    text_left, text_width = left + height + gap, width - height - gap
    lines = label_texts(asset, fields)
    if not lines or text_width <= 0:
        return
    size = min(11.0, height / len(lines) / 1.3)
    line_height = size * 1.3
    text_top = top + (height - line_height * len(lines)) / 2
    for number, (field, text) in enumerate(lines):
        pdf.set_font("helvetica", "B" if field == "tag" else "", size)
        baseline = text_top + number * line_height + size
        pdf.text(text_left, baseline, _fit(pdf, _latin1(text), text_width))


def labels_pdf(assets: list[tuple[Asset, str]], template: LabelTemplate,
               fields: tuple[str, ...] = DEFAULT_LABEL_FIELDS) -> bytes:
    """One PDF of the labels of ``assets`` (each with its admin page's absolute address, which its QR code holds),
    laid out on ``template``'s sheets in order: a new page every ``per_page`` labels."""
    pdf = FPDF(unit="pt", format=(template.page_width, template.page_height))
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.set_creator("assetsvc")
    pdf.set_title("Asset labels")
    for index, (asset, admin_url) in enumerate(assets):
        if index % template.per_page == 0:
            pdf.add_page()
        x, y = template.slot(index)
        _write_label(pdf, template, x, y, asset, admin_url, fields)
    return bytes(pdf.output())
