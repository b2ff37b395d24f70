"""The one writer of action-log rows. Every service that records a domain verb (assets, the catalogue, companies,
users) calls :func:`log_action` inside its transaction, so every row is filled the same way, including where the
request came from (``assetsvc.request_meta``, set for every request by the middleware)."""

from __future__ import annotations

import logging
import uuid
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files.storage import storages
from django.db import transaction
from django.utils import timezone

from activity.choices import ActionType
from activity.files import (
    ALLOWED_LIST,
    SNIFF_BYTES,
    FileKind,
    UnsafeFilename,
    checked_type,
    clean_filename,
    extension_of,
    upload_max_bytes,
)
from activity.models import ActionLog, StoredFile
from assetsvc.exceptions import InvalidInputError, NotFoundError
from assetsvc.request_meta import current_request_meta
from assetsvc.services import lock_or_not_found

logger = logging.getLogger(__name__)

#: Item types whose ``serial`` is a secret that is never written to the log (a license's product key).
UNRECORDED_SERIALS = frozenset({"license"})


def recorded_name(obj: Any) -> str | None:
    """The name a log row records for ``obj``: a person's full name, else its name, else its asset tag."""
    if obj is None:
        return None
    full_name = getattr(obj, "full_name", None)
    if full_name is not None and hasattr(obj, "username"):
        name = full_name
    else:
        name = getattr(obj, "name", None) or getattr(obj, "asset_tag", None) or str(obj)
    return str(name)[:255] if name is not None else None


def recorded_item(item: Any, item_type: str) -> dict[str, Any]:
    """``item_name`` / ``item_serial`` of a row about ``item`` (nothing when no item is given)."""
    if item is None:
        return {}
    serial = None if item_type in UNRECORDED_SERIALS else getattr(item, "serial", None)
    return {"item_name": recorded_name(item), "item_serial": str(serial)[:255] if serial else None}


def target_company_of(target: Any) -> int | None:
    """The company of a target that has one (a user, an asset, a location of a company)."""
    return getattr(target, "company_id", None) if target is not None else None


def log_action(
    *,
    action_type: str,
    item_type: str,
    item_id: int,
    actor: AbstractBaseUser | None,
    company_id: int | None,
    target_type: str = "",
    target_id: int | None = None,
    item: Any = None,
    target: Any = None,
    location_id: int | None = None,
    note: str = "",
    log_meta: dict[str, Any] | None = None,
    expected_checkin: date | None = None,
    action_date: datetime | None = None,
) -> ActionLog:
    """Write one action-log row (``action_date`` defaults to now; an unsaved actor is recorded as nobody).

    ``item`` (the row's item) records its name and serial as they are now; ``target`` records its company, so the
    target's company sees the row without the item (issue 25)."""
    meta = current_request_meta()
    return ActionLog.objects.create(
        action_type=action_type,
        created_by=actor if actor is not None and actor.pk else None,
        item_type=item_type,
        item_id=item_id,
        **recorded_item(item, item_type),
        target_type=target_type,
        target_id=target_id,
        target_company_id=target_company_of(target),
        location_id=location_id,
        company_id=company_id,
        note=note or "",
        log_meta=log_meta or None,
        expected_checkin=expected_checkin,
        action_date=action_date or timezone.now(),
        action_source=meta.get("action_source", "api"),
        remote_ip=meta.get("remote_ip", ""),
        user_agent=meta.get("user_agent", ""),
    )


def log_actions_bulk(rows: list[dict[str, Any]]) -> list[ActionLog]:
    """Write many action-log rows in one statement (the CSV importer's batches), each filled as :func:`log_action`
    fills one: ``rows`` hold its keyword arguments (``actor``, ``item``, ``target`` and the ids)."""
    meta = current_request_meta()
    now = timezone.now()
    logs = [
        ActionLog(
            action_type=row["action_type"],
            created_by=row.get("actor") if row.get("actor") is not None and row["actor"].pk else None,
            item_type=row["item_type"],
            item_id=row["item_id"],
            **recorded_item(row.get("item"), row["item_type"]),
            target_type=row.get("target_type", ""),
            target_id=row.get("target_id"),
            target_company_id=target_company_of(row.get("target")),
            location_id=row.get("location_id"),
            company_id=row.get("company_id"),
            note=row.get("note") or "",
            log_meta=row.get("log_meta") or None,
            action_date=row.get("action_date") or now,
            action_source=meta.get("action_source", "api"),
            remote_ip=meta.get("remote_ip", ""),
            user_agent=meta.get("user_agent", ""),
        )
        for row in rows
    ]
    return ActionLog.objects.bulk_create(logs, batch_size=1000)


# --- files on records (issue 27; docs/files.md) -------------------------------------------------------------------

FILE_MESSAGES = {
    "uploaded": "File(s) successfully uploaded.",
    "deleted": "File successfully deleted.",
    "no_files": "You did not select any files for upload, or the file you are trying to upload is too large",
    "empty": "The file {name} is empty.",
    "too_large": "The file {name} is larger than {limit} MB.",
    "bad_name": "The file name {name} is not allowed.",
    "bad_type": "The file {name} is not an allowed type, or its content does not match its extension. Allowed "
                "types: {allowed}.",
    "not_found": "File not found.",
    "missing": "The file's content could not be found.",
}


def _file_refused(key: str, **values: Any) -> InvalidInputError:
    return InvalidInputError(FILE_MESSAGES[key].format(**values), code=f"file_{key}",
                             messages={"file": [FILE_MESSAGES[key].format(**values)]})


