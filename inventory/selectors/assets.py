"""Non-trivial reads of assets: the list filters and search of ``GET /hardware`` (reference §4.2) and the due /
overdue lists. Callers pass an already company-restricted queryset.

Filters on related tables are written as ``<fk>_id IN (SELECT id FROM <small table> WHERE ...)`` rather than as
joins (``status__type=...``): the result is the same (``status`` and ``model`` are never null), but the count and
the page no longer join the status label or the model for every asset, so the count of a list and a deep offset
read one table (docs/performance.md)."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from django.db import connection
from django.db.models import BooleanField, F, Func, Q, QuerySet, Subquery, Value
from django.utils import timezone

from accounts.models import User
from assetsvc.inputs import parse_flag, search_terms
from assetsvc.site import get_site_settings
from companies.models import Company
from companies.querysets import limiting_company_id
from inventory.choices import StatusType, TargetType
from inventory.custom_values import lookups as custom_filters
from inventory.models import (
    Asset,
    AssetModel,
    AssetQuerySet,
    CheckoutAcceptance,
    Location,
    StatusLabel,
    Supplier,
    asset_acceptance_exists,
)
from inventory.selectors import tally

#: ``status`` filter values (specification "Asset status filter values"), compared case-insensitively.
STATUS_VALUES = ("deleted", "pending", "rtd", "undeployable", "archived", "requestable", "deployed", "byod")
ASSIGNED = Q(assigned_user__isnull=False) | Q(assigned_asset__isnull=False) | Q(assigned_location__isnull=False)
UNASSIGNED = Q(assigned_user__isnull=True, assigned_asset__isnull=True, assigned_location__isnull=True)
ASSIGNED_TYPES = {
    "user": TargetType.USER, "app\\models\\user": TargetType.USER,
    "asset": TargetType.ASSET, "app\\models\\asset": TargetType.ASSET,
    "location": TargetType.LOCATION, "app\\models\\location": TargetType.LOCATION,
}
_ID = re.compile(r"^\s*[0-9]{1,18}\s*$")


class NoMatch(Exception):
    """A filter value that can match nothing (``model_id=abc``): the list is empty, not an error."""


def _ids(value: Any) -> list[int]:
    """``5``, ``"5"``, ``"1,2"`` or a list of those → ids; anything else matches nothing."""
    values = value if isinstance(value, list) else str(value).split(",")
    ids = []
    for item in values:
        if item is None or isinstance(item, bool) or not _ID.match(str(item)):
            raise NoMatch
        ids.append(int(str(item).strip()))
    if not ids:
        raise NoMatch
    return ids


#: The filter parameters of :func:`filter_assets` (``status`` and ``assigned_to`` besides these).
ID_FILTERS = ("status_id", "location_id", "rtd_location_id", "supplier_id", "company_id", "model_id", "category_id",
              "manufacturer_id")
EXACT_FILTERS = ("asset_tag", "serial", "order_number")
FLAG_FILTERS = ("byod", "requestable")
FILTERS = ("status", *ID_FILTERS, *EXACT_FILTERS, *FLAG_FILTERS, "assigned_to", "acceptance")
#: ``?acceptance=``: assets whose checkout awaits its person's answer, accepted by the current holder, or declined
#: (issue 29; the admin's acceptance filter too).
ACCEPTANCE_STATES = {"pending": CheckoutAcceptance.State.PENDING, "accepted": CheckoutAcceptance.State.ACCEPTED,
                     "declined": CheckoutAcceptance.State.DECLINED}
#: The filters the live-asset tally answers (:func:`tallied_total`).
TALLIED_FILTERS = frozenset({"company_id", "status_id"})


def _labels(*types: str) -> Any:
    """Ids of the status labels of ``types``, as a subquery (five rows; unfiltered manager, like the join was)."""
    return StatusLabel._base_manager.filter(type__in=types).values("pk")


def filter_assets(queryset: AssetQuerySet, params: dict[str, Any]) -> AssetQuerySet:
    """Apply ``GET /hardware`` filters. Soft-deleted assets only with ``status=Deleted``; archived labels hidden
    unless ``status_id`` or ``status=Archived`` asks for them or ``show_archived_in_list`` is on."""
    custom = custom_filters.conditions(params)  # field errors before anything else can match nothing
    try:
        queryset = _filter_assets(queryset, params)
    except NoMatch:
        return queryset.none()
    return queryset if custom is None else queryset.filter(custom)


def _filter_assets(queryset: AssetQuerySet, params: dict[str, Any]) -> AssetQuerySet:
    status = str(params.get("status") or "").strip().lower()
    queryset = queryset.deleted() if status == "deleted" else queryset.alive()
    if status == "pending":
        queryset = queryset.filter(status_id__in=_labels(StatusType.PENDING))
    elif status == "rtd":
        queryset = queryset.filter(UNASSIGNED, status_id__in=_labels(StatusType.DEPLOYABLE))
    elif status == "undeployable":
        queryset = queryset.filter(status_id__in=_labels(StatusType.UNDEPLOYABLE))
    elif status == "archived":
        queryset = queryset.filter(status_id__in=_labels(StatusType.ARCHIVED))
    elif status == "requestable":
        queryset = queryset.filter(requestable=True, status_id__in=_labels(StatusType.DEPLOYABLE))
    elif status == "deployed":
        queryset = queryset.filter(ASSIGNED)
    elif status == "byod":
        queryset = queryset.filter(byod=True)
    if (status not in {"archived", "deleted"} and params.get("status_id") in (None, "")
            and not get_site_settings().show_archived_in_list):
        # NOT IN a hashed list of the archived label ids: a row filter, so the default order still walks the
        # created_at index and stops after the page (a semi-join on the other labels may hash the whole table).
        queryset = queryset.exclude(status_id__in=_labels(StatusType.ARCHIVED))

    for field in ID_FILTERS:
        value = params.get(field)
        if value in (None, "", []):
            continue
        if field in {"category_id", "manufacturer_id"}:  # through the model: its ids, not a join
            models = AssetModel._base_manager.filter(**{f"{field}__in": _ids(value)}).values("pk")
            queryset = queryset.filter(model_id__in=models)
        else:
            queryset = queryset.filter(**{f"{field}__in": _ids(value)})
    for param in EXACT_FILTERS:
        value = params.get(param)
        if value not in (None, ""):
            if isinstance(value, list):
                raise NoMatch
            queryset = queryset.filter(**{f"{param}__iexact": str(value).strip()})
    for param in FLAG_FILTERS:
        if params.get(param) not in (None, ""):
            flag = parse_flag(params[param])
            if flag is None:
                raise NoMatch
            queryset = queryset.filter(**{param: flag})
    assigned_to, assigned_type = params.get("assigned_to"), params.get("assigned_type")
    if assigned_to not in (None, ""):
        # ``assigned_to`` alone means a user (the usual question, "what does user 2 hold?"); before, it was ignored
        # and every asset was listed.
        kind = ASSIGNED_TYPES.get(str(assigned_type).strip().lower()) if assigned_type not in (None, "") \
            else TargetType.USER
        if kind is None:
            raise NoMatch
        queryset = queryset.filter(**{f"assigned_{kind}_id__in": _ids(assigned_to)})
    acceptance = params.get("acceptance")
    if acceptance not in (None, ""):
        state = ACCEPTANCE_STATES.get(str(acceptance).strip().lower())
        if state is None:
            raise NoMatch
        queryset = queryset.filter(asset_acceptance_exists(state, holder=state == CheckoutAcceptance.State.ACCEPTED))
    return queryset


def tallied_total(params: dict[str, Any], search: str | None, user: User) -> int | None:
    """The exact total of ``GET /hardware`` with ``params`` from the live-asset tally
    (``inventory/selectors/tally.py``), or
    None when the list must count: no tally (SQLite), a search, a filter besides :data:`TALLIED_FILTERS`, or an id
    list that does not parse (the filter then answers, with nothing). The list's own conditions, restated: live
    assets of the caller's company (separation) and of ``?company_id=``, of ``?status_id=`` or else of every label
    but the archived ones unless ``show_archived_in_list``."""
    if not tally.available() or _search_terms(search):
        return None
    if custom_filters.given(params):
        return None
    given = {name for name in FILTERS if params.get(name) not in (None, "")}
    if not given <= TALLIED_FILTERS:
        return None
    try:
        companies = _ids(params["company_id"]) if "company_id" in given else None
        statuses = _ids(params["status_id"]) if "status_id" in given else None
    except NoMatch:
        return None
    limit = limiting_company_id(user)
    if limit is not None:
        companies = [limit] if companies is None or limit in companies else []
    archived = statuses is not None or get_site_settings().show_archived_in_list
    return tally.live_asset_total(companies=companies, statuses=statuses, archived=archived)


#: Asset columns ``?search=`` matches itself; related names are matched through :func:`_related_matches`.
SEARCH_COLUMNS = ("name", "asset_tag", "serial", "order_number", "notes")
#: Shorter terms have no trigram to look up: one scan with every condition is then cheaper than a union of scans.
TRIGRAM = 3


def _any_contains(fields: tuple[str, ...], term: str) -> Q:
    query = Q()
    for field in fields:
        query |= Q(**{f"{field}__icontains": term})
    return query


def _related_sources(term: str) -> list[tuple[tuple[str, ...], QuerySet]]:
    """Related records whose names contain ``term``, each with the asset columns that point at them: each source
    scans one small table (labels, suppliers, companies, locations, models, users) instead of joining twelve
    tables to every asset. Same columns as before: status, supplier, company, (rtd/assigned) location names;
    model name and number, its category and manufacturer names; the assigned user's first/last name, username and
    employee number; the assigned asset's name and tag."""
    locations = Location._base_manager.filter(name__icontains=term).values("pk")
    models = AssetModel._base_manager.filter(
        _any_contains(("name", "model_number", "category__name", "manufacturer__name"), term)).values("pk")
    users = User._base_manager.filter(
        _any_contains(("first_name", "last_name", "username", "employee_num"), term)).values("pk")
    # Only assets that are checkout targets can match (few): look those up by id, not by scanning every asset.
    targets = Asset._base_manager.filter(assigned_asset__isnull=False).values("assigned_asset_id")
    assets = Asset._base_manager.filter(_any_contains(("name", "asset_tag"), term), pk__in=targets).values("pk")
    return [
        (("status_id",), StatusLabel._base_manager.filter(name__icontains=term).values("pk")),
        (("supplier_id",), Supplier._base_manager.filter(name__icontains=term).values("pk")),
        (("company_id",), Company._base_manager.filter(name__icontains=term).values("pk")),
        (("rtd_location_id", "location_id", "assigned_location_id"), locations),
        (("model_id",), models),
        (("assigned_user_id",), users),
        (("assigned_asset_id",), assets),
    ]


