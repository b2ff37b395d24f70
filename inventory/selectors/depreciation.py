"""Book values: what an asset is worth now by its model's depreciation (Snipe-IT's ``getLinearDepreciatedValue``).

Straight-line from the purchase cost on the purchase date down to the floor (``depreciation_min``: an amount, or a
percent of the cost) at ``months`` whole months later, and the floor from then on (0 without a floor). Whole months
are counted as Snipe-IT counts them (years × 12 + months of the calendar difference). No purchase date, cost or
depreciation: no book value."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

CENT = Decimal("0.01")


def months_between(start: date, end: date) -> int:
    """Whole calendar months from ``start`` to ``end`` (0 when ``end`` is before ``start``)."""
    months = (end.year - start.year) * 12 + (end.month - start.month)
    if end.day < start.day:
        months -= 1
    return max(months, 0)


def floor_value(cost: Decimal, depreciation_min: Decimal | None, depreciation_type: str) -> Decimal:
    minimum = Decimal(depreciation_min or 0)
    if depreciation_type == "percent":
        return cost * minimum / 100
    return minimum


def book_value(*, cost: Any, purchase_date: date | None, months: int | None, depreciation_min: Any,
               depreciation_type: str | None, today: date | None = None) -> Decimal | None:
    if cost is None or purchase_date is None or not months:
        return None
    cost = Decimal(cost)
    floor = floor_value(cost, depreciation_min, depreciation_type or "amount")
    passed = months_between(purchase_date, today or date.today())
    if passed >= months:
        value = floor
    else:
        value = cost - (cost - floor) * Decimal(passed) / Decimal(months)
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def end_of_life(purchase_date: date | None, months: int | None) -> date | None:
    """The date the asset is fully depreciated: ``months`` after its purchase (the month's last day when shorter)."""
    if purchase_date is None or not months:
        return None
    total = purchase_date.month - 1 + months
    year, month = purchase_date.year + total // 12, total % 12 + 1
    for day in (purchase_date.day, 30, 29, 28):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return None
