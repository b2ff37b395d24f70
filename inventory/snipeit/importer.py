"""Writing what was read from Snipe-IT (issue 31; docs/switching-from-snipe-it.md "Writing: ids, resume").

Input: per kind, the records the readers of ``inventory.snipeit.kinds`` make of Snipe-IT's JSON, as they make them:
plain dicts keyed by OUR model field names, ``id`` being the Snipe-IT id and every reference ``<field>_id`` holding a
Snipe-IT id (``{"id": 12, "name": "Kitchen", "parent_id": 3, "company_id": None}``), already unescaped and decoded.
:data:`KIND_FIELDS` lists what each writer takes; the other keys a reader adds (timestamps, ``created_by_id``,
``flags_known``) are left out before the writer sees the record.

Every record goes through the service the API and the admin call (``catalogue_item_create``, ``user_create``, ...),
so it gets the same checks and Laravel messages, with two additions for the import: ``pk`` (ids are kept) and
``log=False`` (no ``create`` row of our own: Snipe-IT's own history, imported from ``/reports/activity``, holds the
record's creation with its original date and actor). None of these services sends a domain signal, so nothing of
this reaches webhooks or mail (``notifications`` listens to signals only). Each record is written in its own
transaction together with its :class:`~inventory.models.SnipeitRecord`, so a crash leaves either both or neither, and
``--resume`` skips every id the table already maps. A record our checks refuse is skipped and named in the report
with why; it never stops the run.

Ids are kept only into an empty database (:func:`database_holds_data`); ``--merge`` (matching by natural keys and
reporting changed ids) is a later step. After each kind the table's sequence continues after the highest id
(:func:`sequence_advance`), so the next record created through the API gets a new id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import IO, TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.utils import timezone

from accounts.departments import department_create
from accounts.models import Department, PermissionGroup, User
from accounts.permissions import PERMISSION_KEY_SET
from accounts.services import USER_DELETED, group_create, user_managers_set
from assetsvc.exceptions import DomainError
from companies.models import Company
from companies.services import company_create
from inventory.models import (
    Accessory,
    Asset,
    AssetModel,
    Category,
    Component,
    Consumable,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
    Depreciation,
    Kit,
    License,
    Location,
    Maintenance,
    Manufacturer,
    SnipeitImport,
    SnipeitRecord,
    StatusLabel,
    Supplier,
)
from inventory.services.catalogue import catalogue_item_create
from inventory.services.custom_fields import custom_field_create, custom_fieldset_create
from inventory.snipeit.kinds import KINDS as READ_KINDS
from inventory.snipeit.kinds import KINDS_BY_NAME
from inventory.snipeit.reading import read_kind
from inventory.snipeit.report import ImportReport, KindTally
from inventory.snipeit.write_assets import ASSET_FIELDS, write_assets
from inventory.snipeit.write_history import ACTION_FIELDS, ACTION_KIND, FILE_FIELDS, FILE_KIND
from inventory.snipeit.write_stock import KIND_FIELDS as STOCK_FIELDS
from inventory.snipeit.write_stock import STOCK_KINDS
from inventory.snipeit.write_users import write_users
from inventory.snipeit.writing import (
    ID_TAKEN,
    IMPORT_ACTOR,
    MODEL_KINDS,
    REFUSED,
    KindSpec,
    Writer,
    clean,
    id_map,
    merging,
    natural_match,
    our_id,
    reading_from,
    refs,
    refs_forget,
    refusal,
    reset_merging,
    sequence_advance,
    set_merging,
    skip,
)

if TYPE_CHECKING:
    from inventory.snipeit.client import SnipeitClient
    from inventory.snipeit.kinds import ReadContext

logger = logging.getLogger("inventory.snipeit")

#: Why a refused run refused.
DATABASE_NOT_EMPTY = ("This database already holds {what}. Ids are kept only in an empty database: import into a "
                      "fresh one, or use --merge.")
UNFINISHED = " An earlier import did not finish: run the same command with --resume to continue it."
LOCAL_ADMIN_COLLIDES = ("Snipe-IT's user {id} ({username!r}) has the id or the username of the local super user "
                        "{local!r} (made by bootstrap_admin). Import before the first `make run`, or delete that user "
                        "first.")
OTHER_SOURCE = ("The unfinished run reads {url}: resume it with that --url, or import into a fresh database.")
PARENT_LOOP = "its parent locations form a loop"
MANAGER_NOT_KEPT = "user {id}: its manager, user {manager}, is not kept: {why}"
NOT_YET = ("not imported yet (later steps of issue 31), so not read: {kinds}. `--dry-run` counts them.")
WITHOUT = "{label} imported without {fields}: {why}"
FIELD_FLAGS_UNKNOWN = ("Snipe-IT did not send the custom fields' field_encrypted, is_unique and help_text (Snipe-IT 8 "
                       "leaves them out): encrypted and unique are the fields named by --encrypted-fields and "
                       "--unique-fields, the others are imported as neither")


class ImportRefused(Exception):
    """The run cannot start or go on (a database that is not empty, a collision with the local admin)."""


# --- the run and its report ---------------------------------------------------------------------------------------


#: The tables an import fills, by kind; any row in one (but the local admin, :func:`local_admins`) means "not empty".
IMPORTED_MODELS: dict[str, type[models.Model]] = {
    "company": Company, "location": Location, "department": Department, "manufacturer": Manufacturer,
    "supplier": Supplier, "category": Category, "status_label": StatusLabel, "depreciation": Depreciation,
    "custom_field": CustomField, "fieldset": CustomFieldset, "asset_model": AssetModel, "group": PermissionGroup,
    "user": User, "asset": Asset, "accessory": Accessory, "consumable": Consumable, "component": Component,
    "license": License, "maintenance": Maintenance, "kit": Kit,
}


def local_admins() -> models.QuerySet:
    """The users a fresh install has before any import: super users whom no one created and no import wrote
    (``bootstrap_admin``'s ``admin``, ``createsuperuser``). They do not make the database "not empty"; a Snipe-IT user
    with one's id or username refuses the run (:func:`users_check_local_admins`) instead of overwriting it."""
    imported = SnipeitRecord.objects.filter(kind="user").values("our_id")
    return User.objects.filter(permissions__superuser=1, created_by__isnull=True).exclude(pk__in=imported)


def database_holds_data() -> list[str]:
    """The kinds that already have rows (beyond what ``migrate`` and ``bootstrap_admin`` create), in import order.
    The action log and stored files are not looked at: they belong to records, and signing in or issuing a token
    may write to the log of a fresh install."""
    held = []
    for kind, model in IMPORTED_MODELS.items():
        rows = model._default_manager.all()
        if model is User:
            rows = rows.exclude(pk__in=local_admins())
        if rows.exists():
            held.append(kind)
    return held


def import_run_start(*, source_url: str, options: dict[str, Any], resume: bool = False,
                     merge: bool = False) -> SnipeitImport:
    """The run to write into: with ``resume``, the last one that did not finish, if it read the same URL (a new one
    when there is none); else a new run, refused (:class:`ImportRefused`) when the database holds data. ``options``
    must not hold the token (the command passes its parsed options without it). With ``merge`` the database may hold
    data: records are matched by their natural keys (``writing.natural_match``), and the run remembers it
    (``options["merge"]``), so ``--resume`` goes on merging."""
    if resume:
        run = SnipeitImport.objects.exclude(state=SnipeitImport.State.FINISHED).order_by("-id").first()
        if run is not None and run.source_url != source_url:
            raise ImportRefused(OTHER_SOURCE.format(url=run.source_url))
        if run is not None:
            run.state = SnipeitImport.State.RUNNING
            if merge:
                run.options = {**run.options, "merge": True}
            run.save(update_fields=["state", "options"])
            return run
    held = [] if merge else database_holds_data()
    if held and not (resume and SnipeitRecord.objects.exists()):
        unfinished = SnipeitImport.objects.exclude(state=SnipeitImport.State.FINISHED).exists()
        raise ImportRefused(DATABASE_NOT_EMPTY.format(what=", ".join(held)) + (UNFINISHED if unfinished else ""))
    return SnipeitImport.objects.create(source_url=source_url,
                                        options={**options, **({"merge": True} if merge else {})})


def import_run_finish(*, run: SnipeitImport, report: ImportReport, failed: bool = False) -> SnipeitImport:
    run.report = report.as_dict()
    run.state = SnipeitImport.State.FAILED if failed else SnipeitImport.State.FINISHED
    run.finished_at = timezone.now()
    run.save(update_fields=["report", "state", "finished_at"])
    return run


# --- writing one kind ---------------------------------------------------------------------------------------------


#: Fields a record is imported without (with a note) when our checks refuse only them: Snipe-IT accepted values this
#: service refuses (a user in a department of another company, a phone number under 7 characters, a permission key
#: we do not know), and losing the field is better than losing the record and everything that refers to it. Of
#: ``permissions`` only the unknown keys are dropped.
DROPPABLE: dict[str, tuple[str, ...]] = {
    "company": ("phone", "fax", "email"),
    "location": ("phone", "fax", "currency", "ldap_ou"),
    "department": ("phone", "fax", "location_id"),
    "manufacturer": ("url", "support_url", "warranty_lookup_url", "support_phone", "support_email"),
    "supplier": ("phone", "fax", "email", "url", "contact"),
    "group": ("permissions",),
    "user": ("department_id", "location_id", "email", "phone", "employee_num", "jobtitle", "permissions"),
}


def _write_one(run: SnipeitImport, kind: str, spec: KindSpec, record: dict[str, Any], *, snipeit_id: int,
               deleted_at: Any) -> int:
    """One record and its ``SnipeitRecord`` in one transaction; returns our id. ``record["id"]`` is the id to give
    it (Snipe-IT's, or None for a new one under ``--merge``). A record deleted in Snipe-IT (manufacturers, models
    and users are read deleted too) is created through its service, then marked deleted with Snipe-IT's date: the
    services create live records only, and deleted ones must keep their ids (the action log and assets name them)."""
    with transaction.atomic():
        obj = spec.write(dict(record), IMPORT_ACTOR)
        if deleted_at:
            spec.model._default_manager.filter(pk=obj.pk).update(deleted_at=deleted_at)
        SnipeitRecord.objects.create(run=run, kind=kind, snipeit_id=snipeit_id, our_id=obj.pk)
    return obj.pk


def _without_refused(kind: str, record: dict[str, Any], exc: Exception) -> tuple[list[str], dict[str, Any]]:
    """The fields of ``record`` that ``exc`` refuses, when all of them may be dropped (:data:`DROPPABLE`), and the
    record without them; ``([], record)`` when the record cannot be saved that way."""
    if isinstance(exc, ValidationError) and hasattr(exc, "error_dict"):
        names = list(exc.error_dict)
    elif isinstance(exc, DomainError) and isinstance(getattr(exc, "messages", None), dict):
        names = list(exc.messages)
    else:
        return [], record
    fields = [name if name in record or f"{name}_id" not in record else f"{name}_id" for name in names]
    if not fields or any(name not in DROPPABLE.get(kind, ()) or name not in record for name in fields):
        return [], record
    lesser = {key: value for key, value in record.items() if key not in fields}
    dropped = [name for name in fields if name != "permissions"]
    if "permissions" in fields:
        granted = record["permissions"] or {}
        lesser["permissions"] = {key: value for key, value in granted.items() if key in PERMISSION_KEY_SET}
        dropped += [f"permission {key}" for key in granted if key not in PERMISSION_KEY_SET]
    return dropped, lesser


def write_kind(*, run: SnipeitImport, kind: str, rows: Iterable[dict[str, Any]],
               report: ImportReport | None = None) -> KindTally:
    """Write ``rows`` of ``kind`` (as the readers make them), each with its ``SnipeitRecord`` in one transaction;
    rows an earlier run wrote are counted as resumed and left alone; a refused row is skipped with why. Then the
    sequence moves past the highest id. Counts go to ``kind``'s tally in ``report``; ``read`` is counted by whoever
    reads (``reading.read_kind``), since a row a reader cannot decode never reaches a writer."""
    spec = KINDS[kind]
    report = report if report is not None else ImportReport()
    tally = report.tally(kind)
    refs_forget()
    if spec.write_all is not None:
        spec.write_all(run, kind, spec.order(rows, tally) if spec.order else rows, tally)
        for name, count in tally.sub_imported.items():
            report.tally(f"{kind}.{name}").imported += count
        tally.sub_imported.clear()
        sequence_advance(spec.model)
        logger.info("snipeit import: %s: %d read, %d imported, %d resumed, %d skipped", kind, tally.read,
                    tally.imported, tally.resumed, len(tally.skipped))
        return tally
    done = set(SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", flat=True))
    fields = KIND_FIELDS[kind]
    rows = spec.order(rows, tally) if spec.order else rows
    for row in rows:
        snipeit_id = row["id"]
        if snipeit_id in done:
            tally.resumed += 1
            continue
        if merging() and _merge_matched(run, kind, row, tally):
            done.add(snipeit_id)
            continue
        record = {key: row[key] for key in fields if key in row}
        holder = spec.model._default_manager.filter(pk=snipeit_id).first()
        if holder is not None and merging():
            record["id"] = None  # a new id, reported
            sequence_advance(spec.model)  # past the ids kept so far in this kind (PostgreSQL would hand one out)
        elif holder is not None:  # never overwrite: a save with a taken pk would UPDATE that row
            skip(tally, kind, row, ID_TAKEN.format(id=snipeit_id, what=str(holder)))
            continue
        try:
            ours = _write_one(run, kind, spec, record, snipeit_id=snipeit_id, deleted_at=row.get("deleted_at"))
        except REFUSED as exc:
            dropped, lesser = _without_refused(kind, record, exc)
            try:
                if not dropped:
                    raise
                ours = _write_one(run, kind, spec, lesser, snipeit_id=snipeit_id, deleted_at=row.get("deleted_at"))
            except REFUSED as again:
                skip(tally, kind, row, refusal(again))
                continue
            tally.notes.append(WITHOUT.format(label=KINDS_BY_NAME[kind].label(row), fields=", ".join(dropped),
                                              why=refusal(exc)))
        done.add(snipeit_id)
        tally.imported += 1
        tally.id_changed(snipeit_id, ours, "new id")
    sequence_advance(spec.model)
    logger.info("snipeit import: %s: %d read, %d imported, %d resumed, %d skipped", kind, tally.read, tally.imported,
                tally.resumed, len(tally.skipped))
    return tally


def _merge_matched(run: SnipeitImport, kind: str, row: dict[str, Any], tally: KindTally) -> bool:
    """Under ``--merge``: when ``row`` is a record here by its natural key, map it (not overwritten) and say so."""
    match = natural_match(kind, [row]).get(row["id"])
    if match is None:
        return False
    SnipeitRecord.objects.create(run=run, kind=kind, snipeit_id=row["id"], our_id=match)
    tally.matched += 1
    tally.id_changed(row["id"], match, "matched")
    return True


# --- the writers, one per kind ------------------------------------------------------------------------------------


def _catalogue(model: type[models.Model]) -> Writer:
    def write(row: dict[str, Any], actor: Any) -> models.Model:
        data = refs(model, {k: v for k, v in row.items() if k not in ("id", "manager_id")})
        clean(model(pk=row["id"], **data))
        return catalogue_item_create(model=model, data=data, actor=actor, pk=row["id"], log=False)
    return write


def _company(row: dict[str, Any], actor: Any) -> Company:
    data = {k: v for k, v in row.items() if k != "id"}
    return company_create(actor=actor, data=data, pk=row["id"], log=False)


def _department(row: dict[str, Any], actor: Any) -> Department:
    data = refs(Department, {k: v for k, v in row.items() if k not in ("id", "manager_id")})
    return department_create(actor=actor, data=data, pk=row["id"], log=False)


def _custom_field(row: dict[str, Any], actor: Any) -> CustomField:
    data = {k: v for k, v in row.items() if k not in ("id", "db_column_name")}
    return custom_field_create(data=data, actor=actor, pk=row["id"], db_column_name=row.get("db_column_name"),
                               log=False)


def _fieldset(row: dict[str, Any], actor: Any) -> CustomFieldset:
    """The set and exactly its fields as Snipe-IT has them (the fields flagged ``auto_add_to_fieldsets`` that the
    service adds to a new set are replaced by Snipe-IT's list)."""
    fieldset = custom_fieldset_create(data={"name": row["name"]}, actor=actor, pk=row["id"], log=False)
    fieldset.memberships.all().delete()
    members = []
    for position, member in enumerate(row.get("fields") or [], 1):
        field_row = CustomField.objects.filter(pk=our_id("custom_field", member["field_id"])).first()
        if field_row is None:
            raise ValidationError({"fields": [f"The custom field {member['field_id']} is not imported."]})
        members.append(CustomFieldsetField(fieldset=fieldset, field=field_row, required=bool(member.get("required")),
                                           order=member.get("order") or position))
    CustomFieldsetField.objects.bulk_create(members)
    return fieldset


def _group(row: dict[str, Any], actor: Any) -> PermissionGroup:
    group = PermissionGroup(pk=row["id"], name=row["name"], notes=row.get("notes") or "")
    clean(group)
    return group_create(actor=actor, data={k: v for k, v in row.items() if k != "id"}, pk=row["id"])


def users_check_local_admins(rows: list[dict[str, Any]]) -> None:
    """Refuse (before any user is written) when a Snipe-IT user has the id or the username of a local admin."""
    for admin in local_admins():
        for row in rows:
            if row["id"] == admin.pk or str(row.get("username", "")).lower() == admin.username.lower():
                raise ImportRefused(LOCAL_ADMIN_COLLIDES.format(id=row["id"], username=row.get("username"),
                                                                local=admin.username))


def _users_order(rows: Iterable[dict[str, Any]], tally: KindTally) -> list[dict[str, Any]]:
    """Users are read whole before any is written: the local admin check looks at all of them (not under --merge,
    where a user of the local admin's username is matched, and one of its id gets a new id)."""
    rows = list(rows)
    if not merging():
        users_check_local_admins(rows)
    return rows


def _custom_fields_order(rows: Iterable[dict[str, Any]], tally: KindTally) -> Iterator[dict[str, Any]]:
    """The fields as they come (written while read), noting once that Snipe-IT did not send their flags."""
    for row in rows:
        if not row.get("flags_known", True) and FIELD_FLAGS_UNKNOWN not in tally.notes:
            tally.notes.append(FIELD_FLAGS_UNKNOWN)
        yield row


def _locations_order(rows: Iterable[dict[str, Any]], tally: KindTally) -> list[dict[str, Any]]:
    """Parents before their children (Snipe-IT's ids need not be in that order), so locations are read whole before
    any is written. A location whose parent is absent stays in, and the service's check names it; locations in a loop
    are skipped here."""
    rows = list(rows)
    by_id = {row["id"]: row for row in rows}
    placed: set[Any] = set()
    ordered: list[dict[str, Any]] = []
    pending = list(rows)
    while pending:
        rest = []
        for row in pending:
            parent = row.get("parent_id")
            if parent is None or parent in placed or parent not in by_id:
                ordered.append(row)
                placed.add(row["id"])
            else:
                rest.append(row)
        if len(rest) == len(pending):  # nothing placed: the rest hang on a loop
            for row in rest:
                skip(tally, "location", row, PARENT_LOOP)
            break
        pending = rest
    return ordered


#: The kinds this step writes, in the order they must be written (a reference is written before what refers to it;
#: the managers of locations and departments, users themselves, are set afterwards by :func:`link_managers`).
KINDS: dict[str, KindSpec] = {
    "company": KindSpec(Company, _company),
    "location": KindSpec(Location, _catalogue(Location), _locations_order),
    "department": KindSpec(Department, _department),
    "manufacturer": KindSpec(Manufacturer, _catalogue(Manufacturer)),
    "supplier": KindSpec(Supplier, _catalogue(Supplier)),
    "category": KindSpec(Category, _catalogue(Category)),
    "status_label": KindSpec(StatusLabel, _catalogue(StatusLabel)),
    "depreciation": KindSpec(Depreciation, _catalogue(Depreciation)),
    "custom_field": KindSpec(CustomField, _custom_field, _custom_fields_order),
    "fieldset": KindSpec(CustomFieldset, _fieldset),
    "asset_model": KindSpec(AssetModel, _catalogue(AssetModel)),
    "group": KindSpec(PermissionGroup, _group),
    "user": KindSpec(User, None, _users_order,  # type: ignore[arg-type]  # batched (write_users.py)
                     write_all=partial(write_users, drop=_without_refused, note=WITHOUT)),
    "asset": KindSpec(Asset, None, write_all=write_assets),  # type: ignore[arg-type]  # batched: no one-row writer
    # Stock, licenses, maintenances and kits go after "asset" (their checkouts, seats and maintenances name assets).
    **STOCK_KINDS,
    "file": FILE_KIND,
    "action": ACTION_KIND,
}
MODEL_KINDS.update({spec.model: kind for kind, spec in KINDS.items()})  # after every kind (writing.refs translates)

#: What each writer takes of a reader's record: our field names, references as ``<field>_id`` holding Snipe-IT ids.
#: ``manager_id`` of locations and departments is read by :func:`link_managers`; a user's is reported, not kept (our
#: users have none yet).
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "company": ("id", "name", "phone", "fax", "email", "notes", "tag_color"),
    "location": ("id", "name", "parent_id", "manager_id", "company_id", "address", "address2", "city", "state",
                 "country", "zip", "phone", "fax", "currency", "ldap_ou", "notes"),
    "department": ("id", "name", "company_id", "location_id", "manager_id", "phone", "fax", "notes"),
    "manufacturer": ("id", "name", "url", "support_url", "warranty_lookup_url", "support_phone", "support_email",
                     "notes"),
    "supplier": ("id", "name", "address", "address2", "city", "state", "country", "zip", "phone", "fax", "email",
                 "contact", "url", "notes"),
    "category": ("id", "name", "category_type", "eula_text", "use_default_eula", "require_acceptance",
                 "checkin_email", "notes"),
    "status_label": ("id", "name", "type", "color", "show_in_nav", "default_label", "notes"),
    "depreciation": ("id", "name", "months", "depreciation_min", "depreciation_type"),
    "custom_field": ("id", "name", "db_column_name", "element", "format", "field_values", "field_encrypted",
                    "is_unique", "display_in_user_view", "auto_add_to_fieldsets", "show_in_listview",
                    "display_checkin", "display_checkout", "display_audit", "help_text"),
    "fieldset": ("id", "name", "fields"),  # fields: [{"field_id": id, "required": bool, "order": n}]
    "asset_model": ("id", "name", "model_number", "manufacturer_id", "category_id", "min_amt", "eol", "requestable",
                    "notes", "depreciation_id", "fieldset_id"),
    "group": ("id", "name", "permissions", "notes"),
    "user": ("id", "username", "first_name", "last_name", "email", "employee_num", "jobtitle", "phone", "notes",
             "external_id", "permissions", "company_id", "department_id", "location_id", "manager_id", "group_ids",
             "is_active"),
    "asset": ASSET_FIELDS,
    **STOCK_FIELDS,  # after "asset" (write_stock.py)
    "file": FILE_FIELDS,
    "action": ACTION_FIELDS,
}


#: The kinds whose ``manager`` (a user) is set once users are written.
MANAGED_KINDS = ("location", "department", "user")


def link_managers(*, kind: str, managers: dict[Any, Any], tally: KindTally) -> int:
    """Set the ``manager`` of imported locations, departments and users once users exist: ``managers`` maps a
    record's Snipe-IT id to its manager's. Idempotent, so ``--resume`` runs it again safely; a manager who was not
    imported leaves the record without one and is noted. Users' managers go through ``user_managers_set`` (the
    rules of ``user_update``: not oneself, no loop, a live manager; Snipe-IT checks only the first), all at once and
    without action-log rows; a refusal is a note and the user keeps no manager. Returns how many were set."""
    model = KINDS[kind].model
    mapped = id_map(kind)
    users = mapped if kind == "user" else id_map("user")
    links: dict[int, int] = {}
    by_our_id: dict[int, tuple[Any, Any]] = {}
    for snipeit_id, manager in managers.items():
        if manager is None or snipeit_id not in mapped:
            continue
        if manager not in users:
            tally.notes.append(f"{kind} {snipeit_id}: its manager, user {manager}, is not imported")
            continue
        links[mapped[snipeit_id]] = users[manager]
        by_our_id[mapped[snipeit_id]] = (snipeit_id, manager)
    if merging():  # a record that was here before keeps its manager; one without gets Snipe-IT's
        managed = set(model._default_manager.filter(pk__in=list(links), manager__isnull=False)
                      .values_list("pk", flat=True))
        links = {pk: manager_id for pk, manager_id in links.items() if pk not in managed}
    if kind != "user":
        return sum(model._default_manager.filter(pk=pk).exclude(manager_id=manager_id).update(manager_id=manager_id)
                   for pk, manager_id in links.items())
    refused = user_managers_set(actor=IMPORT_ACTOR, links=links)
    for user_id, why in refused.items():
        snipeit_id, manager = by_our_id[user_id]
        why = "the user is deleted" if why == USER_DELETED else why
        tally.notes.append(MANAGER_NOT_KEPT.format(id=snipeit_id, manager=manager, why=why))
    return len(links) - len(refused)


def _remembering_managers(rows: Iterable[dict[str, Any]], managers: dict[Any, Any]) -> Iterator[dict[str, Any]]:
    for row in rows:
        managers[row["id"]] = row.get("manager_id")
        yield row


def commit_without_waiting() -> None:
    """On PostgreSQL, the import's commits do not wait for the disk (``synchronous_commit = off`` for this
    connection): each record commits with its ``SnipeitRecord`` in one transaction, so what a crash of the machine
    loses (at most the last fraction of a second of commits) is lost whole, and ``--resume`` writes it again. The
    process being killed loses nothing (the server has the commits). Writing 20,000 users got 2.5 times faster."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit TO OFF")


def import_snipeit(*, source_url: str, options: dict[str, Any], read: Callable[[str], Iterable[dict[str, Any]]],
                   resume: bool = False, merge: bool = False,
                   report: ImportReport | None = None) -> tuple[SnipeitImport, ImportReport]:
    """Write every kind of :data:`KINDS`, in order, from ``read(kind)`` (the records of a kind as the readers make
    them; ``read`` also counts them in ``report``), then the managers; the run ends ``finished`` with its report.
    Stopped by an error or Ctrl-C, the run is marked ``failed`` and the error goes on; killed, it stays ``running``:
    either way ``resume=True`` continues it (every kind is read again, written records are skipped)."""
    report = report if report is not None else ImportReport()
    commit_without_waiting()
    run = import_run_start(source_url=source_url, options=options, resume=resume, merge=merge)
    managers: dict[str, dict[Any, Any]] = {kind: {} for kind in MANAGED_KINDS}
    merge_token = set_merging(bool(run.options.get("merge")))
    try:
        for kind in KINDS:
            report.tally(kind)
            rows = read(kind)
            if kind in managers:
                rows = _remembering_managers(rows, managers[kind])
            write_kind(run=run, kind=kind, rows=rows, report=report)
        for kind, links in managers.items():
            link_managers(kind=kind, managers=links, tally=report.tally(kind))
    except BaseException:
        import_run_finish(run=run, report=report, failed=True)
        raise
    finally:
        reset_merging(merge_token)
    return import_run_finish(run=run, report=report), report


def run(*, client: SnipeitClient, context: ReadContext, resume: bool = False, merge: bool = False,
        stdout: IO[str], stderr: IO[str] | None = None,
        options: dict[str, Any] | None = None) -> ImportReport:
    """``manage.py import_snipeit`` without ``--dry-run``: read each kind the writers cover through
    ``reading.read_kind`` (progress bars and lines as in the dry run) and write it, kind by kind; the kinds after
    users are not read at all (one note says so: reading 100,000 assets to write none would only cost Snipe-IT's
    rate limit). The report goes to ``stdout`` at the end, also when the run stops (then the error goes on);
    ``options`` (never the token) are stored with the run. Refusals raise :class:`ImportRefused`."""
    report = ImportReport()
    later = [kind.name for kind in READ_KINDS if kind.name not in KINDS]
    if later:
        report.note(NOT_YET.format(kinds=", ".join(later)))

    def read(kind: str) -> Iterator[dict[str, Any]]:
        return (record for _raw, record in read_kind(client, KINDS_BY_NAME[kind], context, report, stream=stderr))

    try:
        with reading_from(client):
            import_snipeit(source_url=client.base_url, options=options or {}, read=read, resume=resume, merge=merge,
                           report=report)
    finally:
        if report.kinds:
            stdout.write(report.render())
    return report