def _related_matches(term: str) -> Q:
    """Assets whose related records' names contain ``term``, as ``<fk>_id IN (ids of the matching rows)``."""
    query = Q()
    for columns, related in _related_sources(term):
        for column in columns:
            query |= Q(**{f"{column}__in": related})
    return query


def _related_ids(terms: list[str]) -> dict[str, set[int]]:
    """PostgreSQL: the ids of every related record any term matches, by the asset column that points at them, in
    one query (a ``UNION ALL`` tagged by source). The asset arms then filter by known ids: planned with
    ``<fk> IN (subquery)``, PostgreSQL could not know that no company matched and scanned every asset in parallel
    in case one held a fifth of them."""
    parts, columns_of = [], []
    for term in terms:
        for columns, related in _related_sources(term):
            parts.append(related.order_by().annotate(source=Value(len(columns_of))).values_list("source", "pk"))
            columns_of.append(columns)
    found: dict[str, set[int]] = {}
    for source, pk in parts[0].union(*parts[1:], all=True):
        for column in columns_of[source]:
            found.setdefault(column, set()).add(pk)
    return found


def search_text(params: dict[str, Any]) -> str | None:
    """The list's ``?search=``: none when ``filter`` is given and not empty (API-CONTRACT.md §11.2)."""
    search = params.get("search")
    if not isinstance(search, str) or custom_filters.filter_given(params):
        return None
    return search


