"""``manage.py ldap_sync`` against a real slapd (issue 30): creates, updates, deactivates (never deletes), a second run
changes nothing, local users and super users are never touched, and a deactivated user's token fails at once."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from activity.models import ActionLog
from tests.factories import CompanyFactory, DepartmentFactory, LocationFactory, UserFactory
from tests.ldap.conftest import PEOPLE, SUFFIX

pytestmark = pytest.mark.django_db
ACTIVE_PEOPLE = {"alice", "bob", "carol", "erin"}  # dave is disabled (userAccountControl 514)


def sync(*args: str) -> dict:
    out = StringIO()
    call_command("ldap_sync", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def counts(report: dict) -> dict:
    return {key: report[key] for key in ("created", "updated", "deactivated", "unchanged", "skipped")}


def test_sync_creates_the_directory_people(ldap_on):
    report = sync()
    assert counts(report) == {"created": 4, "updated": 0, "deactivated": 0, "unchanged": 0, "skipped": 0}
    assert set(report["created_users"]) == ACTIVE_PEOPLE
    alice = User.objects.get(username="alice")
    assert (alice.first_name, alice.last_name, alice.email, alice.employee_num, alice.phone) == (
        "Alice", "Archer", "alice@example.org", "E-100", "+1 555 0100")
    assert alice.ldap_import and alice.is_active and not alice.has_usable_password()
    assert alice.permissions == {} and not alice.groups.exists() and not alice.is_staff  # no rights from the directory
    assert User.objects.get(username="erin").ldap_import  # found in ou=contractors: the whole base is searched
    assert not User.objects.filter(username="dave").exists()  # a disabled account never seen here is not created
    assert ActionLog.objects.filter(item_type="user", action_type="create").count() == 4


def test_a_second_sync_changes_nothing(ldap_on):
    sync()
    logs = ActionLog.objects.count()
    before = {user.username: (user.updated_at, user.is_active) for user in User.objects.all()}
    report = sync()
    assert counts(report) == {"created": 0, "updated": 0, "deactivated": 0, "unchanged": 4, "skipped": 0}
    assert {user.username: (user.updated_at, user.is_active) for user in User.objects.all()} == before
    assert ActionLog.objects.count() == logs


def test_department_company_and_location_by_name(ldap_on):
    acme = CompanyFactory(name="ACME")
    finance = DepartmentFactory(name="finance", company=acme)
    DepartmentFactory(name="Finance", company=CompanyFactory(name="Other"))  # another company's: never taken
    office = LocationFactory(name="Head Office")
    report = sync()
    carol = User.objects.get(username="carol")
    assert (carol.company, carol.department, carol.location) == (acme, finance, office)
    erin = User.objects.get(username="erin")  # names nobody has here: left empty, reported
    assert (erin.company, erin.department) == (None, None)
    assert {(row["username"], row["field"], row["value"]) for row in report["unmatched"]} == {
        ("erin", "company", "Unknown Corp"), ("erin", "department", "Nowhere")}
    assert counts(sync())["unchanged"] == 4


def test_sync_updates_what_changed_in_the_directory(ldap_on):
    sync()
    ldap_on.modify(f"uid=alice,{PEOPLE}", sn="Smith", mail="alice.smith@example.org", telephoneNumber=None)
    ldap_on.move(f"uid=bob,{PEOPLE}", f"ou=contractors,{SUFFIX}")  # moved between OUs: the same person
    report = sync()
    assert counts(report) == {"created": 0, "updated": 1, "deactivated": 0, "unchanged": 3, "skipped": 0}
    alice = User.objects.get(username="alice")
    assert (alice.last_name, alice.email, alice.phone) == ("Smith", "alice.smith@example.org", "")
    log = ActionLog.objects.filter(item_type="user", item_id=alice.pk, action_type="update").get()
    assert log.log_meta["last_name"] == {"old": "Archer", "new": "Smith"}
    assert User.objects.filter(username__iexact="bob").count() == 1


def test_gone_or_disabled_users_are_deactivated_never_deleted(ldap_on):
    sync()
    ldap_on.delete(f"uid=bob,{PEOPLE}")
    ldap_on.modify(f"uid=alice,{PEOPLE}", userAccountControl=514)  # Active Directory's ACCOUNTDISABLE bit
    report = sync()
    assert counts(report) == {"created": 0, "updated": 0, "deactivated": 2, "unchanged": 2, "skipped": 0}
    assert set(report["deactivated_users"]) == {"alice", "bob"}
    for name, note in (("alice", "Disabled in the directory (LDAP)."), ("bob", "Gone from the directory (LDAP).")):
        user = User.objects.get(username=name)
        assert not user.is_active and user.deleted_at is None
        log = ActionLog.objects.filter(item_type="user", item_id=user.pk, action_type="update").get()
        assert (log.note, log.log_meta) == (note, {"activated": {"old": True, "new": False}})
    assert counts(sync())["deactivated"] == 0  # nothing more to do
    ldap_on.modify(f"uid=alice,{PEOPLE}", userAccountControl=512)  # enabled again: an administrator reactivates
    assert counts(sync())["updated"] == 0
    assert not User.objects.get(username="alice").is_active


def test_a_disabled_filter_marks_openldap_accounts(ldap_on, settings):
    settings.LDAP_DISABLED_FILTER = "employeeType=disabled"  # without parentheses, as people type it
    sync()
    ldap_on.modify(f"uid=carol,{PEOPLE}", employeeType="disabled")
    report = sync()
    assert report["deactivated_users"] == ["carol"]
    assert not User.objects.get(username="carol").is_active


def test_people_outside_the_filter_or_base_are_gone(ldap_on, settings):
    sync()
    settings.LDAP_USER_BASE = PEOPLE  # erin sits in ou=contractors
    report = sync()
    assert report["deactivated_users"] == ["erin"]


def test_local_users_and_super_users_are_never_overwritten(ldap_on):
    admin = UserFactory(username="Alice", superuser=True, first_name="Local", email="root@here")
    bob = UserFactory(username="bob", first_name="Local Bob", ldap_import=False)
    report = sync()
    assert {row["username"] for row in report["skipped_users"]} == {"Alice", "bob"}
    admin.refresh_from_db()
    bob.refresh_from_db()
    assert (admin.first_name, admin.email, admin.is_superuser, admin.ldap_import) == ("Local", "root@here", True, False)
    assert (bob.first_name, bob.ldap_import) == ("Local Bob", False)
    # a super user who came from the directory is left alone too, and never deactivated: reported instead
    User.objects.filter(pk=admin.pk).update(ldap_import=True)
    ldap_on.delete(f"uid=alice,{PEOPLE}")
    report = sync()
    assert [row["reason"] for row in report["skipped_users"] if row["username"] == "Alice"] == [
        "a super user: never changed by the directory; gone from it: deactivate them here by hand if they left"]
    admin.refresh_from_db()
    assert admin.is_active and admin.first_name == "Local"


def test_dry_run_writes_nothing(ldap_on):
    report = sync("--dry-run")
    assert report["dry_run"] and report["created"] == 4
    assert not User.objects.exists()
    assert not ActionLog.objects.exists()


def test_plain_output_reports_counts(ldap_on):
    out = StringIO()
    call_command("ldap_sync", stdout=out)
    assert out.getvalue().splitlines()[0] == "created 4, updated 0, deactivated 0, unchanged 0, skipped 0"


def test_a_deactivated_users_token_fails_on_the_next_request(ldap_on, make_client):
    sync()
    client = make_client(User.objects.get(username="alice"))
    assert client.get("/api/v1/users/me").status_code == 200
    ldap_on.modify(f"uid=alice,{PEOPLE}", userAccountControl=514)
    sync()
    assert client.get("/api/v1/users/me").status_code == 401


def test_without_ldap_the_command_refuses(settings, db):
    settings.LDAP_SERVER_URI = ""
    with pytest.raises(CommandError, match="LDAP is not configured"):
        call_command("ldap_sync")


def test_an_unreachable_directory_is_a_clean_error(ldap_on, settings):
    settings.LDAP_SERVER_URI = "ldap://127.0.0.1:1"
    with pytest.raises(CommandError, match="LDAPSocketOpenError"):
        call_command("ldap_sync")
