"""Domain verbs on hardware assets: create, update, checkout, checkin, audit, delete, restore.

Every verb has the same shape (STYLE.md §2): one transaction; a ``select_for_update()`` re-read of the asset row, so
two concurrent state changes of one asset are serialised (of two checkouts exactly one wins, snipe-it#2347); a state
check raising a coded domain error; the mutation; exactly one ``ActionLog`` row with the changed fields' old and new
values; and, for checkout, checkin and audit, the domain signal (``inventory.signals``) that the notifications app
listens to. Admin actions and the API call these functions; nothing else writes an asset's assignment, counters or
audit dates.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.models import ActionLog
from activity.services import log_action
from assetsvc.models import SiteSettings
from assetsvc.services import UNLOGGED_FIELDS as BOOKKEEPING
from assetsvc.services import diff, lock_or_not_found, save_unique, snapshot
from assetsvc.site import forget_site_settings, get_site_settings
from companies.querysets import caller_chooses_company
from inventory import custom_values, signals
from inventory.choices import StatusType
from inventory.exceptions import (
    AssetAlreadyCheckedInError,
    AssetCustomValueTakenError,
    AssetNotAvailableError,
    AssetNotDeletedError,
    AssetNotFoundError,
    AssetSerialTakenError,
    AssetTagTakenError,
    InvalidCheckoutTargetError,
)
from inventory.models import Asset, Category, CheckoutAcceptance, Location, StatusLabel, asset_acceptance_exists
from inventory.services.checkout import (
    CheckoutKind,
    Target,
    checkin_locked,
    item_checkin,
    item_checkout,
    log_company_id,
    target_type_of,
)
from inventory.services.licenses import LICENSE
from inventory.services.stock import ACCESSORY, COMPONENT
from inventory.tags import normalize_tag, tag_key, tag_matches

if TYPE_CHECKING:
    from companies.models import Company

#: Kinds whose units (or license seats) held by an asset are checked in when the asset is deleted.
RETURNED_ON_ASSET_DELETE = (ACCESSORY, COMPONENT, LICENSE)


TAG_TAKEN = "The asset tag must be unique."
SERIAL_TAKEN = "The serial must be unique."
NOT_DEPLOYABLE_ON_CREATE = "That asset status is not deployable. This asset cannot be checked out."
#: The advisory-lock key of checkouts to an asset (any constant unique to this purpose).
ASSET_TO_ASSET_LOCK = 0x61737365745F6C70 & 0x7FFFFFFFFFFFFFFF
#: How many hops of "asset checked out to asset" the loop check follows before giving up (a safety net only).
MAX_ASSIGNMENT_DEPTH = 1000
#: Fields never reported in ``log_meta`` (bookkeeping, not a change a reader cares about).
#: ``asset_tag_key`` is derived from the tag (its change is logged as the tag's).
UNLOGGED_FIELDS = BOOKKEEPING | {"checkin_counter", "checkout_counter", "requests_counter", "asset_tag_key"}



# ---------------------------------------------------------------------------------------------------------------
# helpers


def _snapshot(asset: Asset) -> dict[str, Any]:
    return snapshot(asset, UNLOGGED_FIELDS)


def _changes(before: dict[str, Any], after: dict[str, Any], skip: set[str] = frozenset()) -> dict[str, dict]:
    return diff(before, after, skip)


def _log(
    action_type: str,
    *,
    asset: Asset,
    actor: User | None,
    target: Target | None = None,
    note: str = "",
    log_meta: dict | None = None,
    location_id: int | None = None,
    expected_checkin: date | None = None,
    action_date: datetime | None = None,
) -> ActionLog:
    return log_action(
        action_type=action_type,
        item_type="asset",
        item_id=asset.pk,
        actor=actor,
        company_id=log_company_id(actor, asset, target),
        target_type=target_type_of(target),
        target_id=target.pk if target is not None else None,
        item=asset,
        target=target,
        location_id=location_id,
        note=note,
        log_meta=log_meta,
        expected_checkin=expected_checkin,
        action_date=action_date,
    )


def _lock(asset: Asset | int) -> Asset:
    return lock_or_not_found(Asset, asset, AssetNotFoundError)


def _locked_site_settings() -> SiteSettings:
    """The settings row, locked until the transaction ends: serialises tag generation and serial checks."""
    SiteSettings.load()  # make sure the row exists
    site = SiteSettings.objects.select_for_update().get(pk=1)
    forget_site_settings()
    return site


def tag_taken(tag: str, *, exclude_pk: int | None = None) -> bool:
    """Another live asset has this tag or a look-alike of it (the same ``tag_key``: any letter case, composed or
    decomposed, with or without invisible characters, fullwidth or not; issue 25). Rows without a key (look-alike
    duplicates kept by the migration) are still compared on the tag itself. Authoritative only under the locks of
    the writes; the ``asset_tag_key`` constraint decides a race."""
    queryset = Asset.objects.alive().filter(tag_matches(tag))
    if exclude_pk is not None:
        queryset = queryset.exclude(pk=exclude_pk)
    return queryset.exists()


def serial_taken(serial: str, *, exclude_pk: int | None = None) -> bool:
    """Another live asset has this serial (case-insensitively); an empty serial is never taken."""
    if not serial:
        return False
    queryset = Asset.objects.alive().filter(serial__iexact=serial)
    if exclude_pk is not None:
        queryset = queryset.exclude(pk=exclude_pk)
    return queryset.exists()


def _tag_conflict(exc: IntegrityError) -> Exception:
    return ValidationError({"asset_tag": [TAG_TAKEN]}) if "asset_tag" in str(exc) else exc


def _save(asset: Asset, **kwargs: Any) -> None:
    """Save; a unique-tag violation (a concurrent writer got the tag first) becomes the usual field error."""
    save_unique(asset, _tag_conflict, **kwargs)


def _company_for_write(actor: User, requested: Company | None) -> Company | None:
    """Specification rule 7: with separation on, a non-super user's item gets their own company (or none)."""
    return requested if caller_chooses_company(actor) else actor.company


