"""Domain verbs of the catalogue: status labels, categories, manufacturers, suppliers, locations and asset models.

Creating and updating are plain writes plus an action-log row; the interesting parts are the delete guards
(Snipe-IT's messages, reference §4.14), the soft delete and restore of manufacturers and models, and the location
tree, which must never loop. Every verb runs in one transaction and re-reads its row with ``select_for_update()``
so a guard cannot be raced by a concurrent write.

The "in use" querysets below are shared with the API layer, which annotates them onto list rows so the
``available_actions.delete`` flag agrees with what a delete would do.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.models import ActionLog
from activity.services import log_action, stored_files_discard
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update, save_unique
from companies.querysets import may_change_catalogue_record
from inventory.models import (
    Asset,
    AssetModel,
    Category,
    Depreciation,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.selectors.counts import holders_by_kind, holders_of, is_held

#: ``action_logs.item_type`` of each catalogue model (Snipe-IT's ``itemType()``: camel-case class name, "model").
ITEM_TYPES: dict[type[models.Model], str] = {
    StatusLabel: "statuslabel",
    Category: "category",
    Manufacturer: "manufacturer",
    Supplier: "supplier",
    Location: "location",
    AssetModel: "model",
    Depreciation: "depreciation",
}

#: The validation message of a duplicate name, per model (reference §2.3, Snipe-IT's rules).
UNIQUE_MESSAGES: dict[type[models.Model], dict[str, list[str]]] = {
    StatusLabel: {"name": ["The name must be unique."]},
    Category: {"name": ["The name must be unique across categories and category type. "]},
    Manufacturer: {"name": ["The name has already been taken."]},
    Supplier: {"name": ["The name must be unique."]},
    Location: {"name": ["The name must be unique."]},
    AssetModel: {"name": ["The name must be unique across models and model number. "]},
    Depreciation: {"name": ["The name has already been taken."]},
}

STATUS_LABEL_IN_USE = ("This Status Label is currently associated with at least one Asset and cannot be deleted. "
                       "Please update your assets to no longer reference this status and try again. ")
CATEGORY_IN_USE = ("This category is currently associated with at least one {type} and cannot be deleted. "
                   "Please update your {type}  to no longer reference this category and try again. ")
MANUFACTURER_IN_USE = ("This manufacturer is currently associated with at least one model and cannot be deleted. "
                       "Please update your models to no longer reference this manufacturer and try again. ")
SUPPLIER_IN_USE = ("This supplier is currently associated with {count} asset(s) and cannot be deleted. "
                   "Please update your assets to no longer reference this supplier and try again. ")
#: The same text when what holds the supplier is not an asset (accessories, consumables): named by its kind.
SUPPLIER_HELD_BY = ("This supplier is currently associated with {count} {kind}(s) and cannot be deleted. "
                    "Please update your {kinds} to no longer reference this supplier and try again. ")
LOCATION_IN_USE = ("This location is not currently deletable because it is the location of record for at least one "
                   "asset or user, has assets assigned to it, or is the parent location of another location. "
                   "Please update your records to no longer reference this location and try again ")
MODEL_IN_USE = ("This model is currently associated with one or more assets and cannot be deleted. "
                "Please delete the assets, and then try deleting again. ")
#: The not-found message of each model (the API views' texts).
NOT_FOUND_MESSAGES: dict[type[models.Model], str] = {
    StatusLabel: "Statuslabel not found",
    Category: "Category not found",
    Manufacturer: "Manufacturer not found",
    Supplier: "Supplier not found",
    Location: "Location not found",
    AssetModel: "AssetModel not found",
    Depreciation: "Depreciation class does not exist.",
}
DEPRECIATION_IN_USE = ("This depreciation is currently associated with one or more models and cannot be deleted. "
                       "Please delete the models, and then try deleting again. ")
CIRCULAR_PARENT = "The parent id must not create a circular reference."
#: The reason of the 403 (the API answers ``Insufficient permissions.``; the admin shows this text with it).
SHARED_RECORD_REFUSED = "shared catalogue records are changed only by super users and users without a company"
ITEM_DELETED = "This item has been deleted. Restore it before editing it."


# --- "in use" rules: what holds an entry is registered in inventory.apps (inventory.selectors.counts references)
# -------------
# Status labels, categories, suppliers and locations are deleted for real (their tables have no ``deleted_at``), so
# a soft-deleted asset still holds them (PROTECT): their guards count every asset. Manufacturers and models are
# soft-deleted, so only live assets hold them, as in Snipe-IT.


def supplier_in_use(supplier: Any) -> str:
    """The refusal of deleting ``supplier``: Snipe-IT's counts its assets; a supplier that no asset but other items
    hold names and counts the first kind that does (it said "0 asset(s)" for a supplier of accessories only)."""
    held = holders_by_kind(supplier)
    model, count = held[0] if held else (Asset, 0)
    if model is Asset:
        return SUPPLIER_IN_USE.format(count=count)
    return SUPPLIER_HELD_BY.format(count=count, kind=model._meta.verbose_name, kinds=model._meta.verbose_name_plural)


def in_use_annotation(model: type[models.Model]) -> Q:
    """A boolean expression (per row of ``model``) that is true when a delete would be refused: the registered
    references of ``inventory.selectors.counts``."""
    return holders_of(model)


# --- helpers ------------------------------------------------------------------------------------------------------


def _log(*, action: str, item: models.Model, actor: User | None, meta: dict | None = None) -> ActionLog:
    return log_action(action_type=action, item_type=ITEM_TYPES[type(item)], item_id=item.pk, actor=actor,
                      company_id=getattr(item, "company_id", None), item=item, log_meta=meta)


def _save(obj: models.Model) -> None:
    """Save, turning a lost race on a unique constraint into the same error the validator gives."""
    messages = UNIQUE_MESSAGES[type(obj)]
    save_unique(obj, lambda exc: InvalidInputError(next(iter(messages.values()))[0], messages=messages))


def _locked(obj: models.Model, actor: User | None) -> models.Model:
    """The row, locked; a row deleted meanwhile is the resource's "not found" (never a ``DoesNotExist`` 500). A
    caller whom separation limits to a company may change only their company's records (issue 25):
    :func:`ensure_may_change_shared`."""
    model = type(obj)
    locked = lock_or_not_found(model, obj, lambda: NotFoundError(NOT_FOUND_MESSAGES[model]))
    ensure_may_change_shared(actor, locked)
    return locked


def ensure_may_change_shared(actor: User | None, obj: models.Model) -> None:
    """Shared catalogue records (those without a company: every status label, category, manufacturer, supplier,
    model, custom field and fieldset, and locations without a company) are changed only by callers whom separation
    does not limit: super users, users without a company, anyone while separation is off (issue 25; the same
    callers who may manage users' companies, rule 8). Anyone else would change, archive or delete what every
    company uses; they get 403 ``Insufficient permissions.`` and nothing changes. A location of the caller's own
    company stays theirs to change. Creating a record changes nothing of anyone else's and is not refused."""
    if not may_change_catalogue_record(actor, getattr(obj, "company_id", None)):
        raise PermissionDenied(SHARED_RECORD_REFUSED)


# --- create / update ----------------------------------------------------------------------------------------------


@transaction.atomic
def catalogue_item_create(*, model: type[models.Model], data: dict[str, Any], actor: User | None,
                          pk: int | None = None, log: bool = True) -> models.Model:
    """Create one catalogue record from validated data and log it (``create new``).

    ``pk`` and ``log=False`` are for the Snipe-IT import (issue 31): the record keeps its Snipe-IT id, and its
    history comes from Snipe-IT's action log instead of a new ``create new`` row."""
    obj = model(**data)
    if pk is not None:
        obj.pk = pk
    if actor is not None and actor.pk:
        obj.created_by = actor
    if isinstance(obj, Location) and obj.parent_id is not None:
        _lock_ancestors(obj.parent_id)
    _hold_depreciation(obj)
    _save(obj)
    if log:
        _log(action=ActionType.CREATE, item=obj, actor=actor)
    return obj


@transaction.atomic
def catalogue_item_update(*, item: models.Model, data: dict[str, Any], actor: User | None) -> models.Model:
    """Apply validated (partial) changes to a catalogue record, locking it first; log the changed fields.

    A deleted manufacturer or model must be restored first. A category keeps its type once created (Snipe-IT refuses
    the change); a location's new parent must not be the location itself or one of its descendants (re-checked here,
    under lock, not only in the serializer).
    """
    obj = _locked(item, actor)
    if getattr(obj, "deleted_at", None) is not None:  # the API finds only live rows; the admin lists deleted ones too
        raise ConflictError(ITEM_DELETED, code="deleted")
    if isinstance(obj, Category) and "category_type" in data and data["category_type"] != obj.category_type:
        message = "You cannot change the category type once it has been created"
        raise InvalidInputError(message, messages={"category_type": [message]})
    if isinstance(obj, Location) and data.get("parent") is not None:
        location_check_parent(location=obj, parent=data["parent"])
    changes = model_update(obj, data)
    if "depreciation" in data:
        _hold_depreciation(obj)
    _save(obj)
    if changes:
        _log(action=ActionType.UPDATE, item=obj, actor=actor, meta=changes)
    return obj


DEPRECIATION_GONE = "The selected depreciation id is invalid."


def _hold_depreciation(obj: models.Model) -> None:
    """A model that names a depreciation holds its row (``FOR NO KEY UPDATE``) until the write commits: a delete of
    that depreciation (``FOR UPDATE`` in :func:`depreciation_delete`) waits and then sees it in use, or went first
    and the write is refused here; never a foreign-key error at commit."""
    depreciation_id = getattr(obj, "depreciation_id", None)
    if not isinstance(obj, AssetModel) or depreciation_id is None:
        return
    if not Depreciation.objects.select_for_update(no_key=True).filter(pk=depreciation_id).exists():
        raise InvalidInputError(DEPRECIATION_GONE, messages={"depreciation_id": [DEPRECIATION_GONE]})


def _lock_ancestors(parent_id: int) -> list[int]:
    """Lock and return the chain ``parent_id``, its parent, ... up to the root (stops on a pre-existing loop)."""
    chain: list[int] = []
    current: int | None = parent_id
    while current is not None and current not in chain:
        chain.append(current)
        current = Location.objects.select_for_update().filter(pk=current).values_list("parent_id", flat=True).first()
    return chain


def location_check_parent(*, location: Location, parent: Location) -> None:
    """Refuse a parent that is ``location`` itself or one of its descendants (the tree would loop)."""
    if location.pk is not None and location.pk in _lock_ancestors(parent.pk):
        raise InvalidInputError(CIRCULAR_PARENT, messages={"parent_id": [CIRCULAR_PARENT]})


# --- delete / restore ---------------------------------------------------------------------------------------------


def _hard_delete(obj: models.Model, message: str) -> None:
    """Delete for real; a reference the guard did not foresee (a new kind of item) refuses instead of failing."""
    try:
        with transaction.atomic():
            obj.delete()
    except (models.ProtectedError, models.RestrictedError, IntegrityError) as exc:
        raise ConflictError(message, code="in_use") from exc


def _soft_delete(obj: models.Model, actor: User | None) -> None:
    obj.deleted_at = timezone.now()
    obj.save(update_fields=["deleted_at", "updated_at"])
    _log(action=ActionType.DELETE, item=obj, actor=actor)


@transaction.atomic
def status_label_delete(*, label: StatusLabel, actor: User | None) -> None:
    """Delete a status label that no asset (deleted ones included) uses."""
    label = _locked(label, actor)
    if is_held(label):
        raise ConflictError(STATUS_LABEL_IN_USE, code="in_use")
    _log(action=ActionType.DELETE, item=label, actor=actor)
    _hard_delete(label, STATUS_LABEL_IN_USE)


@transaction.atomic
def category_delete(*, category: Category, actor: User | None) -> None:
    """Delete a category without items of its type (for asset categories: without models)."""
    category = _locked(category, actor)
    message = CATEGORY_IN_USE.format(type=category.category_type)
    if is_held(category):
        raise ConflictError(message, code="in_use")
    _log(action=ActionType.DELETE, item=category, actor=actor)
    _hard_delete(category, message)


@transaction.atomic
def manufacturer_delete(*, manufacturer: Manufacturer, actor: User | None) -> None:
    """Soft-delete a manufacturer that no live asset (through its models) depends on."""
    manufacturer = _locked(manufacturer, actor)
    if is_held(manufacturer):
        raise ConflictError(MANUFACTURER_IN_USE, code="in_use")
    _soft_delete(manufacturer, actor)


@transaction.atomic
def supplier_delete(*, supplier: Supplier, actor: User | None) -> None:
    """Delete a supplier that nothing was bought from; the message counts what was (assets first, as Snipe-IT)."""
    supplier = _locked(supplier, actor)
    message = supplier_in_use(supplier)
    if is_held(supplier):
        raise ConflictError(message, code="in_use")
    _log(action=ActionType.DELETE, item=supplier, actor=actor)
    _hard_delete(supplier, message)


@transaction.atomic
def location_delete(*, location: Location, actor: User | None) -> None:
    """Delete a location nothing refers to (assets located, returning or assigned there, children, users)."""
    location = _locked(location, actor)
    if is_held(location):
        raise ConflictError(LOCATION_IN_USE, code="in_use")
    _log(action=ActionType.DELETE, item=location, actor=actor)
    location_id = location.pk
    _hard_delete(location, LOCATION_IN_USE)
    stored_files_discard(item_type="location", item_id=location_id)  # its files go with it (docs/files.md)


@transaction.atomic
def asset_model_delete(*, asset_model: AssetModel, actor: User | None) -> None:
    """Soft-delete a model that no live asset uses."""
    asset_model = _locked(asset_model, actor)
    if is_held(asset_model):
        raise ConflictError(MODEL_IN_USE, code="in_use")
    _soft_delete(asset_model, actor)


@transaction.atomic
def depreciation_delete(*, depreciation: Depreciation, actor: User | None) -> None:
    """Refused while a model (live or soft-deleted: the foreign key would dangle) uses it."""
    depreciation = _locked(depreciation, actor)
    if is_held(depreciation):
        raise ConflictError(DEPRECIATION_IN_USE, code="in_use")
    _log(action=ActionType.DELETE, item=depreciation, actor=actor)
    _hard_delete(depreciation, DEPRECIATION_IN_USE)


def name_taken(obj: models.Model) -> bool:
    """True when another live row of ``obj``'s model already uses its name, compared case-insensitively as on
    Snipe-IT's MySQL collation: per category type for categories; for models, per model number (or against every
    model of that name when the number is empty, as Snipe-IT's ``two_column_unique_undeleted`` does)."""
    model = type(obj)
    rows = model.objects.filter(name__iexact=obj.name)
    if obj.pk is not None:
        rows = rows.exclude(pk=obj.pk)
    if hasattr(obj, "deleted_at"):
        rows = rows.filter(deleted_at__isnull=True)
    if isinstance(obj, Category):
        rows = rows.filter(category_type=obj.category_type)
    if isinstance(obj, AssetModel) and obj.model_number:
        rows = rows.filter(model_number__iexact=obj.model_number)
    return rows.exists()


def _restore(obj: models.Model, *, label: str, actor: User | None) -> models.Model:
    if obj.deleted_at is None:
        raise ConflictError(f"The {label} was not deleted and therefore cannot be restored", code="not_deleted")
    reason = next(iter(UNIQUE_MESSAGES[type(obj)].values()))[0].strip()
    if name_taken(obj):
        raise ConflictError(f"Error restoring {label}: {reason}", code="name_taken")
    obj.deleted_at = None
    save_unique(obj, lambda exc: ConflictError(f"Error restoring {label}: {reason}", code="name_taken"),
                update_fields=["deleted_at", "updated_at"])
    _log(action=ActionType.RESTORE, item=obj, actor=actor)
    return obj


@transaction.atomic
def manufacturer_restore(*, manufacturer: Manufacturer, actor: User | None) -> Manufacturer:
    """Bring back a soft-deleted manufacturer, if its name is still free."""
    return _restore(_locked(manufacturer, actor), label="Manufacturer", actor=actor)


@transaction.atomic
def asset_model_restore(*, asset_model: AssetModel, actor: User | None) -> AssetModel:
    """Bring back a soft-deleted model, if its name and model number are still free."""
    return _restore(_locked(asset_model, actor), label="Model", actor=actor)


# --- one entry point per verb, for the API viewsets and the admin ----------------------------------------------------


def catalogue_item_delete(*, item: models.Model, actor: User | None) -> None:
    """Delete any catalogue entry through its own service (guards and texts of reference §4.14)."""
    services = {
        StatusLabel: lambda: status_label_delete(label=item, actor=actor),
        Category: lambda: category_delete(category=item, actor=actor),
        Manufacturer: lambda: manufacturer_delete(manufacturer=item, actor=actor),
        Supplier: lambda: supplier_delete(supplier=item, actor=actor),
        Location: lambda: location_delete(location=item, actor=actor),
        AssetModel: lambda: asset_model_delete(asset_model=item, actor=actor),
        Depreciation: lambda: depreciation_delete(depreciation=item, actor=actor),
    }
    services[type(item)]()


def catalogue_item_restore(*, item: models.Model, actor: User | None) -> models.Model:
    """Restore a soft-deleted manufacturer or model (the other catalogue entries are deleted for real)."""
    services = {
        Manufacturer: lambda: manufacturer_restore(manufacturer=item, actor=actor),
        AssetModel: lambda: asset_model_restore(asset_model=item, actor=actor),
    }
    return services[type(item)]()
