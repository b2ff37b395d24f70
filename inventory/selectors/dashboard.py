"""The back office's start page (issue 28): what an IT team checks first each morning, for what the viewer may see.

Every number is counted over the rows the viewer's company separation leaves them (``restrict(user)``), live rows
only, in a fixed number of queries whatever the inventory's size (measured in ``make bench``):

1. assets per model, and per model by status type, audits and check-ins due and overdue, warranties ending: one
   grouped aggregate (one pass over the assets, no join but the status label's; the totals are the models' sums);
2. the models' categories, to sum the models into the category chart: one query over the catalogue;
3. licenses expiring and licenses without a free seat: one aggregate;
4. accessories, consumables and components at or below their minimum quantity: one query per kind;
5. check-outs per week: one grouped count of the action log;
6. the latest activity: one query;
7. checkouts awaiting their person's acceptance (issue 29): one count on the ``(state, created_at)`` index.

The definitions are the API's (``GET /hardware`` with ``status``, the ``/hardware/audits/due`` family,
:func:`inventory.selectors.assets.upcoming`), so a number here equals what the API answers for the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import models
from django.db.models import Count, F, OuterRef, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from accounts.holdings import leavers
from accounts.models import User
from activity.choices import ActionType
from activity.models import ActionLog
from assetsvc.site import get_site_settings
from inventory.models import (
    Accessory,
    AddMonths,
    Asset,
    AssetModel,
    CheckoutAcceptance,
    Component,
    Consumable,
    License,
)
from inventory.selectors.assets import ASSIGNED
from inventory.selectors.charts import META_STATUSES

#: Days ahead that a license's expiry or an asset's warranty end counts as "ending soon".
EXPIRY_WINDOW_DAYS = 30
#: Weeks in the check-outs chart (this week included).
CHECKOUT_WEEKS = 12
#: Rows shown in the latest-activity and low-stock lists.
LIST_ROWS = 10


@dataclass
class LowStockRow:
    kind: str
    pk: int
    name: str
    remaining: int
    min_amt: int


@dataclass
class Dashboard:
    today: date
    #: ``(key, label, count)`` per status type, Snipe-IT's order (``deployed`` overlaps the others).
    statuses: list[tuple[str, str, int]]
    assets_total: int
    #: ``(category id, name, count)``, largest first.
    categories: list[tuple[int, str, int]]
    audits_due: int
    audits_overdue: int
    checkins_due: int
    checkins_overdue: int
    warranties_ending: int
    licenses_expiring: int
    licenses_full: int
    #: kind (``accessories``, ``consumables``, ``components``) → how many are at or below their minimum.
    low_stock_counts: dict[str, int]
    low_stock: list[LowStockRow]
    #: ``(Monday of the week, check-outs)``, oldest first, :data:`CHECKOUT_WEEKS` weeks.
    checkouts_per_week: list[tuple[date, int]]
    activity: list[ActionLog] = field(default_factory=list)
    #: Checkouts (of every kind) still waiting for their person's answer.
    awaiting_acceptance: int = 0
    #: Deactivated users still holding assets, accessories or license seats (issue 30, offboarding).
    leavers: int = 0


def warranty_ending(today: date, days: int = EXPIRY_WINDOW_DAYS) -> Q:
    """Assets whose warranty (``purchase_date`` + ``warranty_months``) ends from today to ``days`` ahead."""
    return Q(warranty_end__gte=today, warranty_end__lte=today + timedelta(days=days))


def with_warranty_end(queryset: models.QuerySet) -> models.QuerySet:
    """``warranty_end`` annotated (:meth:`inventory.models.AssetQuerySet.with_warranty_end`)."""
    return queryset.annotate(warranty_end=AddMonths(F("purchase_date"), F("warranty_months")))


def audits_condition(when: str, today: date, window: int) -> Q:
    return _date_condition("next_audit_date", when, today, window)


def checkins_condition(when: str, today: date, window: int) -> Q:
    return ASSIGNED & _date_condition("expected_checkin", when, today, window)


def _date_condition(name: str, when: str, today: date, window: int) -> Q:
    """The windows of :func:`inventory.selectors.assets.upcoming`: due from today to today + window, overdue
    before today."""
    if when == "due":
        return Q(**{f"{name}__gte": today, f"{name}__lte": today + timedelta(days=window or 0)})
    return Q(**{f"{name}__lt": today})


def low_stock(queryset: models.QuerySet) -> models.QuerySet:
    """Stock items with a minimum quantity whose remaining units are at or below it
    (:meth:`inventory.models.StockQuerySet.low_stock`)."""
    return queryset.low_stock()


def licenses_full(queryset: models.QuerySet) -> models.QuerySet:
    """Licenses with no free seat (every seat assigned)."""
    free = (License._meta.get_field("seat_rows").related_model._default_manager
            .filter(license=OuterRef("pk"), assigned_user__isnull=True, assigned_asset__isnull=True).values("pk")[:1])
    return queryset.filter(seats__gt=0).exclude(models.Exists(free))


def licenses_expiring(today: date, days: int = EXPIRY_WINDOW_DAYS) -> Q:
    return Q(expiration_date__gte=today, expiration_date__lte=today + timedelta(days=days))


def dashboard(user: Any, *, today: date | None = None) -> Dashboard:
    """Everything the start page shows, for ``user`` (see the module's text for the queries)."""
    site = get_site_settings()
    today = today or timezone.localdate()
    assets = Asset.objects.restrict(user).alive()
    # One pass over the assets, grouped by model without joining the catalogue (at 1,000,000 assets a second pass
    # for the categories, or joining models and categories to group by category, cost hundreds of milliseconds;
    # see docs/performance.md "Dashboard"): every count per model, summed here.
    wanted = {
        "total": Count("pk"),
        **{key: Count("pk", filter=condition) for key, _label, condition in META_STATUSES},
        "audits_due": Count("pk", filter=audits_condition("due", today, site.audit_warning_days)),
        "audits_overdue": Count("pk", filter=audits_condition("overdue", today, site.audit_warning_days)),
        "checkins_due": Count("pk", filter=checkins_condition("due", today, site.due_checkin_days)),
        "checkins_overdue": Count("pk", filter=checkins_condition("overdue", today, site.due_checkin_days)),
        "warranties_ending": Count("pk", filter=warranty_ending(today)),
    }
    per_model = list(with_warranty_end(assets).order_by().values("model_id").annotate(**wanted))
    counts = {key: sum(row[key] for row in per_model) for key in wanted}
    category_of = {pk: (category_id, name) for pk, category_id, name in
                   AssetModel.objects.order_by().values_list("pk", "category_id", "category__name")}
    per_category: dict[tuple[int, str], int] = {}
    for row in per_model:
        category = category_of[row["model_id"]]
        per_category[category] = per_category.get(category, 0) + row["total"]
    categories = sorted(((pk, name, n) for (pk, name), n in per_category.items()), key=lambda row: (-row[2], row[1]))
    licenses = License.objects.restrict(user).alive()
    license_counts = licenses.aggregate(expiring=Count("pk", filter=licenses_expiring(today)))
    license_counts["full"] = licenses_full(licenses).count()

    low_counts: dict[str, int] = {}
    low_rows: list[LowStockRow] = []
    for kind, model in (("accessories", Accessory), ("consumables", Consumable), ("components", Component)):
        rows = list(low_stock(model.objects.restrict(user).alive()).order_by("remaining", "name")
                    .values("pk", "name", "remaining", "min_amt")[:LIST_ROWS + 1])
        low_counts[kind] = len(rows)
        low_rows += [LowStockRow(kind, row["pk"], row["name"], row["remaining"], row["min_amt"]) for row in rows]
    low_rows.sort(key=lambda row: (row.remaining - row.min_amt, row.name))

    return Dashboard(
        today=today,
        statuses=[(key, label, counts[key]) for key, label, _condition in META_STATUSES],
        assets_total=counts["total"],
        categories=categories,
        audits_due=counts["audits_due"], audits_overdue=counts["audits_overdue"],
        checkins_due=counts["checkins_due"], checkins_overdue=counts["checkins_overdue"],
        warranties_ending=counts["warranties_ending"],
        licenses_expiring=license_counts["expiring"], licenses_full=license_counts["full"],
        low_stock_counts=low_counts, low_stock=low_rows[:LIST_ROWS],
        checkouts_per_week=checkouts_per_week(user, today),
        activity=latest_activity(user),
        awaiting_acceptance=CheckoutAcceptance.objects.restrict(user).pending().count(),
        leavers=leavers(User.objects.restrict(user)).count(),
    )


def checkouts_per_week(user: Any, today: date, weeks: int = CHECKOUT_WEEKS) -> list[tuple[date, int]]:
    """Check-outs of any kind the viewer may see, per week (Monday to Sunday, in ``TIME_ZONE``), oldest first."""
    monday = today - timedelta(days=today.weekday())
    first = monday - timedelta(weeks=weeks - 1)
    since = timezone.make_aware(datetime.combine(first, time.min))
    per_day = (ActionLog.objects.restrict(user).filter(action_type=ActionType.CHECKOUT, created_at__gte=since)
               .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
               .order_by().values("day").annotate(n=Count("pk")).values_list("day", "n"))
    totals = {first + timedelta(weeks=n): 0 for n in range(weeks)}
    for day, n in per_day:
        week = day - timedelta(days=day.weekday())
        if week in totals:
            totals[week] += n
    return sorted(totals.items())


def latest_activity(user: Any, rows: int = LIST_ROWS) -> list[ActionLog]:
    """The newest rows, with their actor and location (each row shows both: one query, not one per row)."""
    return list(ActionLog.objects.restrict(user).select_related("created_by", "location")
                .order_by("-created_at", "-pk")[:rows])