def add_months(day: date, months: int) -> date:
    """``day`` plus ``months`` calendar months, the day clamped to the month's length (31 Jan + 1 = 28/29 Feb)."""
    years, month0 = divmod(day.month - 1 + months, 12)
    year = min(day.year + years, 9999)
    month = month0 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _auto_tag(site: SiteSettings) -> str:
    """Prefix + zero-filled ``next_auto_tag_base``; skips tags already in use. Caller holds the settings lock."""
    base = site.next_auto_tag_base
    for _ in range(10_000):
        tag = f"{site.auto_increment_prefix}{str(base).zfill(site.zerofill_count)}"
        base += 1
        if not tag_taken(tag):
            site.next_auto_tag_base = base
            site.save(update_fields=["next_auto_tag_base", "updated_at"])
            return tag
    raise ValidationError({"asset_tag": ["No free asset tag could be generated."]})


def _bump_auto_tag_base(site: SiteSettings, tag: str) -> None:
    """An explicit tag of the auto-increment form (prefix + digits) at or past the counter moves the counter on,
    so the next generated tag does not collide with it."""
    prefix = site.auto_increment_prefix
    if not tag.lower().startswith(prefix.lower()):
        return
    digits = tag[len(prefix):]
    if not re.fullmatch(r"[0-9]{1,18}", digits):
        return
    number = int(digits)
    if number >= site.next_auto_tag_base:
        site.next_auto_tag_base = number + 1
        site.save(update_fields=["next_auto_tag_base", "updated_at"])


def _refuse_custom_errors(custom: custom_values.CustomInput | None) -> None:
    if custom is not None and custom.errors:
        raise ValidationError(custom.errors)


def _location_of(target: Target) -> int | None:
    """Where a checked-out asset is: at the target location, or where the target user or asset is (§4.9)."""
    if isinstance(target, Location):
        return target.pk
    return target.location_id


# ---------------------------------------------------------------------------------------------------------------
# create / update


