"""The daily alert digest and the personal reminders of ``manage.py send_alerts`` (issue 29 item 4).

**The digest** goes to each address of the site's ``alert_email`` (unless ``alerts_enabled`` is off): warranties and
licenses expiring within ``alert_interval`` days, audits overdue and due within ``audit_warning_days``, check-ins
overdue, and accessories, consumables and components at or below their minimum. Each address gets the rows of its
:class:`Scope`: everything, or one company's when the address belongs to a person whom company separation limits (a
company administrator sees in the mail what the admin shows them, ``restrict(user)``).

The definitions are the dashboard's (``inventory/selectors/dashboard.py``: the warranty end of
:meth:`inventory.models.AssetQuerySet.with_warranty_end`, the remaining units of
:meth:`inventory.models.StockQuerySet.low_stock`), over live rows; archived assets are left out of the asset
sections (nobody audits or checks in an archived asset). Each section is one query whatever the inventory's size
(the total is a window count over the same rows) and lists at most :data:`SECTION_ROWS` rows ("and N more"), so a
digest of a million assets stays a readable mail.

**Reminders** go to each active person with an address who holds assets whose expected check-in has passed or items
still awaiting their acceptance; at most one per ``reminder_interval`` days (a ``reminder`` mail to them in the
interval, unless it failed, skips them).

Nothing here puts a license's product key or a custom field's value into a mail: the rows are read with ``values()``
of the named columns only.

A second run the same day queues nothing new: the digest's ``dedupe_key`` is ``digest:<day>:<address>``, a
reminder's ``reminder:<user>:<day>``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Case, Count, Q, When, Window
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.http import urlencode

from accounts.holdings import annotate_user_counts, leavers
from accounts.models import User, full_name
from assetsvc.conf import app_settings
from assetsvc.forms import split_addresses
from assetsvc.scoping import hidden_company
from assetsvc.site import close_request_scope, get_site_settings, open_request_scope
from companies.querysets import separation_applies_to
from inventory.acceptance_links import acceptance_url
from inventory.choices import StatusType
from inventory.models import (
    Accessory,
    Asset,
    CheckoutAcceptance,
    Component,
    Consumable,
    License,
)
from notifications.mail import queue_mail
from notifications.models import OutboundMail

logger = logging.getLogger(__name__)

#: Rows listed per section (and per list of a reminder); the rest is counted ("and N more").
SECTION_ROWS = 200
DIGEST_EVENT = "digest"
REMINDER_EVENT = "reminder"
#: Mail statuses that do not count as "reminded" (the person never got it, so the next run tries again).
NOT_DELIVERED = {OutboundMail.Status.FAILED}
#: What a company's digest shows for a person, asset or location of another company (the API answers null).
HIDDEN = "(another company)"


# --- scopes ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scope:
    """Whose rows a digest lists: everything (``user`` None or not limited) or the company of a limited person."""

    #: The person the address belongs to (the one whom separation limits, if any), or None for an outside address.
    user: User | None = None
    company_id: int | None = None
    company_name: str = ""

    @property
    def key(self) -> int | None:
        return self.company_id

    def restrict(self, queryset: models.QuerySet) -> models.QuerySet:
        """``queryset`` as this scope's person may see it (the same ``restrict(user)`` as the API and the admin)."""
        if self.company_id is None:
            return queryset
        return queryset.restrict(self.user)


def scope_for_address(address: str) -> Scope:
    """The scope of an ``alert_email`` address. When live (not deleted) people have this address and separation
    limits one of them, the digest lists that person's company only (the lowest id decides, fail-closed: a
    deactivated company administrator's address keeps their limit). Otherwise (an outside address, super users,
    people without a company, separation off) it lists everything; the person, if any, is kept for the mail log."""
    people = list(User.objects.filter(email__iexact=address, deleted_at__isnull=True)
                  .select_related("company").order_by("-is_active", "pk"))
    for person in people:
        if separation_applies_to(person):
            return Scope(user=person, company_id=person.company_id,
                         company_name=person.company.name if person.company else "")
    return Scope(user=people[0] if people else None)


