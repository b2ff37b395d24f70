"""Snipe-IT's pie-chart payload (``PieChartTransformer``), answered by ``GET statuslabels/assets/name`` and
``statuslabels/assets/type``: ``{"labels": ["<label> (<count>)", ...], "datasets": [{"data": [...],
"backgroundColor": [...], "hoverBackgroundColor": [...]}]}``, entries with a count of 0 left out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Snipe-IT's default chart colours (``Helper::defaultChartColors``), for entries without a colour of their own; the
#: first 24, repeated past them (Snipe-IT's list is longer and repeats its last colour instead).
DEFAULT_COLORS = (
    "#008941", "#FF4A46", "#006FA6", "#A30059", "#1CE6FF", "#FFDBE5", "#7A4900", "#0000A6", "#63FFAC", "#B79762",
    "#004D43", "#8FB0FF", "#997D87", "#5A0007", "#809693", "#FEFFE6", "#1B4400", "#4FC601", "#3B5DFF", "#4A3B53",
    "#FF2F80", "#61615A", "#BA0900", "#6B7900",
)

PIE_CHART_SCHEMA = {
    "type": "object",
    "properties": {
        "labels": {"type": "array", "items": {"type": "string"}, "example": ["Ready to Deploy (12)"]},
        "datasets": {"type": "array", "items": {"type": "object", "properties": {
            "data": {"type": "array", "items": {"type": "integer"}},
            "backgroundColor": {"type": "array", "items": {"type": "string"}},
            "hoverBackgroundColor": {"type": "array", "items": {"type": "string"}},
        }}},
    },
}


def pie_chart(totals: Iterable[tuple[str, int, str | None]]) -> dict[str, Any]:
    """``totals``: (label, count, colour or None) in display order."""
    labels, counts, colors = [], [], []
    defaults = 0
    for label, count, color in totals:
        if count <= 0:
            continue
        labels.append(f"{label} ({count})")
        counts.append(count)
        if color:
            colors.append(color)
        else:
            colors.append(DEFAULT_COLORS[defaults % len(DEFAULT_COLORS)])
            defaults += 1
    return {"labels": labels,
            "datasets": [{"data": counts, "backgroundColor": colors, "hoverBackgroundColor": list(colors)}]}