def stored_file_check(upload: Any) -> tuple[str, str]:
    """The sanitized name and the content type of ``upload`` (a Django ``UploadedFile`` or any file with ``name``
    and ``size``), or the refusal: empty, over ``UPLOAD_MAX_MB``, a climbing or empty name, a type not allowed or
    content that is not what its extension says. Reads only the first bytes."""
    raw_name = str(getattr(upload, "name", "") or "")
    shown = (clean_filename_or_none(raw_name) or raw_name)[:100]
    size = getattr(upload, "size", None)
    if not size:
        raise _file_refused("empty", name=shown)
    if size > upload_max_bytes():
        raise _file_refused("too_large", name=shown, limit=settings.UPLOAD_MAX_MB)
    try:
        name = clean_filename(raw_name)
    except UnsafeFilename:
        raise _file_refused("bad_name", name=shown) from None
    if not name or not extension_of(name):
        raise _file_refused("bad_type", name=shown or "(no name)", allowed=ALLOWED_LIST)
    upload.seek(0)
    head = upload.read(SNIFF_BYTES)
    upload.seek(0)
    content_type = checked_type(name, head, complete=len(head) >= size)
    if content_type is None:
        raise _file_refused("bad_type", name=name, allowed=ALLOWED_LIST)
    return name, content_type


def clean_filename_or_none(raw: str) -> str | None:
    try:
        return clean_filename(raw)
    except UnsafeFilename:
        return None


@transaction.atomic
def stored_file_upload(*, kind: FileKind, record: Any, uploads: list[Any], actor: AbstractBaseUser | None,
                       note: str = "") -> list[StoredFile]:
    """Store ``uploads`` on ``record`` (of ``kind``, already found through the kind's queryset for the caller): all
    of them or none. Every file is checked first (:func:`stored_file_check`); then the record is locked (a concurrent
    delete makes it "not found"), each file is written to the ``files`` storage under a generated name, and a row
    plus an ``uploaded`` action-log row (the file name in ``log_meta``, as Snipe-IT's ``filename``) are written.
    A failure after a file was written removes what was written, so a refused upload leaves no file and no row."""
    if not uploads:
        raise _file_refused("no_files")
    checked = [(upload, *stored_file_check(upload)) for upload in uploads]
    record = lock_or_not_found(kind.queryset(actor), record.pk, lambda: NotFoundError(kind.not_found_message))
    if kind.check_write is not None:
        kind.check_write(actor, record)
    company_id = kind.company_of(record)
    storage = files_storage()
    written: list[str] = []
    try:
        rows = []
        for upload, name, content_type in checked:
            target = f"{kind.name}/{record.pk}/{uuid.uuid4().hex}.{extension_of(name)}"
            stored = storage.save(target, upload)
            written.append(stored)
            row = StoredFile.objects.create(item_type=kind.name, item_id=record.pk, company_id=company_id,
                                            filename=name, storage_name=stored, content_type=content_type,
                                            size=upload.size, note=note or "",
                                            created_by=actor if actor is not None and actor.pk else None)
            log_action(action_type=ActionType.UPLOADED, item_type=kind.name, item_id=record.pk, item=record,
                       actor=actor, company_id=company_id, note=note or "",
                       log_meta={"filename": name, "file_id": row.pk})
            rows.append(row)
    except BaseException:
        for name in written:
            _delete_quietly(storage, name)
        raise
    return rows


@transaction.atomic
def stored_file_delete(*, kind: FileKind, record: Any, stored_file: StoredFile,
                       actor: AbstractBaseUser | None) -> None:
    """Delete ``stored_file`` of ``record``: the row and an ``upload deleted`` action-log row now, the stored bytes
    once the transaction commits (a rollback keeps both)."""
    if kind.check_write is not None:
        kind.check_write(actor, record)
    row = lock_or_not_found(StoredFile.objects.for_record(kind.name, record.pk), stored_file.pk,
                            lambda: NotFoundError(FILE_MESSAGES["not_found"]))
    storage_name = row.storage_name
    row.delete()
    log_action(action_type=ActionType.UPLOAD_DELETED, item_type=kind.name, item_id=record.pk, item=record,
               actor=actor, company_id=kind.company_of(record), log_meta={"filename": row.filename})
    storage = files_storage()
    transaction.on_commit(lambda: _delete_quietly(storage, storage_name))


def stored_files_discard(*, item_type: str, item_id: int) -> int:
    """Drop every file of a record that is deleted for real (a location): the rows now, the stored bytes once the
    caller's transaction commits. Soft-deleted records keep their files (a restore brings them back). Answers how
    many files were dropped."""
    rows = list(StoredFile.objects.for_record(item_type, item_id).values_list("pk", "storage_name"))
    if not rows:
        return 0
    StoredFile.objects.filter(pk__in=[pk for pk, _ in rows]).delete()
    storage = files_storage()
    names = [name for _, name in rows]
    transaction.on_commit(lambda: [_delete_quietly(storage, name) for name in names])
    return len(rows)


def stored_file_open(stored_file: StoredFile):
    """The stored bytes of ``stored_file``, opened for reading; :class:`NotFoundError` when the storage lost them."""
    try:
        return files_storage().open(stored_file.storage_name, "rb")
    except (FileNotFoundError, OSError) as exc:
        raise NotFoundError(FILE_MESSAGES["missing"], code="file_missing") from exc
    except Exception as exc:  # an S3 "NoSuchKey" is a botocore ClientError
        if exc.__class__.__name__ == "ClientError":
            raise NotFoundError(FILE_MESSAGES["missing"], code="file_missing") from exc
        raise


def files_storage():
    """The ``files`` storage (``STORAGES["files"]``: a local folder or an S3-compatible bucket)."""
    return storages["files"]


def _delete_quietly(storage, name: str) -> None:
    try:
        storage.delete(name)
    except Exception:  # noqa: BLE001 - a leftover object is logged, never a failed request
        logger.exception("could not delete stored file %s", name)