# --- the digest -----------------------------------------------------------------------------------------------------

@dataclass
class Row:
    cells: list[str]
    #: The admin page of the row's record (absolute), or "".
    url: str = ""


@dataclass
class Section:
    key: str
    title: str
    columns: list[str]
    rows: list[Row]
    total: int
    #: The admin list filtered to this kind of row (absolute), or "".
    list_url: str = ""
    #: The word the subject counts with: (singular, plural).
    noun: tuple[str, str] = ("item", "items")

    @property
    def more(self) -> int:
        return max(self.total - len(self.rows), 0)


@dataclass
class Digest:
    today: date
    scope: Scope
    sections: list[Section] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not any(section.total for section in self.sections)

    def subject(self) -> str:
        counts: dict[tuple[str, str], int] = {}
        for section in self.sections:
            if section.total:
                counts[section.noun] = counts.get(section.noun, 0) + section.total
        parts = [f"{n} {singular if n == 1 else plural}" for (singular, plural), n in counts.items()]
        verb = "needs" if sum(counts.values()) == 1 else "need"
        return f"[{app_settings.SITE_NAME}] {', '.join(parts)} {verb} attention"


def admin_url(name: str, *args: Any, **params: Any) -> str:
    """An absolute admin address (``SITE_URL``): ``name`` is a URL name without ``admin:`` (a change page with
    ``args``, a list with filter ``params``); "" when the admin does not have it."""
    try:
        path = reverse(f"admin:{name}", args=args)
    except NoReverseMatch:
        return ""
    return f"{settings.SITE_URL}{path}" + (f"?{urlencode(params)}" if params else "")


def _capped(queryset: models.QuerySet, *fields: str) -> tuple[list[dict[str, Any]], int]:
    """The first :data:`SECTION_ROWS` rows of ``queryset`` (as dicts of ``fields``) and how many there are in all, in
    one query (a window count over the filtered rows, before the limit)."""
    rows = list(queryset.annotate(_total=Window(Count("pk"))).values(*fields, "_total")[:SECTION_ROWS])
    return rows, (rows[0]["_total"] if rows else 0)


def _day(value: date | None) -> str:
    return value.isoformat() if value else ""


def _asset_name(row: dict[str, Any]) -> str:
    return row["name"] or row["model__name"] or ""


def _live_assets(scope: Scope) -> models.QuerySet:
    return scope.restrict(Asset.objects.alive()).exclude(status__type=StatusType.ARCHIVED)


ASSET_FIELDS = ("pk", "asset_tag", "name", "model__name")


def warranties_section(scope: Scope, today: date, days: int) -> Section:
    assets = (_live_assets(scope).with_warranty_end()
              .filter(warranty_end__gte=today, warranty_end__lte=today + timedelta(days=days))
              .order_by("warranty_end", "pk"))
    rows, total = _capped(assets, *ASSET_FIELDS, "serial", "warranty_end")
    return Section(
        "warranties", f"Warranties expiring within {days} days", ["Asset tag", "Name", "Serial", "Warranty ends"],
        [Row([row["asset_tag"], _asset_name(row), row["serial"], _day(row["warranty_end"])],
             admin_url("inventory_asset_change", row["pk"])) for row in rows],
        total, admin_url("inventory_asset_changelist", warranty="ending"), ("warranty", "warranties"))