@transaction.atomic
def asset_create(*, actor: User, data: dict[str, Any], target: Target | None = None,
                 custom: custom_values.CustomInput | None = None) -> Asset:
    """Create an asset from validated ``data`` (model field names: ``model``, ``status``, ``asset_tag``, ...).

    The company follows rule 7. A missing tag is generated when ``auto_increment_assets`` is on (under the settings
    row lock, so concurrent creates never draw the same tag, snipe-it#15553). Tag uniqueness (any letter case, among
    live assets) is checked here and guaranteed by the database constraint; a lost race becomes the same field
    error. With ``target`` the new asset is checked out to it in the same transaction (its label must be deployable).
    ``custom``: the custom values, read by ``custom_values.read_input`` against the model's fieldset.
    """
    _refuse_custom_errors(custom)
    data = dict(data)
    site = get_site_settings()
    if site.auto_increment_assets or site.unique_serial:
        site = _locked_site_settings()
    tag = normalize_tag(data.pop("asset_tag", None) or "")
    if not tag:
        if not site.auto_increment_assets:
            raise ValidationError({"asset_tag": ["The asset tag field is required."]})
        tag = _auto_tag(site)
    elif site.auto_increment_assets:
        _bump_auto_tag_base(site, tag)
    if tag_taken(tag):
        raise ValidationError({"asset_tag": [TAG_TAKEN]})
    if site.unique_serial and serial_taken(data.get("serial") or ""):
        raise ValidationError({"serial": [SERIAL_TAKEN]})
    status: StatusLabel = data["status"]
    if target is not None and status.type != StatusType.DEPLOYABLE:
        raise ValidationError({"status_id": [NOT_DEPLOYABLE_ON_CREATE]})
    data["company"] = _company_for_write(actor, data.get("company"))
    if data.get("location") is None:
        data["location"] = data.get("rtd_location")
    asset = Asset(asset_tag=tag, asset_tag_key=tag_key(tag), created_by=actor, **data)
    asset.full_clean(exclude=["model", "status", "company", "supplier", "location", "rtd_location", "created_by"],
                     validate_constraints=False)
    _save(asset)
    if custom is not None:
        custom_values.write_values(asset, custom, rows={})
    log = _log(ActionType.CREATE, asset=asset, actor=actor, location_id=asset.location_id)
    signals.send_lifecycle("asset", ActionType.CREATE, item=asset, actor=actor, log=log)
    if target is not None:
        asset = asset_checkout(asset=asset, target=target, actor=actor, note="Checked out on asset creation")
    return asset


@transaction.atomic
def asset_update(*, asset: Asset, actor: User, data: dict[str, Any], target: Target | None = None,
                 custom: custom_values.CustomInput | None = None) -> Asset:
    """Change the given fields of a live asset (PATCH and PUT are both partial). Logs one ``update`` row with the
    changed fields, custom values included (none when nothing changed). A new default location also moves the asset
    there when it is not checked out. With ``target`` the asset is then checked out (refused like any checkout if it
    is not available). ``custom``: the custom values, read by ``custom_values.read_input``.
    """
    _refuse_custom_errors(custom)
    locked = _lock(asset)
    if locked.is_deleted:
        raise AssetNotFoundError()
    site = get_site_settings()
    data = dict(data)
    if "company" in data:
        data["company"] = _company_for_write(actor, data["company"])
    if "rtd_location" in data and "location" not in data and not locked.is_assigned:
        data["location"] = data["rtd_location"]
    if "asset_tag" in data:
        data["asset_tag"] = normalize_tag(data["asset_tag"] or "")
        if not data["asset_tag"]:
            raise ValidationError({"asset_tag": ["The asset tag field is required."]})
        if tag_taken(data["asset_tag"], exclude_pk=locked.pk):
            raise ValidationError({"asset_tag": [TAG_TAKEN]})
        locked.asset_tag_key = tag_key(data["asset_tag"])
    if "serial" in data and site.unique_serial:
        _locked_site_settings()
        if serial_taken(data["serial"] or "", exclude_pk=locked.pk):
            raise ValidationError({"serial": [SERIAL_TAKEN]})
    before = _snapshot(locked)
    company_before = locked.company_id
    for name, value in data.items():
        setattr(locked, name, value)
    locked.clean()  # the row-local limits (purchase cost, warranty), as asset_create's full_clean checks them
    changes = _changes(before, _snapshot(locked))
    if custom is not None:
        changes.update(custom_values.write_values(locked, custom))
    if locked.company_id != company_before:  # its unique custom values now count in the new company (issue 25)
        custom_values.rescope_unique_values(locked)
    if changes:
        _save(locked)
        log = _log(ActionType.UPDATE, asset=locked, actor=actor, log_meta=changes)
        signals.send_lifecycle("asset", ActionType.UPDATE, item=locked, actor=actor, log=log)
    if target is not None:
        locked = asset_checkout(asset=locked, target=target, actor=actor, note="Checked out on asset update")
    return locked


# ---------------------------------------------------------------------------------------------------------------
# checkout / checkin / audit


