"""Company separation (rules 1 to 9) at the layer that decides it: ``companies.querysets``, ``assetsvc.api.fields``,
``companies.services`` and the permission evaluation of ``accounts.permissions``. Each test fails when one condition
is flipped, dropped, or its ``and``/``or`` swapped (docs/testing.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts import permissions
from activity.models import ActionLog
from assetsvc.api.fields import visible_reference
from companies import querysets, services
from companies.models import Company
from inventory.models import Asset
from tests.factories import AssetFactory, CompanyFactory, PermissionGroupFactory, UserFactory
from tests.rules.helpers import field_error, refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_assets(company, other_company):
    return {
        "a": AssetFactory(company=company),
        "b": AssetFactory(company=other_company),
        "none": AssetFactory(company=None),
    }


def visible(user) -> set[int]:
    return set(Asset.objects.restrict(user).values_list("pk", flat=True))


# --- restrict() -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("separation", [False, True], ids=["separation-off", "separation-on"])
def test_restrict_gives_nobody_anything(site_settings, three_assets, separation):
    site_settings.full_multiple_companies_support = separation
    site_settings.save()
    assert visible(AnonymousUser()) == set()
    assert visible(None) == set()


def test_restrict_with_separation_off_gives_everyone_everything(site_settings, three_assets, company):
    everything = {a.pk for a in three_assets.values()}
    assert visible(UserFactory(company=company)) == everything
    assert visible(UserFactory()) == everything


def test_restrict_with_separation_on(fmcs_on, three_assets, company):
    everything = {a.pk for a in three_assets.values()}
    assert visible(UserFactory(company=company)) == {three_assets["a"].pk}
    assert visible(UserFactory(superuser=True, company=company)) == everything  # rule 2
    assert visible(UserFactory()) == everything  # rule 3: no company


# --- the rule functions -------------------------------------------------------------------------------------------


def test_separation_applies_to(site_settings, company):
    member, boss, loner = UserFactory(company=company), UserFactory(superuser=True, company=company), UserFactory()
    for user in (member, boss, loner, AnonymousUser(), None):
        assert querysets.separation_applies_to(user) is False  # rule 1
    site_settings.full_multiple_companies_support = True
    site_settings.save()
    assert querysets.separation_applies_to(member) is True
    assert querysets.separation_applies_to(boss) is False
    assert querysets.separation_applies_to(loner) is False
    assert querysets.separation_applies_to(AnonymousUser()) is True
    assert querysets.separation_applies_to(None) is True


def test_may_manage_user_companies(site_settings, company):
    member, boss, loner = UserFactory(company=company), UserFactory(superuser=True, company=company), UserFactory()
    assert querysets.may_manage_user_companies(member) is True  # separation off
    assert querysets.may_manage_user_companies(AnonymousUser()) is False
    assert querysets.may_manage_user_companies(None) is False
    site_settings.full_multiple_companies_support = True
    site_settings.save()
    assert querysets.may_manage_user_companies(member) is False
    assert querysets.may_manage_user_companies(boss) is True
    assert querysets.may_manage_user_companies(loner) is True
    assert querysets.may_manage_user_companies(AnonymousUser()) is False


def test_caller_chooses_company_and_new_item_company(site_settings, company):
    member, boss, loner = UserFactory(company=company), UserFactory(superuser=True, company=company), UserFactory()
    assert querysets.caller_chooses_company(member) is True
    assert querysets.company_id_for_new_item(member, 99) == 99
    site_settings.full_multiple_companies_support = True
    site_settings.save()
    assert querysets.caller_chooses_company(boss) is True
    assert not querysets.caller_chooses_company(member)
    assert not querysets.caller_chooses_company(loner)
    assert not querysets.caller_chooses_company(AnonymousUser())
    assert not querysets.caller_chooses_company(None)
    assert querysets.company_id_for_new_item(boss, 99) == 99
    assert querysets.company_id_for_new_item(member, 99) == company.pk
    assert querysets.company_id_for_new_item(loner, 99) is None
    assert querysets.company_id_for_new_item(None, 99) is None


# --- visibility of nested references ------------------------------------------------------------------------------


def test_limiting_company_id(site_settings, company):
    member = UserFactory(company=company)
    assert querysets.limiting_company_id(member) is None  # separation off
    site_settings.full_multiple_companies_support = True
    site_settings.save()
    assert querysets.limiting_company_id(member) == company.pk
    assert querysets.limiting_company_id(UserFactory(superuser=True, company=company)) is None
    assert querysets.limiting_company_id(UserFactory()) is None
    assert querysets.limiting_company_id(AnonymousUser()) is None
    assert querysets.limiting_company_id(None) is None


def test_visible_reference(company, other_company):
    """The one rule for references (assetsvc.api.fields.visible_reference; companies.visibility.hidden_from before)."""
    theirs, mine, nobodys = UserFactory(company=other_company), UserFactory(company=company), UserFactory()
    assert visible_reference(theirs, company.pk) is None
    assert visible_reference(other_company, company.pk, kind="company") is None
    assert visible_reference(mine, company.pk) is mine
    assert visible_reference(company, company.pk, kind="company") is company
    assert visible_reference(nobodys, company.pk) is nobodys
    assert visible_reference(None, company.pk) is None
    assert visible_reference(theirs, None) is theirs
    assert visible_reference(other_company, None, kind="company") is other_company


# --- companies.services ---------------------------------------------------------------------------------------------


def test_company_update_changes_and_logs_only_writable_changed_fields(superuser):
    company = CompanyFactory(name="Acme", phone="5551111", notes="keep")
    services.company_update(actor=superuser, company=company, data={"name": "Acme", "phone": "5551111"})
    assert not ActionLog.objects.exists()
    services.company_update(actor=superuser, company=company,
                            data={"phone": "5552222", "notes": None, "id": 999, "created_by": None})
    company.refresh_from_db()
    assert (company.pk != 999, company.phone, company.notes) == (True, "5552222", "")
    log = ActionLog.objects.get()
    assert log.log_meta == {"phone": {"old": "5551111", "new": "5552222"}, "notes": {"old": "keep", "new": ""}}
    assert log.company_id == company.pk and log.item_type == "company"


def test_company_update_skips_unknown_fields_wherever_they_are(superuser):
    company = CompanyFactory(name="Acme")
    services.company_update(actor=superuser, company=company, data={"id": 5, "name": "Acme 2", "fax": "5553333"})
    company.refresh_from_db()
    assert (company.name, company.fax) == ("Acme 2", "5553333")


def test_company_update_and_delete_of_a_vanished_company(superuser):
    gone = Company(pk=123456, name="gone")
    refused(lambda: services.company_update(actor=superuser, company=gone, data={"name": "x"}), "not_found")
    refused(lambda: services.company_delete(actor=superuser, company=gone), "not_found")


def test_company_delete_rule_9(superuser):
    busy = CompanyFactory()
    AssetFactory(company=busy)
    refused(lambda: services.company_delete(actor=superuser, company=busy), "company_not_empty")
    assert Company.objects.filter(pk=busy.pk).exists()
    empty = CompanyFactory(name="Empty")
    services.company_delete(actor=superuser, company=empty)
    assert not Company.objects.filter(pk=empty.pk).exists()
    log = ActionLog.objects.get(action_type="delete")
    assert log.company_id is None and log.item_id == empty.pk and log.log_meta == {"name": {"old": "Empty",
                                                                                            "new": None}}


# --- accounts.permissions -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [(True, 1), (False, 0), (1, 1), (-1, -1), (0, 0), (2, None), ("1", 1), (" -1 ", -1), ("0", 0), ("yes", None),
     (None, None), (1.0, None)],
)
def test_normalize_permission_value(raw, value):
    assert permissions.normalize_permission_value(raw) == value


def test_has_access_own_group_deny_and_admin():
    group = PermissionGroupFactory(permissions={"assets.view": 1, "reports.view": "1"})
    user = UserFactory(permissions={"assets.edit": 1, "reports.view": -1})
    user.groups.add(group)
    assert permissions.has_access(user, "assets.edit") is True  # own grant
    assert permissions.has_access(user, "assets.view") is True  # group grant
    assert permissions.has_access(user, "reports.view") is False  # own -1 beats the group
    assert permissions.has_access(user, "assets.delete") is False
    admin = UserFactory(permissions={"admin": 1})
    assert permissions.has_access(admin, "assets.delete") is True  # admin passes item keys
    assert permissions.has_access(admin, "reports.view") is False  # but not gate keys
    boss = UserFactory(permissions={"superuser": "1"})
    assert permissions.has_access(boss, "reports.view") is True
    assert permissions.has_access(AnonymousUser(), "assets.view") is False
    assert permissions.has_access(None, "assets.view") is False


def test_group_grants_superuser_and_deny_in_group_does_not_deny():
    grants = PermissionGroupFactory(permissions={"superuser": 1})
    denies = PermissionGroupFactory(permissions={"assets.view": -1})
    user = UserFactory(permissions={"assets.view": 1})
    user.groups.add(denies)
    assert permissions.has_access(user, "assets.view") is True
    assert permissions.is_superuser(user) is False
    user.groups.add(grants)
    permissions.forget_permissions(user)
    assert permissions.is_superuser(user) is True
    assert permissions.is_superuser(AnonymousUser()) is False
    assert permissions.is_superuser(UserFactory.build(permissions={"superuser": 1})) is False  # not saved
    assert permissions.is_superuser(None) is False


def test_permission_maps_are_cached_until_forgotten():
    user = UserFactory(permissions={"assets.view": 1})
    assert permissions.has_access(user, "assets.view") is True
    user.permissions = {}
    assert permissions.has_access(user, "assets.view") is True  # cached
    permissions.forget_permissions(user)
    assert permissions.has_access(user, "assets.view") is False


def test_company_names_are_unique_in_any_case(superuser):
    CompanyFactory(name="Acme")
    taken = ["The name has already been taken."]
    assert field_error(lambda: services.company_create(actor=superuser, data={"name": "ACME"}), "name") == taken
    other = CompanyFactory(name="Other")
    assert field_error(lambda: services.company_update(actor=superuser, company=other, data={"name": "acme"}),
                       "name") == taken
    assert Company.objects.count() == 2 and not ActionLog.objects.exists()