def licenses_section(scope: Scope, today: date, days: int) -> Section:
    """Licenses whose expiration or termination date falls from today to ``days`` ahead, the nearest first. Only the
    name and dates are read: never the product key (``serial``)."""
    until = today + timedelta(days=days)
    expires = Q(expiration_date__gte=today, expiration_date__lte=until)
    terminates = Q(termination_date__gte=today, termination_date__lte=until)
    licenses = (scope.restrict(License.objects.alive()).filter(expires | terminates)
                .annotate(due=Case(
                    When(expires & terminates & Q(expiration_date__lte=models.F("termination_date")),
                         then="expiration_date"),
                    When(expires & terminates, then="termination_date"),
                    When(expires, then="expiration_date"),
                    default="termination_date", output_field=models.DateField()))
                .order_by("due", "name", "pk"))
    rows, total = _capped(licenses, "pk", "name", "expiration_date", "termination_date", "seats")
    return Section(
        "licenses", f"Licenses expiring within {days} days", ["License", "Expires", "Terminates", "Seats"],
        [Row([row["name"], _day(row["expiration_date"]), _day(row["termination_date"]), str(row["seats"])],
             admin_url("inventory_license_change", row["pk"])) for row in rows],
        total, admin_url("inventory_license_changelist", attention="expiring"), ("license", "licenses"))


def audits_section(scope: Scope, today: date, window: int, *, overdue: bool) -> Section:
    if overdue:
        condition, title = Q(next_audit_date__lt=today), "Audits overdue"
    else:
        condition = Q(next_audit_date__gte=today, next_audit_date__lte=today + timedelta(days=window or 0))
        title = f"Audits due within {window} days"
    assets = _live_assets(scope).filter(condition).order_by("next_audit_date", "pk")
    rows, total = _capped(assets, *ASSET_FIELDS, "location__name", "location__company_id", "next_audit_date")

    def location(row: dict[str, Any]) -> str:
        if hidden_company(scope.company_id, row["location__company_id"]):
            return HIDDEN
        return row["location__name"] or ""

    return Section(
        "audits_overdue" if overdue else "audits_due", title, ["Asset tag", "Name", "Location", "Next audit"],
        [Row([row["asset_tag"], _asset_name(row), location(row), _day(row["next_audit_date"])],
             admin_url("inventory_asset_change", row["pk"])) for row in rows],
        total, admin_url("inventory_asset_changelist", audit="overdue" if overdue else "due"), ("audit", "audits"))


def checkins_section(scope: Scope, today: date) -> Section:
    """Checked-out assets whose expected check-in has passed. The holder is named unless it belongs to another
    company than the scope's (as the API answers such a reference: hidden)."""
    assigned = (Q(assigned_user__isnull=False) | Q(assigned_asset__isnull=False)
                | Q(assigned_location__isnull=False))
    assets = _live_assets(scope).filter(assigned, expected_checkin__lt=today).order_by("expected_checkin", "pk")
    rows, total = _capped(
        assets, *ASSET_FIELDS, "expected_checkin",
        "assigned_user__first_name", "assigned_user__last_name", "assigned_user__username",
        "assigned_user__company_id", "assigned_asset__asset_tag", "assigned_asset__company_id",
        "assigned_location__name", "assigned_location__company_id")

    def holder(row: dict[str, Any]) -> str:
        for kind, name in (("assigned_user", full_name(row["assigned_user__first_name"] or "",
                                                       row["assigned_user__last_name"] or "",
                                                       row["assigned_user__username"] or "")),
                           ("assigned_asset", row["assigned_asset__asset_tag"] or ""),
                           ("assigned_location", row["assigned_location__name"] or "")):
            if name:
                return HIDDEN if hidden_company(scope.company_id, row[f"{kind}__company_id"]) \
                    else name
        return ""

    return Section(
        "checkins", "Check-ins overdue", ["Asset tag", "Name", "Checked out to", "Expected check-in"],
        [Row([row["asset_tag"], _asset_name(row), holder(row), _day(row["expected_checkin"])],
             admin_url("inventory_asset_change", row["pk"])) for row in rows],
        total, admin_url("inventory_asset_changelist", checkin="overdue"), ("overdue check-in", "overdue check-ins"))