class AssetKind(CheckoutKind):
    """Assets in the one checkout shape: quantity 1, the assignment on the asset row (``assigned_user`` /
    ``assigned_asset`` / ``assigned_location``), available when not assigned, not deleted and deployable."""

    item_type = "asset"
    model = Asset
    checked_out = signals.asset_checked_out
    checked_in = signals.asset_checked_in

    def not_found(self) -> Exception:
        return AssetNotFoundError()

    def acceptance_category(self, item: Asset) -> Category | None:
        """Read with the lock (:meth:`lock_for_checkout`): no query."""
        category = item.model.category
        return category if category.require_acceptance else None

    def lock(self, item: Asset | int) -> Asset:
        """The asset locked, knowing whether a checkout of it awaits acceptance (a checkin cancels it; issue 29)."""
        rows = Asset.objects.annotate(acceptance_pending=asset_acceptance_exists(CheckoutAcceptance.State.PENDING))
        return lock_or_not_found(rows, item, self.not_found)

    def invalid_target(self, item, target_type, target_id, reason=None) -> Exception:
        return InvalidCheckoutTargetError(item, target_type, target_id, reason=reason)

    def lock_for_checkout(self, item: Asset, target: Target) -> tuple[Asset, Target]:
        """Lock the asset, and a target asset with it (in id order). Checkouts to an asset also take one lock that
        serialises them all, so that no ring of simultaneous checkouts (A → B, B → C, C → A ...) can each see a
        chain without the others and close a loop: each one then walks a chain that includes every earlier one."""
        ids = {item.pk}
        if isinstance(target, Asset):
            _serialise_asset_to_asset_checkouts()
            ids.add(target.pk)
        # The status label (ensure_available reads its type) and the category (its acceptance rule, issue 29) come
        # with the lock; only asset rows are locked.
        locked_rows = Asset.objects.select_related("status", "model__category").select_for_update(of=("self",))
        rows = {row.pk: row for row in locked_rows.filter(pk__in=ids).order_by("pk")}
        locked = rows.get(item.pk)
        if locked is None:
            raise AssetNotFoundError()
        if isinstance(target, Asset):
            target = rows.get(target.pk, target)
        return locked, target

    def ensure_available(self, item: Asset, *, quantity: int, status: StatusLabel | None = None,
                         checkout_at: datetime | None = None, expected_checkin: date | None = None,
                         **options: Any) -> None:
        if item.is_deleted or item.is_assigned or item.status.type != StatusType.DEPLOYABLE:
            raise AssetNotAvailableError(item.asset_tag)
        if status is not None and status.type != StatusType.DEPLOYABLE:
            raise ValidationError({"status_id": ["The selected status id is invalid."]})
        moment = checkout_at or timezone.now()
        if expected_checkin is not None and expected_checkin < timezone.localtime(moment).date():
            raise ValidationError({"expected_checkin": ["The expected checkin must be a date after or equal to "
                                                        "checkout at."]})

    def check_target(self, item: Asset, target: Target, actor: User) -> None:
        """Besides the shared rule: not the asset itself, and not an asset that is (directly or through other
        assets) checked out to this one, which would make an assignment loop."""
        kind = target_type_of(target)
        if isinstance(target, Asset) and target.pk == item.pk:
            raise self.invalid_target(item, kind, target.pk, reason="An asset cannot be checked out to itself.")
        super().check_target(item, target, actor)
        if not isinstance(target, Asset):
            return
        current = target
        for _ in range(MAX_ASSIGNMENT_DEPTH):
            parent_id = current.assigned_asset_id
            if parent_id is None:
                break
            if parent_id == item.pk:
                raise self.invalid_target(
                    item, kind, target.pk,
                    reason=f"Asset {item.asset_tag} cannot be checked out to asset {target.asset_tag}, "
                           f"which is checked out to it.",
                )
            current = Asset.objects.only("id", "assigned_asset_id").get(pk=parent_id)

    def assign(self, item: Asset, target: Target, *, actor: User, quantity: int, note: str,
               checkout_at: datetime | None = None, expected_checkin: date | None = None,
               status: StatusLabel | None = None, name: str | None = None, **options: Any) -> dict[str, Any]:
        checkout_at = checkout_at or timezone.now()
        before = _snapshot(item)
        item.assigned_user = target if isinstance(target, User) else None
        item.assigned_asset = target if isinstance(target, Asset) else None
        item.assigned_location = target if isinstance(target, Location) else None
        item.location_id = _location_of(target)
        item.last_checkout = checkout_at
        item.expected_checkin = expected_checkin
        if status is not None:
            item.status = status
        if name is not None:
            item.name = name
        item.checkout_counter += 1
        _save(item)
        return {"log_meta": _changes(before, _snapshot(item)), "location_id": item.location_id,
                "expected_checkin": expected_checkin, "action_date": checkout_at}

    def ensure_checked_out(self, item: Asset, assignment: Any) -> None:
        if not item.is_assigned:
            model = item.model
            raise AssetAlreadyCheckedInError(
                payload={"asset_tag": item.asset_tag, "model": model.name, "model_number": model.model_number}
            )

    def unassign(self, item: Asset, *, assignment: Any, actor: User, quantity: int | None, note: str,
                 location: Location | None = None, status: StatusLabel | None = None, name: str | None = None,
                 checkin_at: datetime | None = None, **options: Any) -> tuple[Target | None, dict[str, Any]]:
        previous = item.assigned_target
        before = _snapshot(item)
        now = timezone.now()
        item.assigned_user = item.assigned_asset = item.assigned_location = None
        item.expected_checkin = None
        item.last_checkin = now
        item.location_id = location.pk if location is not None else item.rtd_location_id
        if status is not None:
            item.status = status
        if name is not None:
            item.name = name
        item.checkin_counter += 1
        _save(item)
        return previous, {"log_meta": _changes(before, _snapshot(item)), "location_id": item.location_id,
                          "action_date": checkin_at or now}


