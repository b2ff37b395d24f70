"""Asset counts for dashboards (``GET statuslabels/assets/name`` and ``statuslabels/assets/type``): live assets the
caller may see (company separation), counted in one query each."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from assetsvc.site import get_site_settings
from inventory.choices import StatusType
from inventory.models import Asset, StatusLabel
from inventory.selectors.counts import annotate_catalogue_counts

ASSIGNED = Q(assigned_user__isnull=False) | Q(assigned_asset__isnull=False) | Q(assigned_location__isnull=False)

#: Snipe-IT's status meta types, in its order, with its (English) labels and the assets each counts. ``deployed`` is
#: any checked-out asset, whatever its label, so it overlaps the others (Snipe-IT's ``Asset::Deployed``).
META_STATUSES: tuple[tuple[str, str, Q], ...] = (
    ("rtd", "Ready to Deploy", Q(status__type=StatusType.DEPLOYABLE) & ~ASSIGNED),
    ("deployed", "Deployed", ASSIGNED),
    ("archived", "Archived", Q(status__type=StatusType.ARCHIVED)),
    ("pending", "Pending", Q(status__type=StatusType.PENDING)),
    ("undeployable", "Un-deployable", Q(status__type=StatusType.UNDEPLOYABLE)),
)


def asset_counts_by_status_label(user: Any) -> list[tuple[str, int, str | None]]:
    """(label name, live assets ``user`` sees with it, label colour) per status label, by name. Archived labels are
    left out unless the ``show_archived_in_list`` setting is on (as Snipe-IT)."""
    labels = StatusLabel.objects.order_by("name", "id")
    if not get_site_settings().show_archived_in_list:
        labels = labels.exclude(type=StatusType.ARCHIVED)
    rows = annotate_catalogue_counts(labels, user).values_list("name", "assets_count", "color")
    return [(name, count, color or None) for name, count, color in rows]


def asset_counts_by_status_meta(user: Any) -> list[tuple[str, int]]:
    """(Snipe-IT's label, count) per status meta type (:data:`META_STATUSES`), over the live assets ``user`` sees."""
    counts = Asset.objects.restrict(user).alive().aggregate(
        **{key: Count("pk", filter=condition) for key, _label, condition in META_STATUSES})
    return [(label, counts[key]) for key, label, _condition in META_STATUSES]
