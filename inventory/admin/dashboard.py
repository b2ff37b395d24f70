"""The admin's start page (issue 28 item 1): the numbers of ``inventory/selectors/dashboard.py`` as cards, each a link
to the list filtered to exactly what it counts (``inventory/admin/filters.py``), three charts drawn on the server as
SVG (no script, no CDN: a picture in the page), the items at their minimum and the latest activity.

:func:`dashboard_context` is what the index page renders (``templates/admin/inventory/dashboard.html``); a company
administrator gets their company's numbers only, because every count goes through ``restrict(request.user)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode

from assetsvc.admin_site import IndexPanel, register_index_panel
from inventory.admin.base import log_rows
from inventory.selectors import dashboard as numbers

#: Bar colours of the status chart, by status type (Snipe-IT's dashboard colours).
STATUS_COLOURS = {"rtd": "#2e7d32", "deployed": "#1565c0", "pending": "#f9a825", "undeployable": "#c62828",
                  "archived": "#757575"}
BAR = "#417690"  # the admin's header blue
#: Categories drawn in the category chart; the rest are summed as "Other".
CHART_CATEGORIES = 8


@dataclass(frozen=True)
class Card:
    label: str
    value: int
    url: str
    #: "warn" when the number asks for action (anything overdue, expiring, short), "" otherwise.
    tone: str = ""


#: Geometry of the horizontal bar charts (SVG user units; the picture scales to its box).
CHART_WIDTH, LABEL_WIDTH, BAR_SPACE, ROW, BAR_HEIGHT = 400, 140, 210, 26, 18
#: Geometry of the weekly chart.
WEEK_HEIGHT, WEEK_TOP, WEEK_BOTTOM, WEEK_BAR, WEEK_MARGIN = 175, 16, 145, 22, 14


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    url: str
    colour: str
    #: Where the bar is drawn: its row's top and its length.
    y: float
    width: float

    @property
    def text_y(self) -> float:
        return self.y + BAR_HEIGHT - 5

    @property
    def value_x(self) -> float:
        return LABEL_WIDTH + self.width + 4


@dataclass(frozen=True)
class WeekBar:
    week: Any
    count: int
    x: float
    y: float
    height: float
    #: Dates are written under every other bar (twelve would not fit on a phone).
    labelled: bool

    @property
    def centre(self) -> float:
        return self.x + WEEK_BAR / 2

    @property
    def value_y(self) -> float:
        return self.y - 3


def _list_url(name: str, **params: Any) -> str:
    try:
        base = reverse(f"admin:{name}_changelist")
    except NoReverseMatch:  # a kind not registered in this admin
        return ""
    return f"{base}?{urlencode(params)}" if params else base


def _bars(rows: list[tuple[str, int, str, str]]) -> dict[str, Any]:
    widest = max((value for _label, value, _url, _colour in rows), default=0) or 1
    bars = [Bar(label if len(label) <= 22 else label[:21] + "\u2026", value, url, colour, n * ROW + 4,
                round(BAR_SPACE * value / widest, 1)) for n, (label, value, url, colour) in enumerate(rows)]
    return {"bars": bars, "height": len(rows) * ROW + 8, "width": CHART_WIDTH, "bar_height": BAR_HEIGHT,
            "label_width": LABEL_WIDTH}


def _week_bars(weeks: list[tuple[Any, int]]) -> dict[str, Any]:
    highest = max((n for _week, n in weeks), default=0) or 1
    slot = (CHART_WIDTH - 2 * WEEK_MARGIN) / max(len(weeks), 1)
    space = WEEK_BOTTOM - WEEK_TOP
    bars = []
    for n, (week, count) in enumerate(weeks):
        height = round(space * count / highest, 1)
        bars.append(WeekBar(week, count, round(WEEK_MARGIN + n * slot + (slot - WEEK_BAR) / 2, 1), WEEK_BOTTOM - height,
                            height,
                            (len(weeks) - 1 - n) % 2 == 0))
    return {"bars": bars, "height": WEEK_HEIGHT, "width": CHART_WIDTH, "bottom": WEEK_BOTTOM, "bar_width": WEEK_BAR,
            "total": sum(count for _week, count in weeks)}


def dashboard_context(request: HttpRequest) -> dict[str, Any]:
    """The start page's context: ``dashboard`` (cards, charts, low stock, activity) for ``request.user``."""
    board = numbers.dashboard(request.user)
    asset = "inventory_asset"
    warn = lambda n: "warn" if n else ""  # noqa: E731
    statuses = {key: (label, count) for key, label, count in board.statuses}
    cards = [
        Card("Assets", board.assets_total, _list_url(asset)),
        *[Card(label, count, _list_url(asset, status_type=key)) for key, (label, count) in statuses.items()],
        Card("Audits due", board.audits_due, _list_url(asset, audit="due"), warn(board.audits_due)),
        Card("Audits overdue", board.audits_overdue, _list_url(asset, audit="overdue"), warn(board.audits_overdue)),
        Card("Check-ins due", board.checkins_due, _list_url(asset, checkin="due"), warn(board.checkins_due)),
        Card("Check-ins overdue", board.checkins_overdue, _list_url(asset, checkin="overdue"),
             warn(board.checkins_overdue)),
        Card(f"Warranties ending in {numbers.EXPIRY_WINDOW_DAYS} days", board.warranties_ending,
             _list_url(asset, warranty="ending"), warn(board.warranties_ending)),
        Card(f"Licenses expiring in {numbers.EXPIRY_WINDOW_DAYS} days", board.licenses_expiring,
             _list_url("inventory_license", attention="expiring"), warn(board.licenses_expiring)),
        Card("Awaiting acceptance", board.awaiting_acceptance,
             _list_url("inventory_checkoutacceptance", state__exact="pending"), warn(board.awaiting_acceptance)),
        Card("Leavers still holding items", board.leavers, _list_url("accounts_user", leaver="yes"),
             warn(board.leavers)),
        Card("Licenses with no free seat", board.licenses_full, _list_url("inventory_license", attention="full"),
             warn(board.licenses_full)),
        *[Card(f"{kind.capitalize()} at their minimum", count, _list_url(f"inventory_{kind_model}", stock="low"),
               warn(count))
          for kind, kind_model, count in (
              ("accessories", "accessory", board.low_stock_counts["accessories"]),
              ("consumables", "consumable", board.low_stock_counts["consumables"]),
              ("components", "component", board.low_stock_counts["components"]))],
    ]
    status_bars = _bars([(label, count, _list_url(asset, status_type=key), STATUS_COLOURS[key])
                         for key, (label, count) in statuses.items()])
    shown = board.categories[:CHART_CATEGORIES]
    category_rows = [(name, count, _list_url(asset, model__category__id__exact=pk), BAR) for pk, name, count in shown]
    rest = sum(count for _pk, _name, count in board.categories[CHART_CATEGORIES:])
    if rest:
        category_rows.append(("Other", rest, _list_url(asset), "#9e9e9e"))
    low_stock = [{"row": row, "url": reverse(f"admin:inventory_{_MODEL_OF[row.kind]}_change", args=[row.pk])}
                 for row in board.low_stock]
    return {"dashboard": {
        "today": board.today, "cards": cards, "status_chart": status_bars, "category_chart": _bars(category_rows),
        "weeks": _week_bars(board.checkouts_per_week),
        "low_stock": low_stock, "activity": log_rows(request, board.activity),
    }}


_MODEL_OF = {"accessories": "accessory", "consumables": "consumable", "components": "component"}


register_index_panel("inventory.dashboard", IndexPanel("admin/inventory/dashboard.html", dashboard_context))