def _search_terms(text: str | None) -> list[str]:
    return search_terms(text)  # capped (issue 25 item 7): a field error on ``search`` past the cap


def searched_by_index(text: str | None) -> bool:
    """True when ``?search=text`` runs as the indexed union (PostgreSQL, every term long enough for a trigram):
    the union costs more than the page, so the list counts and pages it in one query."""
    terms = _search_terms(text)
    return bool(terms) and connection.vendor == "postgresql" and min(map(len, terms)) >= TRIGRAM


def counted_with_page(params: dict[str, Any]) -> bool:
    """True when ``GET /hardware`` counts and pages in one query (``COUNT(*) OVER ()``): on PostgreSQL, a search by
    the indexed union, or a custom field filter (its matches are joined once, not once to count and once to page)."""
    if searched_by_index(search_text(params)):
        return True
    return connection.vendor == "postgresql" and custom_filters.given(params)


def search_assets(queryset: AssetQuerySet, text: str | None) -> AssetQuerySet:
    """``?search=``: case-insensitive substring over the asset's own columns, its related names and the values of
    the non-encrypted custom fields its model's fieldset shows (``custom_filters.search_values``); terms
    separated by `` OR `` match any (same rules as ``assetsvc.api.viewsets.SearchFilter``, first 255 characters)."""
    terms = _search_terms(text)
    if not terms:
        return queryset
    if any("\x00" in term for term in terms):  # no text holds a NUL (PostgreSQL cannot compare one): nothing matches
        return queryset.none()
    if searched_by_index(text):
        return queryset.filter(InArray(F("pk"), Subquery(_matching_ids(queryset, terms))))
    query = Q()
    for term in terms:
        query |= _any_contains(SEARCH_COLUMNS, term) | _related_matches(term)
        query |= Q(pk__in=custom_filters.search_values(term))
    return queryset.filter(query)


