"""Users' managers (issue 31, Snipe-IT's ``manager_id``): the record's ``manager`` ``{id, name}``, ``manager_id`` on
``POST``/``PUT``/``PATCH /users`` checked by the user services (a live user the caller may see, not the user
themselves, no loop), ``GET /users?manager_id=N``, the query budget, the delete guard and the admin's picker."""

from __future__ import annotations

import pytest
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services
from accounts.models import User
from activity.models import ActionLog
from tests.api_mixins import error_of, http_errors
from tests.factories import CompanyFactory, DepartmentFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/users"
ALL_USER_KEYS = {"users.view": 1, "users.create": 1, "users.edit": 1, "users.delete": 1}


def new_user_body(**extra):
    return {"first_name": "Ada", "last_name": "Lovelace", "username": "ada", "password": "analytical-engine",
            **extra}


@pytest.fixture
def boss(db) -> User:
    return UserFactory(first_name="Grace", last_name="Hopper")


# --- shown ------------------------------------------------------------------------------------------------------


def test_the_record_shows_the_manager_as_snipe_it_does(token_client, superuser, boss):
    person = UserFactory(manager=boss)
    row = token_client.get(f"{URL}/{person.pk}").json()
    assert row["manager"] == {"id": boss.pk, "name": "Grace Hopper"}
    listed = {r["id"]: r["manager"] for r in token_client.get(URL).json()["rows"]}
    assert listed[person.pk] == {"id": boss.pk, "name": "Grace Hopper"} and listed[boss.pk] is None
    superuser.manager = boss
    superuser.save()
    assert token_client.get(f"{URL}/me").json()["manager"] == {"id": boss.pk, "name": "Grace Hopper"}


def test_a_manager_of_another_company_is_hidden(make_client, fmcs_on, company, other_company):
    """A super user may give a person a manager of another company; a caller limited to the person's company sees
    null, as for any person of another company."""
    theirs = UserFactory(company=other_company)
    person = UserFactory(company=company, manager=theirs)
    caller = make_client(UserFactory(company=company, permissions=dict(ALL_USER_KEYS)))
    assert caller.get(f"{URL}/{person.pk}").json()["manager"] is None
    assert {r["id"]: r["manager"] for r in caller.get(URL).json()["rows"]}[person.pk] is None


# --- set and clear ----------------------------------------------------------------------------------------------


def test_create_with_a_manager_and_change_and_clear_it(token_client, boss):
    body = token_client.post(URL, new_user_body(manager_id=boss.pk), format="json").json()
    assert body["status"] == "success", body
    assert body["payload"]["manager"] == {"id": boss.pk, "name": "Grace Hopper"}
    person = User.objects.get(username="ada")
    assert person.manager == boss

    other = UserFactory()
    body = token_client.patch(f"{URL}/{person.pk}", {"manager_id": other.pk}, format="json").json()
    assert body["status"] == "success" and body["payload"]["manager"]["id"] == other.pk
    log = ActionLog.objects.get(item_type="user", item_id=person.pk, action_type="update")
    assert log.log_meta == {"manager_id": {"old": boss.pk, "new": other.pk}}

    body = token_client.put(f"{URL}/{person.pk}", {"manager_id": None}, format="json").json()
    assert body["status"] == "success" and body["payload"]["manager"] is None
    person.refresh_from_db()
    assert person.manager_id is None


def test_a_patch_without_manager_id_keeps_the_manager(token_client, boss):
    person = UserFactory(manager=boss)
    assert token_client.patch(f"{URL}/{person.pk}", {"jobtitle": "Engineer"}, format="json").json()["status"] == \
        "success"
    person.refresh_from_db()
    assert person.manager == boss


# --- refused ----------------------------------------------------------------------------------------------------


def test_nobody_manages_themselves(token_client, boss, settings):
    before = ActionLog.objects.count()
    assert error_of(token_client.patch(f"{URL}/{boss.pk}", {"manager_id": boss.pk}, format="json"),
                    "manager_id") == [services.OWN_MANAGER]
    http_errors(settings)
    assert token_client.patch(f"{URL}/{boss.pk}", {"manager_id": boss.pk}, format="json").status_code == 422
    boss.refresh_from_db()
    assert boss.manager_id is None and ActionLog.objects.count() == before


def test_a_loop_is_refused(token_client):
    """A manages B manages C: neither B nor C may become A's manager."""
    a = UserFactory()
    b = UserFactory(manager=a)
    c = UserFactory(manager=b)
    for above in (b, c):
        response = token_client.patch(f"{URL}/{a.pk}", {"manager_id": above.pk}, format="json")
        assert error_of(response, "manager_id") == [services.MANAGER_LOOP]
    a.refresh_from_db()
    assert a.manager_id is None
    # moving up the chain is no loop: C reports to A directly
    assert token_client.patch(f"{URL}/{c.pk}", {"manager_id": a.pk}, format="json").json()["status"] == "success"