def low_stock_section(scope: Scope, model: type[models.Model], kind: str) -> Section:
    name = model._meta.model_name
    items = scope.restrict(model.objects.alive()).low_stock().order_by("remaining", "name", "pk")
    rows, total = _capped(items, "pk", "name", "remaining", "min_amt")
    return Section(
        f"low_{kind}", f"{kind.capitalize()} at or below their minimum", ["Name", "Remaining", "Minimum"],
        [Row([row["name"], str(row["remaining"]), str(row["min_amt"])],
             admin_url(f"inventory_{name}_change", row["pk"])) for row in rows],
        total, admin_url(f"inventory_{name}_changelist", stock="low"), ("low-stock item", "low-stock items"))


def leavers_section(scope: Scope) -> Section:
    """Offboarding (issue 30): deactivated people who still hold assets, accessories or license seats, with how many
    assets they hold (the user record's counts, as the scope's person may see them)."""
    people = leavers(scope.restrict(User.objects.all())).order_by("last_name", "first_name", "username", "pk")
    people = annotate_user_counts(people, scope.user if scope.company_id is not None else None)
    rows, total = _capped(people, "pk", "username", "first_name", "last_name", "email", "assets_count",
                          "accessories_count", "licenses_count")
    return Section(
        "leavers", "Leavers still holding items", ["Person", "E-mail", "Assets", "Accessories", "License seats"],
        [Row([full_name(row["first_name"] or "", row["last_name"] or "", row["username"]), row["email"] or "",
              str(row["assets_count"]), str(row["accessories_count"]), str(row["licenses_count"])],
             admin_url("accounts_user_change", row["pk"])) for row in rows],
        total, admin_url("accounts_user_changelist", leaver="yes"), ("leaver", "leavers"))


def digest(scope: Scope, today: date) -> Digest:
    """Every section of the digest for ``scope`` on ``today`` (empty ones included; one query each)."""
    site = get_site_settings()
    return Digest(today, scope, [
        warranties_section(scope, today, site.alert_interval),
        licenses_section(scope, today, site.alert_interval),
        audits_section(scope, today, site.audit_warning_days, overdue=True),
        audits_section(scope, today, site.audit_warning_days, overdue=False),
        checkins_section(scope, today),
        low_stock_section(scope, Accessory, "accessories"),
        low_stock_section(scope, Consumable, "consumables"),
        low_stock_section(scope, Component, "components"),
        leavers_section(scope),
    ])


def digest_context(board: Digest) -> dict[str, Any]:
    return {"today": board.today, "company_name": board.scope.company_name,
            "sections": [section for section in board.sections if section.total],
            "alert_interval": get_site_settings().alert_interval}


# --- reminders ------------------------------------------------------------------------------------------------------

@dataclass
class Reminder:
    user: User
    #: ``{"asset_tag", "name", "expected_checkin", "days"}`` per overdue asset, the longest overdue first.
    overdue: list[dict[str, Any]] = field(default_factory=list)
    overdue_total: int = 0
    #: Pending acceptances, oldest first (the link is added when the mail is made).
    pending: list[CheckoutAcceptance] = field(default_factory=list)
    pending_total: int = 0

    def subject(self) -> str:
        parts = []
        if self.overdue_total:
            parts.append(f"{self.overdue_total} overdue check-in{'s' if self.overdue_total != 1 else ''}")
        if self.pending_total:
            parts.append(f"{self.pending_total} item{'s' if self.pending_total != 1 else ''} awaiting your "
                         "acceptance")
        return f"[{app_settings.SITE_NAME}] Reminder: {' and '.join(parts)}"


#: The acceptance's ``item_type`` → the model and how its rows are named (never a license key: names only).
ITEM_KINDS: dict[str, tuple[type[models.Model], tuple[str, ...]]] = {
    "asset": (Asset, ("asset_tag", "name", "model__name")),
    "accessory": (Accessory, ("name",)),
    "consumable": (Consumable, ("name",)),
    "component": (Component, ("name",)),
    "license": (License, ("name",)),
}