class InArray(Func):
    """``<pk> = ANY(ARRAY(<subquery>))``: the subquery runs once and the table is then read by its primary key,
    where ``IN (<subquery>)`` let the planner join it against a sequential scan of every asset."""

    output_field = BooleanField()

    def as_sql(self, compiler, connection, **extra_context):
        lhs_sql, lhs_params = compiler.compile(self.source_expressions[0])
        sub_sql, sub_params = compiler.compile(self.source_expressions[1])
        return f"{lhs_sql} = ANY(ARRAY{sub_sql})", (*lhs_params, *sub_params)


def _matching_ids(queryset: AssetQuerySet, terms: list[str]):
    """PostgreSQL: the ids of every asset any term matches, as a ``UNION`` of one narrow query per column or
    relation, so each can use its own index (the trigram indexes of ``inventory/migrations/0008``, the foreign-key
    indexes) instead of one scan testing fourteen conditions on every row. Same matches as the ``OR`` form."""
    base = queryset.order_by()  # each arm keeps the list's own conditions (live, not archived, the company, ...)
    arms = [base.filter(**{f"{column}__icontains": term}).values("pk") for term in terms for column in SEARCH_COLUMNS]
    arms += [base.filter(**{f"{column}__in": sorted(ids)}).values("pk") for column, ids in _related_ids(terms).items()]
    arms += [base.filter(pk__in=custom_filters.search_values(term)).values("pk") for term in terms]
    return arms[0].union(*arms[1:])


def upcoming(queryset: AssetQuerySet, kind: str, when: str, *, today: date | None = None) -> AssetQuerySet:
    """Due / overdue lists. ``kind``: ``audit``/``audits`` (``next_audit_date``, window ``audit_warning_days``) or
    ``checkins`` (``expected_checkin`` of checked-out assets, window ``due_checkin_days``). "Today" is the date in
    TIME_ZONE. Due: today to today + window (inclusive); overdue: before today."""
    site = get_site_settings()
    today = today or timezone.localdate()
    if kind == "checkins":
        field, window = "expected_checkin", site.due_checkin_days
        queryset = queryset.filter(ASSIGNED)
    else:
        field, window = "next_audit_date", site.audit_warning_days
    horizon = today + timedelta(days=window or 0)
    if when == "due":
        condition = Q(**{f"{field}__gte": today, f"{field}__lte": horizon})
    elif when == "overdue":
        condition = Q(**{f"{field}__lt": today})
    else:
        condition = Q(**{f"{field}__lte": horizon})
    return queryset.filter(condition, **{f"{field}__isnull": False})
