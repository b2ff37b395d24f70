"""``users_create_many``: ``user_create``'s guards for many users at once (issue 31's batched users)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.models import User
from accounts.services import users_create_many
from tests.factories import DepartmentFactory, PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_limited_caller_gets_the_same_refusals_as_one_by_one(fmcs_on, company, other_company):
    caller = UserFactory(company=company, permissions={"users.create": 1, "assets.view": 1})
    boss = UserFactory(company=company, username="boss")
    group = PermissionGroupFactory()
    theirs = DepartmentFactory(company=other_company)
    created, refused = users_create_many(actor=caller, entries=[
        {"username": "ok", "company": other_company, "manager": boss},  # rule 8: another company is refused
        {"username": "own", "manager": boss, "permissions": {"assets.view": "1"}},
        {"username": "BOSS"},  # taken, case-insensitively
        {"username": "greedy", "permissions": {"licenses.view": "1"}},  # a key the caller lacks
        {"username": "grouped", "groups": [group]},  # only super users set groups
        {"username": "elsewhere", "department": theirs},  # rule 7 puts them in company A: R&D of B does not fit
    ])
    assert isinstance(refused[0], PermissionDenied) and isinstance(refused[3], PermissionDenied)
    assert isinstance(refused[4], PermissionDenied)
    assert refused[2].message_dict == {"username": ["The username must be unique."]}
    assert isinstance(refused[5], ValidationError) and "department_id" in refused[5].message_dict
    assert list(created) == [1]
    own = User.objects.get(username="own")
    assert (own.company_id, own.manager_id, own.permissions, own.has_usable_password()) == (
        company.pk, boss.pk, {"assets.view": 1}, False)


def test_ids_kept_deleted_users_and_a_manager_out_of_sight(fmcs_on, company, other_company, superuser):
    hidden = UserFactory(company=other_company)
    created, refused = users_create_many(actor=superuser, entries=[
        {"username": "kept", "pk": 5000, "groups": [PermissionGroupFactory()]},
        {"username": "KEPT", "pk": 5001, "deleted_at": "2024-01-01T00:00:00Z"},  # a deleted one may share it
        {"username": "managed", "manager": hidden.pk},  # a super user sees everyone
        {"username": "unknown", "manager": 987654},
    ])
    assert refused[3].message_dict == {"manager_id": ["The selected manager id is invalid."]}
    assert (created[0].pk, created[1].pk) == (5000, 5001)
    assert User.objects.get(pk=5001).deleted_at is not None and User.objects.get(pk=5000).groups.count() == 1
    assert User.objects.get(username="managed").manager_id == hidden.pk