def _item_labels(acceptances: Iterable[CheckoutAcceptance]) -> dict[tuple[str, int], str]:
    """``(item_type, item_id)`` → a name for the mail, one query per kind present."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for acceptance in acceptances:
        wanted[acceptance.item_type].add(acceptance.item_id)
    labels: dict[tuple[str, int], str] = {}
    for item_type, ids in wanted.items():
        if item_type not in ITEM_KINDS:
            continue
        model, fields = ITEM_KINDS[item_type]
        for row in model._default_manager.filter(pk__in=ids).values("pk", *fields):
            if item_type == "asset":
                name = _asset_name(row)
                labels[(item_type, row["pk"])] = f"{row['asset_tag']} – {name}" if name else row["asset_tag"]
            else:
                labels[(item_type, row["pk"])] = row["name"]
    return labels


def reminded_recently(user_ids: Iterable[int], today: date, interval: int) -> set[int]:
    """The people of ``user_ids`` who were sent a reminder in the ``interval`` days up to ``today`` (one query): with
    an interval of 7, a reminder of the 1st holds the next one back until the 8th."""
    since = timezone.make_aware(datetime.combine(today - timedelta(days=interval - 1), time.min))
    return set(OutboundMail.objects.filter(event=REMINDER_EVENT, user_id__in=list(user_ids), created_at__gte=since)
               .exclude(status__in=NOT_DELIVERED).values_list("user_id", flat=True))


def reminders(today: date) -> list[Reminder]:
    """Who should be reminded today, before the interval check: active, live people with an address holding overdue
    check-ins or pending acceptances (four queries, plus one per kind of item awaiting acceptance)."""
    people = Q(is_active=True, deleted_at__isnull=True) & ~Q(email="")
    overdue_rows = (Asset.objects.alive().filter(expected_checkin__lt=today, assigned_user__isnull=False,
                                                 assigned_user__in=User.objects.filter(people))
                    .order_by("assigned_user_id", "expected_checkin", "pk")
                    .values("assigned_user_id", "asset_tag", "name", "model__name", "expected_checkin"))
    acceptances = list(CheckoutAcceptance.objects.pending().filter(user__in=User.objects.filter(people))
                       .order_by("user_id", "created_at", "pk"))
    by_user: dict[int, Reminder] = {}
    wanted_ids = {row["assigned_user_id"] for row in overdue_rows} | {row.user_id for row in acceptances}
    users = {person.pk: person for person in User.objects.filter(pk__in=wanted_ids)}

    def reminder(user_id: int) -> Reminder:
        if user_id not in by_user:
            by_user[user_id] = Reminder(users[user_id])
        return by_user[user_id]

    for row in overdue_rows:
        entry = reminder(row["assigned_user_id"])
        entry.overdue_total += 1
        if len(entry.overdue) < SECTION_ROWS:
            entry.overdue.append({"asset_tag": row["asset_tag"], "name": _asset_name(row),
                                  "expected_checkin": row["expected_checkin"],
                                  "days": (today - row["expected_checkin"]).days})
    for acceptance in acceptances:
        entry = reminder(acceptance.user_id)
        entry.pending_total += 1
        if len(entry.pending) < SECTION_ROWS:
            entry.pending.append(acceptance)
    return [by_user[pk] for pk in sorted(by_user)]


def reminder_context(entry: Reminder, today: date, labels: dict[tuple[str, int], str],
                     link: Callable[[CheckoutAcceptance], str]) -> dict[str, Any]:
    return {
        "today": today, "person_name": entry.user.full_name,
        "overdue": entry.overdue, "overdue_more": entry.overdue_total - len(entry.overdue),
        "pending": [{"item": labels.get((acceptance.item_type, acceptance.item_id),
                                        f"{acceptance.item_type} #{acceptance.item_id}"),
                     "kind": acceptance.item_type, "since": timezone.localtime(acceptance.created_at).date(),
                     "url": link(acceptance)} for acceptance in entry.pending],
        "pending_more": entry.pending_total - len(entry.pending),
    }


# --- the run --------------------------------------------------------------------------------------------------------

@dataclass
class Summary:
    digests_queued: int = 0
    digests_already_sent: int = 0
    digests_empty: int = 0
    digests_off: str = ""
    reminders_queued: int = 0
    reminders_already_sent: int = 0
    reminders_recent: int = 0
    failures: list[str] = field(default_factory=list)
    #: In a dry run, what would be sent: ``(kind, address, subject)``.
    planned: list[tuple[str, str, str]] = field(default_factory=list)


def _queue(summary: Summary, kind: str, **mail: Any) -> bool | None:
    """Queue one mail in its own transaction: True when queued, False when its ``dedupe_key`` was used already, None
    when it failed (recorded in ``summary.failures``; the other mails still go)."""
    try:
        with transaction.atomic():
            return queue_mail(**mail) is not None
    except Exception as exc:  # noqa: BLE001 (one broken mail must not keep the others back; reported at the end)
        logger.exception("send_alerts: the %s to %s was not queued", kind, mail["to"])
        summary.failures.append(f"{kind} to {mail['to']}: {exc}")
        return None


def send_alerts(*, today: date | None = None, dry_run: bool = False) -> Summary:
    """Queue today's digests and reminders (see the module's text). ``today`` defaults to the date in
    ``TIME_ZONE``; ``dry_run`` queues nothing and lists in ``summary.planned`` what would be queued."""
    today = today or timezone.localdate()
    token = open_request_scope()  # the settings row read once for the run, as in a request
    try:
        return _send(today, dry_run)
    finally:
        close_request_scope(token)


def _send(today: date, dry_run: bool) -> Summary:
    site = get_site_settings()
    summary = Summary()

    addresses = split_addresses(site.alert_email or "")
    if not site.alerts_enabled:
        summary.digests_off = "alerts_enabled is off"
    elif not addresses:
        summary.digests_off = "alert_email is empty"
    boards: dict[int | None, Digest] = {}
    for address in addresses if not summary.digests_off else []:
        scope = scope_for_address(address)
        if scope.key not in boards:
            boards[scope.key] = digest(scope, today)
        board = boards[scope.key]
        if board.empty:
            summary.digests_empty += 1
            continue
        key = f"digest:{today.isoformat()}:{address.lower()}"
        subject = board.subject()
        if dry_run:
            if OutboundMail.objects.filter(dedupe_key=key).exists():
                summary.digests_already_sent += 1
            else:
                summary.planned.append(("digest", address, subject))
            continue
        context = digest_context(board)
        queued = _queue(summary, "digest", to=address, subject=subject, template="alert_digest", context=context,
                        event=DIGEST_EVENT, user=scope.user, company_id=scope.company_id, dedupe_key=key)
        if queued:
            summary.digests_queued += 1
        elif queued is False:
            summary.digests_already_sent += 1

    due = reminders(today)
    recent = reminded_recently((entry.user.pk for entry in due), today, site.reminder_interval)
    labels = _item_labels(acceptance for entry in due for acceptance in entry.pending)
    for entry in due:
        if entry.user.pk in recent:
            summary.reminders_recent += 1
            continue
        subject = entry.subject()
        if dry_run:
            summary.planned.append(("reminder", entry.user.email, subject))
            continue
        context = reminder_context(entry, today, labels, acceptance_url)
        queued = _queue(summary, "reminder", to=entry.user.email, subject=subject, template="reminder",
                        context=context, event=REMINDER_EVENT, user=entry.user, company_id=entry.user.company_id,
                        dedupe_key=f"reminder:{entry.user.pk}:{today.isoformat()}")
        if queued:
            summary.reminders_queued += 1
        elif queued is False:
            summary.reminders_already_sent += 1
    return summary