ASSET = AssetKind()


def _serialise_asset_to_asset_checkouts() -> None:
    """One transaction-level lock for all checkouts to an asset (PostgreSQL advisory lock; SQLite serialises every
    writer anyway). Checkouts to users and locations never take it, so they are not slowed down."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ASSET_TO_ASSET_LOCK])


@transaction.atomic
def asset_checkout(
    *,
    asset: Asset,
    target: Target,
    actor: User,
    note: str = "",
    checkout_at: datetime | None = None,
    expected_checkin: date | None = None,
    status: StatusLabel | None = None,
    name: str | None = None,
) -> Asset:
    """Check ``asset`` out to a user, an asset or a location (``item_checkout`` of the asset kind).

    Refused (``AssetNotAvailableError``) unless the asset is not assigned, not deleted and its label deployable,
    decided on the locked row. The asset's location follows the target. ``name`` renames the asset when not None.
    """
    return item_checkout(kind=ASSET, item=asset, target=target, actor=actor, note=note, checkout_at=checkout_at,
                         expected_checkin=expected_checkin, status=status, name=name)


def _checkin(locked: Asset, *, actor: User, note: str = "", **options: Any) -> Asset:
    return checkin_locked(kind=ASSET, locked=locked, actor=actor, note=note, **options)


@transaction.atomic
def asset_checkin(
    *,
    asset: Asset,
    actor: User,
    note: str = "",
    location: Location | None = None,
    status: StatusLabel | None = None,
    name: str | None = None,
    checkin_at: datetime | None = None,
) -> Asset:
    """Check a checked-out asset back in: the assignment and ``expected_checkin`` are cleared and the asset returns
    to its default location (or ``location``). Refused (``AssetAlreadyCheckedInError``) when it is not out."""
    return item_checkin(kind=ASSET, item=asset, actor=actor, note=note, location=location, status=status,
                        name=name, checkin_at=checkin_at)


@transaction.atomic
def asset_audit(
    *,
    asset: Asset,
    actor: User,
    note: str = "",
    next_audit_date: date | None = None,
    location: Location | None = None,
    custom: custom_values.CustomInput | None = None,
) -> tuple[Asset, ActionLog]:
    """Record an audit: ``last_audit_date`` = now, ``next_audit_date`` = the given date or today (in TIME_ZONE)
    plus ``audit_interval`` months; ``location`` (when given) becomes the current location; ``custom``: the values of
    fields flagged ``display_audit`` (``custom_values.read_input(..., audit=True)``), logged with the audit."""
    _refuse_custom_errors(custom)
    locked = _lock(asset)
    if locked.is_deleted:
        raise AssetNotFoundError()
    before = _snapshot(locked)
    locked.last_audit_date = timezone.now()
    locked.next_audit_date = next_audit_date or add_months(timezone.localdate(), get_site_settings().audit_interval)
    if location is not None:
        locked.location = location
    changes = _changes(before, _snapshot(locked), skip={"last_audit_date"})
    if custom is not None:
        changes.update(custom_values.write_values(locked, custom))
    _save(locked)
    log = _log(
        ActionType.AUDIT, asset=locked, actor=actor, note=note,
        log_meta=changes,
        location_id=location.pk if location is not None else None,
    )
    signals.asset_audited.send(sender=Asset, item=locked, actor=actor, target=None, note=note, log=log)
    return locked, log


@transaction.atomic
def asset_note_add(*, asset: Asset, actor: User, note: str) -> ActionLog:
    """Add a note to an asset: one ``note added`` action-log row (Snipe-IT's notes are log rows), nothing on the
    asset changes. The asset is locked so a note never lands on an asset being deleted."""
    locked = _lock(asset)
    if locked.is_deleted:
        raise AssetNotFoundError()
    return _log(ActionType.NOTE_ADDED, asset=locked, actor=actor, note=note)


# ---------------------------------------------------------------------------------------------------------------
# delete / restore


@transaction.atomic
def asset_delete(*, asset: Asset, actor: User) -> Asset:
    """Soft-delete an asset. A checked-out asset is checked in first (its own log row and checkin signal), as
    Snipe-IT does; so are the accessories checked out to it, the components installed in it and the license seats
    it holds (:data:`RETURNED_ON_ASSET_DELETE`), which return to stock (or become free) instead of staying out to an
    asset nobody can see (Snipe-IT leaves them out; docs/decisions.md, issues 10 and 11)."""
    locked = _lock(asset)
    if locked.is_deleted:
        raise AssetNotFoundError()
    if locked.is_assigned:
        locked = _checkin(locked, actor=actor, note="Checkin on delete")
    for kind in RETURNED_ON_ASSET_DELETE:
        rows = kind.assignment_model._default_manager.filter(assigned_asset=locked).order_by(f"{kind.item_field}_id",
                                                                                              "pk")
        for row in rows:
            item_checkin(kind=kind, item=getattr(row, f"{kind.item_field}_id"), actor=actor, assignment=row,
                         note="Checkin on delete")
    before = _snapshot(locked)
    locked.deleted_at = timezone.now()
    _save(locked)
    custom_values.clear_unique_keys(locked.pk)
    log = _log(ActionType.DELETE, asset=locked, actor=actor, log_meta=_changes(before, _snapshot(locked)))
    signals.send_lifecycle("asset", ActionType.DELETE, item=locked, actor=actor, log=log)
    return locked


@transaction.atomic
def asset_restore(*, asset: Asset, actor: User) -> Asset:
    """Bring a soft-deleted asset back, provided no live asset carries its tag (or, with ``unique_serial``, its
    serial) meanwhile."""
    locked = _lock(asset)
    if not locked.is_deleted:
        raise AssetNotDeletedError()
    if tag_taken(locked.asset_tag, exclude_pk=locked.pk):
        raise AssetTagTakenError()
    locked.asset_tag_key = tag_key(locked.asset_tag)  # a key again, also for a look-alike kept without one
    site = get_site_settings()
    if site.unique_serial:
        _locked_site_settings()
        if serial_taken(locked.serial, exclude_pk=locked.pk):
            raise AssetSerialTakenError()
    before = _snapshot(locked)
    locked.deleted_at = None
    try:
        _save(locked)
    except ValidationError as exc:
        raise AssetTagTakenError() from exc
    taken = custom_values.restore_unique_keys(locked.pk)
    if taken:
        raise AssetCustomValueTakenError({f.db_column_name: [custom_values.unique_taken(f)] for f in taken})
    log = _log(ActionType.RESTORE, asset=locked, actor=actor, log_meta=_changes(before, _snapshot(locked)))
    signals.send_lifecycle("asset", ActionType.RESTORE, item=locked, actor=actor, log=log)
    return locked


def checkout_datetime(day: date | datetime | None) -> datetime | None:
    """A checkout date as sent (a bare date means midnight in TIME_ZONE)."""
    if day is None:
        return None
    if isinstance(day, datetime):
        return day if timezone.is_aware(day) else timezone.make_aware(day)
    return timezone.make_aware(datetime.combine(day, time.min))