@pytest.mark.parametrize("bad", [999999, "abc", [1], True])
def test_an_unknown_manager_writes_nothing(token_client, bad):
    person = UserFactory()
    before = User.objects.count(), ActionLog.objects.count()
    assert "manager_id" in error_of(token_client.post(URL, new_user_body(manager_id=bad), format="json"))
    assert "manager_id" in error_of(token_client.patch(f"{URL}/{person.pk}", {"manager_id": bad}, format="json"))
    assert (User.objects.count(), ActionLog.objects.count()) == before


def test_a_deleted_manager_is_refused(token_client):
    gone = UserFactory(deleted_at=timezone.now())
    person = UserFactory()
    assert "manager_id" in error_of(token_client.patch(f"{URL}/{person.pk}", {"manager_id": gone.pk},
                                                       format="json"))
    with pytest.raises(ValidationError) as refused:
        services.user_update(actor=UserFactory(superuser=True), user=person, data={"manager": gone})
    assert refused.value.message_dict == {"manager_id": [services.MANAGER_NOT_FOUND]}


def test_another_companys_user_is_refused_as_an_unknown_one(make_client, fmcs_on, company, other_company):
    """With separation on, a caller limited to a company cannot name another company's person: the answer is the
    unknown id's, word for word, and the service refuses it too (the admin and the import pass there)."""
    theirs = UserFactory(company=other_company)
    caller_user = UserFactory(company=company, permissions=dict(ALL_USER_KEYS))
    caller = make_client(caller_user)
    person = UserFactory(company=company)
    unknown = error_of(caller.patch(f"{URL}/{person.pk}", {"manager_id": 999999}, format="json"))
    hidden = error_of(caller.patch(f"{URL}/{person.pk}", {"manager_id": theirs.pk}, format="json"))
    assert hidden == {"manager_id": [text.replace("999999", str(theirs.pk)) for text in unknown["manager_id"]]}
    assert "manager_id" in error_of(caller.post(URL, new_user_body(manager_id=theirs.pk), format="json"))
    with pytest.raises(ValidationError) as refused:
        services.user_update(actor=caller_user, user=person, data={"manager": theirs})
    assert refused.value.message_dict == {"manager_id": [services.MANAGER_NOT_FOUND]}
    person.refresh_from_db()
    assert person.manager_id is None
    mine = UserFactory(company=company)
    assert caller.patch(f"{URL}/{person.pk}", {"manager_id": mine.pk}, format="json").json()["status"] == "success"


def test_the_service_checks_what_the_serializer_does_not(superuser, boss):
    """The import and the admin call the services without the API's serializer."""
    person = services.user_create(actor=superuser, data={"username": "lin", "manager": boss})
    assert person.manager == boss
    with pytest.raises(ValidationError) as refused:
        services.user_update(actor=superuser, user=boss, data={"manager": person})
    assert refused.value.message_dict == {"manager_id": [services.MANAGER_LOOP]}
    with pytest.raises(ValidationError) as refused:
        services.user_update(actor=superuser, user=person, data={"manager": person})
    assert refused.value.message_dict == {"manager_id": [services.OWN_MANAGER]}


def test_the_import_sets_managers_unlogged_with_the_same_checks(fmcs_on, company, other_company):
    """The Snipe-IT import (issue 31) writes every user first, then their managers through ``user_update`` with its
    row-less super user actor and ``log=False`` (Snipe-IT's history is imported instead)."""
    from inventory.snipeit.importer import IMPORT_ACTOR

    boss = UserFactory(company=other_company)
    person = UserFactory(company=company)
    services.user_update(actor=IMPORT_ACTOR, user=person, data={"manager": boss}, log=False)
    person.refresh_from_db()
    assert person.manager == boss and not ActionLog.objects.filter(item_type="user").exists()
    with pytest.raises(ValidationError) as refused:
        services.user_update(actor=IMPORT_ACTOR, user=boss, data={"manager": person}, log=False)
    assert refused.value.message_dict == {"manager_id": [services.MANAGER_LOOP]}


def test_a_manager_of_live_users_cannot_be_deleted(token_client, boss):
    """Snipe-IT's DeleteUserRequest ``managed_users``; a deleted report does not count."""
    report = UserFactory(manager=boss)
    UserFactory(manager=boss, deleted_at=timezone.now())
    body = error_of(token_client.delete(f"{URL}/{boss.pk}"))
    assert body == {"managed_users": ["This user still manages another user. Please select another manager for "
                                      "that user first."]}
    report.manager = None
    report.save()
    assert token_client.delete(f"{URL}/{boss.pk}").json()["status"] == "success"


# --- the list ---------------------------------------------------------------------------------------------------


