"""``User.is_staff``/``has_perm``/``has_module_perms``: who signs in to the Django admin and what an administrator who
is not a super user may do there (``accounts.permissions.ADMIN_SITE_RIGHTS``; the pages themselves are driven in
``tests/inventory/assets/test_admin_company_admins.py``)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.factories import PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("perm", "allowed"), [
    ("inventory.view_asset", True), ("inventory.add_asset", True), ("inventory.change_licenseseat", True),
    ("inventory.delete_statuslabel", True), ("activity.view_actionlog", True), ("activity.change_actionlog", False),
    ("activity.delete_actionlog", False), ("accounts.view_user", True), ("accounts.add_user", False),
    ("accounts.change_user", False), ("accounts.delete_user", False), ("accounts.view_permissiongroup", False),
    ("accounts.view_personalaccesstoken", False), ("accounts.view_department", True),
    ("accounts.add_department", True), ("accounts.change_department", True), ("accounts.delete_department", True),
    ("accounts.add_personalaccesstoken", False),
    ("companies.view_company", False), ("assetsvc.view_sitesettings", False),
    ("assetsvc.change_sitesettings", False), ("notifications.view_webhookdelivery", False),
    ("auth.view_group", False), ("oauth2_provider.view_accesstoken", False), ("inventory", False),
    ("inventory.publish_asset", False), ("", False),
])
def test_what_an_administrator_may_do(perm, allowed):
    admin = UserFactory(permissions={"admin": 1})
    assert admin.is_staff and not admin.is_superuser
    assert admin.has_perm(perm) is allowed
    assert UserFactory(superuser=True).has_perm(perm) is True


def test_apps_shown_to_an_administrator():
    admin = UserFactory(permissions={"admin": 1})
    assert [label for label in ("inventory", "activity", "accounts", "companies", "assetsvc", "notifications")
            if admin.has_module_perms(label)] == ["inventory", "activity", "accounts", "notifications"]
    # Of notifications, only the mail log (issue 29), read-only; never the webhook delivery log.
    assert admin.has_perm("notifications.view_outboundmail")
    assert not admin.has_perm("notifications.view_webhookdelivery")
    assert admin.has_perms(["inventory.view_asset", "accounts.view_user"])
    assert not admin.has_perms(["inventory.view_asset", "accounts.change_user"])


@pytest.mark.parametrize("fields", [
    {"permissions": {"assets.view": 1, "assets.edit": 1, "users.edit": 1}},
    {"permissions": {"admin": 1}, "is_active": False},
    {"permissions": {"admin": 1}, "deleted_at": timezone.now()},
    {"permissions": {"superuser": 1}, "is_active": False},
    {"permissions": {"admin": -1}},
])
def test_nobody_else_is_staff_or_has_any_admin_right(fields):
    user = UserFactory(**fields)
    assert not user.is_staff
    assert not user.has_perm("inventory.view_asset") and not user.has_module_perms("inventory")


def test_admin_from_a_group_counts_and_an_own_deny_beats_it():
    group = PermissionGroupFactory(permissions={"admin": 1})
    member, denied = UserFactory(), UserFactory(permissions={"admin": -1})
    member.groups.add(group)
    denied.groups.add(group)
    assert member.is_staff and member.has_perm("inventory.add_asset")
    assert not denied.is_staff and not denied.has_perm("inventory.view_asset")
