"""Snipe-IT's users written in batches (inventory/snipeit/write_users.py, accounts.services.users_create_many): the
checks of ``user_create`` for a whole batch, droppable fields dropped with a note, deleted users deleted, ids kept,
resumed rows left alone, and a constant number of queries per batch (issue 31: 20,000 users in seconds)."""

from __future__ import annotations

import pytest

from accounts.models import User
from inventory.models import SnipeitRecord
from inventory.snipeit.importer import import_run_start, write_kind
from tests.snipeit.write_examples import rows

pytestmark = pytest.mark.django_db

USERS = [
    {"id": 77, "username": "jdoe", "first_name": "Jane", "company_id": 3, "department_id": 5, "location_id": 40,
     "group_ids": [2], "employee_num": "E-77"},
    {"id": 78, "username": "JDOE", "first_name": "Twin"},  # taken case-insensitively by 77, in the same batch
    {"id": 79, "username": "jdoe", "first_name": "Gone", "deleted_at": "2024-01-02T03:04:05Z"},  # deleted: allowed
    {"id": 80, "username": "mover", "company_id": 8, "department_id": 5},  # R&D is company 3's: dropped
    {"id": 81, "username": "shorty", "phone": "x" * 60},  # too long for us: dropped
    {"id": 82, "username": "ghost", "group_ids": [999]},  # a group not imported: refused
    {"id": 83, "username": "stranger", "company_id": 555},  # a company not imported: refused
    {"id": 84, "username": "wizard", "permissions": {"assets.view": "1", "reports.teleport": "1"}},
    {"id": 85, "username": "boss", "permissions": {"superuser": "1"}, "is_active": False},
]


def _catalogue():
    run = import_run_start(source_url="https://snipe.example.com", options={})
    for kind in ("company", "location", "department", "group"):
        write_kind(run=run, kind=kind, rows=rows(kind))
    return run


def test_a_batch_gets_user_creates_checks_and_keeps_ids():
    run = _catalogue()
    tally = write_kind(run=run, kind="user", rows=[dict(row) for row in USERS])
    skipped = {s.snipeit_id: s.why for s in tally.skipped}
    assert skipped == {78: "username: The username must be unique.",
                       82: "groups: The group 999 is not imported.",
                       83: "company_id: The selected company id is invalid."}
    assert tally.imported == 6
    assert sorted(User.objects.values_list("pk", flat=True)) == [77, 79, 80, 81, 84, 85]
    assert set(SnipeitRecord.objects.filter(kind="user").values_list("snipeit_id", "our_id")) == {
        (pk, pk) for pk in (77, 79, 80, 81, 84, 85)}
    jane = User.objects.get(pk=77)
    assert (jane.company_id, jane.department_id, jane.location_id, jane.employee_num) == (3, 5, 40, "E-77")
    assert list(jane.groups.values_list("pk", flat=True)) == [2] and not jane.has_usable_password()
    assert User.objects.get(pk=79).deleted_at is not None
    mover = User.objects.get(pk=80)
    assert (mover.company_id, mover.department_id) == (8, None)
    assert User.objects.get(pk=81).phone == ""
    assert User.objects.get(pk=84).permissions == {"assets.view": 1}
    boss = User.objects.get(pk=85)
    assert boss.is_superuser and not boss.is_active and boss.created_by_id is None
    notes = " | ".join(tally.notes)
    assert 'user 80 "mover" imported without department_id: department_id:' in notes
    assert 'user 81 "shorty" imported without phone: phone:' in notes
    assert 'user 84 "wizard" imported without permission reports.teleport' in notes


def test_resumed_users_are_left_alone_and_an_id_taken_here_is_skipped():
    run = _catalogue()
    write_kind(run=run, kind="user", rows=[dict(USERS[0])])
    User.objects.create(pk=86, username="outsider")  # written outside the import
    tally = write_kind(run=run, kind="user", rows=[dict(USERS[0]), {"id": 86, "username": "someone"},
                                                   {"id": 87, "username": "new"}])
    assert (tally.resumed, tally.imported) == (1, 1)
    assert [(s.snipeit_id, s.why) for s in tally.skipped] == [(86, "id 86 is already taken here by 'outsider'")]
    assert User.objects.get(pk=86).username == "outsider" and User.objects.filter(pk__in=[77, 87]).count() == 2


def test_thousands_of_users_take_a_constant_number_of_queries(django_assert_max_num_queries):
    run = _catalogue()
    many = [{"id": 1000 + n, "username": f"person{n}", "company_id": 3, "department_id": 5, "location_id": 40,
             "group_ids": [2]} for n in range(2500)]  # three batches
    # A few per batch, plus SQLite's inserts of ~50 users each (it caps a statement's parameters); one by one it
    # was ten per user.
    with django_assert_max_num_queries(150):
        tally = write_kind(run=run, kind="user", rows=many)
    assert tally.imported == 2500 and not tally.skipped
    assert User.groups.through.objects.count() == 2500
    assert SnipeitRecord.objects.filter(kind="user").count() == 2500
