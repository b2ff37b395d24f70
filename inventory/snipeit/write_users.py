"""Writing Snipe-IT's users (issue 31; docs/switching-from-snipe-it.md "Users"), in batches.

20,000 users one ``user_create`` at a time took about 5 minutes (13-17 ms each: a transaction, a username query, a
department lock, two queries per group, the save, the memberships, the ``SnipeitRecord``). Here each batch of
:data:`BATCH_SIZE` users goes through ``accounts.services.users_create_many``, which makes ``user_create``'s checks
for the batch in a fixed number of queries, in one transaction together with the batch's ``SnipeitRecord`` rows. What
stays as before: the field checks of the API's serializer (``writing.clean``), references translated through the id
maps (a company or group not imported refuses the user; a department or location not imported is dropped, with a
note, as any field of ``importer.DROPPABLE``), deleted users created deleted (their username is not checked against
the live ones: the database's rule covers live users only), the local-admin check before any user is written, an id
taken here skipped (or, under ``--merge``, matched by username or given a new id: ``writing.merge_split``), and rows
an earlier run wrote counted as resumed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.models import PermissionGroup, User
from accounts.services import users_create_many
from inventory.models import SnipeitRecord
from inventory.snipeit.kinds import KINDS_BY_NAME
from inventory.snipeit.writing import (
    ID_TAKEN,
    IMPORT_ACTOR,
    REFUSED,
    chunks,
    clean,
    id_map,
    ids_taken,
    merge_split,
    merging,
    refs,
    refusal,
    sequence_advance,
    skip,
)

if TYPE_CHECKING:
    from inventory.models import SnipeitImport
    from inventory.snipeit.report import KindTally

#: ``importer._without_refused``: the fields of a record that a refusal names, when all may be dropped, and the record
#: without them.
Drop = Callable[[str, dict[str, Any], Exception], tuple[list[str], dict[str, Any]]]
#: Users per transaction.
BATCH_SIZE = 1000
USER_INPUT = ("username", "first_name", "last_name", "email", "employee_num", "jobtitle", "phone", "notes",
              "external_id", "permissions")


def write_users(run: SnipeitImport, kind: str, rows: Iterable[dict[str, Any]], tally: KindTally, *,
                drop: Drop, note: str) -> None:
    """``KindSpec.write_all`` of users (``importer`` gives it ``drop``, its rule for fields a record may lose, and
    ``note``, how that reads; its ``order`` has read the users whole and made the local-admin check): written in
    batches, each in one transaction."""
    rows = list(rows)
    done = set(id_map(kind))
    groups = {snipeit_id: PermissionGroup(pk=ours) for snipeit_id, ours in id_map("group").items()}
    for chunk in chunks(rows, BATCH_SIZE):
        fresh = [row for row in chunk if row["id"] not in done]
        tally.resumed += len(chunk) - len(fresh)
        if fresh:
            with transaction.atomic():
                _write_batch(run, kind, fresh, groups, tally, drop, note)
            done.update(row["id"] for row in fresh)


def _user_data(row: dict[str, Any], groups: dict[int, PermissionGroup]) -> dict[str, Any]:
    """``user_create``'s data of a record, checked as the API's serializer checks it (lengths, formats) and its
    references translated; raises the refusal."""
    related = refs(User, {k: row[k] for k in ("company_id", "department_id", "location_id") if k in row})
    missing = [group_id for group_id in row.get("group_ids") or [] if group_id not in groups]
    if missing:
        raise ValidationError({"groups": [f"The group {missing[0]} is not imported."]})
    data = {**{k: row[k] for k in USER_INPUT if k in row}, **related,
            "groups": [groups[group_id] for group_id in row.get("group_ids") or []],
            "activated": row.get("is_active", True)}
    clean(User(pk=row["id"], **{k: v for k, v in data.items() if k not in ("groups", "activated")}),
          exclude=("password",))
    return data


def _write_batch(run: SnipeitImport, kind: str, rows: list[dict[str, Any]], groups: dict[int, PermissionGroup],
                 tally: KindTally, drop: Drop, note: str) -> None:
    """One batch, inside its transaction: each user's data checked and built, the batch created (a user refused only
    for droppable fields created without them in a second round), the ``SnipeitRecord`` rows written."""

    rows, new_ids = merge_split(run, kind, rows, tally)
    if not merging():
        taken = ids_taken(User, [row["id"] for row in rows])
        holders = dict(User.objects.filter(pk__in=taken).values_list("pk", "username"))
        for row in rows:
            if row["id"] in holders:
                skip(tally, kind, row, ID_TAKEN.format(id=row["id"], what=holders[row["id"]]))
        rows = [row for row in rows if row["id"] not in holders]
    if new_ids:
        sequence_advance(User)  # past the ids kept so far (PostgreSQL would hand out a taken one)
    records = {row["id"]: dict(row) for row in rows}  # _user_data takes only the keys it knows
    pending = list(rows)
    notes: dict[int, tuple[list[str], Exception]] = {}
    second: list[dict[str, Any]] = []
    for attempt in (1, 2):
        entries, planned = [], []
        for row in pending:
            record = records[row["id"]]
            try:
                data = _user_data(record, groups)
            except REFUSED as exc:
                if attempt == 1 and _drop(kind, row, record, exc, records, notes, drop):
                    second.append(row)
                else:
                    skip(tally, kind, row, refusal(exc))
                continue
            entries.append({**data, "pk": None if row["id"] in new_ids else row["id"],
                            "deleted_at": row.get("deleted_at")})
            planned.append(row)
        created, refused = users_create_many(actor=IMPORT_ACTOR, entries=entries)
        for index, exc in refused.items():
            row = planned[index]
            if attempt == 1 and _drop(kind, row, records[row["id"]], exc, records, notes, drop):
                second.append(row)
            else:
                skip(tally, kind, row, refusal(exc))
        SnipeitRecord.objects.bulk_create([SnipeitRecord(run=run, kind=kind, snipeit_id=planned[index]["id"],
                                                         our_id=user.pk) for index, user in created.items()])
        for index, user in created.items():
            row = planned[index]
            tally.imported += 1
            tally.id_changed(row["id"], user.pk, "new id")
            if row["id"] in notes:
                dropped, why = notes[row["id"]]
                tally.notes.append(note.format(label=KINDS_BY_NAME[kind].label(row), fields=", ".join(dropped),
                                               why=refusal(why)))
        pending, second = second, []
        if not pending:
            break


def _drop(kind: str, row: dict[str, Any], record: dict[str, Any], exc: Exception,
          records: dict[int, dict[str, Any]], notes: dict[int, tuple[list[str], Exception]], drop: Drop) -> bool:
    """When ``exc`` refuses only droppable fields (``importer.DROPPABLE``), replace the record by the one without
    them and remember the note; say whether it is to be tried again."""
    dropped, lesser = drop(kind, record, exc)
    if not dropped:
        return False
    records[row["id"]] = lesser
    notes[row["id"]] = (dropped, exc)
    return True