def test_filter_and_sort_by_manager(token_client):
    alan = UserFactory(first_name="Alan", last_name="Turing")
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    a = UserFactory(manager=grace)
    b = UserFactory(manager=alan)
    ids = lambda **params: [r["id"] for r in token_client.get(URL, params).json()["rows"]]  # noqa: E731
    assert ids(manager_id=grace.pk) == [a.pk]
    assert ids(manager_id=alan.pk) == [b.pk]
    assert ids(manager_id=999999) == []
    ordered = [i for i in ids(sort="manager", order="asc", limit=500) if i in (a.pk, b.pk)]
    assert ordered == [b.pk, a.pk]  # Alan before Grace


def test_the_list_reads_managers_in_the_same_queries(token_client):
    def make(n: int) -> None:
        for _ in range(n):
            company = CompanyFactory()
            UserFactory(company=company, manager=UserFactory(company=company), location=LocationFactory(),
                        department=DepartmentFactory(company=company))

    make(3)
    token_client.get(URL)  # warm-up
    with CaptureQueriesContext(connection) as few:
        token_client.get(URL, {"limit": 500})
    make(20)
    with CaptureQueriesContext(connection) as many:
        rows = token_client.get(URL, {"limit": 500}).json()["rows"]
    assert sum(1 for r in rows if r["manager"]) == 23
    assert len(many.captured_queries) == len(few.captured_queries)


# --- the admin --------------------------------------------------------------------------------------------------


def test_the_user_admin_sets_the_manager_through_the_service(super_client, boss):
    person = UserFactory()
    url = f"/admin/accounts/user/{person.pk}/change/"
    form = super_client.get(url).context["adminform"].form
    assert isinstance(form.fields["manager"].widget.widget, AutocompleteSelect)

    def post(manager: int | str):
        data = {name: value for name, value in form.initial.items()
                if value is not None and name not in {"password", "permissions", "last_login", "created_at",
                                                      "deleted_at"}}
        data.update({"manager": manager, "groups": []})
        return super_client.post(url, data)

    response = post(boss.pk)
    assert response.status_code == 302, response.context["adminform"].form.errors
    person.refresh_from_db()
    assert person.manager == boss
    log = ActionLog.objects.get(item_type="user", item_id=person.pk, action_type="update")
    assert log.log_meta == {"manager_id": {"old": None, "new": boss.pk}}
    response = post(person.pk)  # oneself: the service's words, under the field
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["manager"] == [services.OWN_MANAGER]


# --- concurrency (PostgreSQL) -----------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_crossing_changes_never_make_a_loop(round_):
    """A gets manager B while B gets manager A, at the same moment: each alone passes the loop check, so the changes
    are serialised (one advisory lock): one wins, the other is refused as a loop, nobody answers an error page."""
    from tests.inventory.test_concurrency import clients, run_together

    a, b = UserFactory(), UserFactory()
    first, second = clients(2)
    results = run_together([
        lambda: first.patch(f"{URL}/{a.pk}", {"manager_id": b.pk}, format="json"),
        lambda: second.patch(f"{URL}/{b.pk}", {"manager_id": a.pk}, format="json"),
    ])
    assert all(not isinstance(r, Exception) and r.status_code == 200 for r in results), results
    statuses = sorted(r.json()["status"] for r in results)
    assert statuses == ["error", "success"], [r.json() for r in results]
    refused = next(r.json() for r in results if r.json()["status"] == "error")
    assert refused["messages"] == {"manager_id": [services.MANAGER_LOOP]}
    a.refresh_from_db(), b.refresh_from_db()
    assert (a.manager_id, b.manager_id) in {(b.pk, None), (None, a.pk)}


def test_many_managers_at_once_keep_the_same_rules():
    """``user_managers_set`` (the Snipe-IT import's path): the links of one call are judged together, in order,
    with the stored chains: oneself, a loop made by two links of the call, a deleted manager and a deleted user are
    refused with ``user_update``'s messages; the rest is written."""
    boss, a, b, c, d = (UserFactory() for _ in range(5))
    gone = UserFactory(deleted_at=timezone.now())
    ghost = UserFactory(deleted_at=timezone.now())
    refused = services.user_managers_set(actor=UserFactory(superuser=True),
                                links={a.pk: boss.pk, b.pk: a.pk, boss.pk: b.pk, c.pk: c.pk, d.pk: gone.pk,
                                       ghost.pk: boss.pk})
    assert refused == {boss.pk: services.MANAGER_LOOP, c.pk: services.OWN_MANAGER, d.pk: services.MANAGER_NOT_FOUND,
                       ghost.pk: services.USER_DELETED}
    managers = dict(User.objects.filter(pk__in=[boss.pk, a.pk, b.pk, c.pk, d.pk]).values_list("pk", "manager_id"))
    assert managers == {boss.pk: None, a.pk: boss.pk, b.pk: a.pk, c.pk: None, d.pk: None}
