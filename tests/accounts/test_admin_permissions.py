"""Issue 28 item 4: permissions as Snipe-IT's table in the admin. A user page offers Grant / Deny / Inherit per key,
grouped by area with Snipe-IT's names, and says what the user's groups already give; a group page has one Grant box
per key; no page shows the stored JSON. Locked keys are disabled, and a tampered post is still refused by the
service. Driven through the admin pages with Django's test client."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.admin_permissions import AREAS, LABELS, group_sources, locked_keys
from accounts.models import PermissionGroup
from accounts.permissions import PERMISSION_KEYS, PRIVILEGED_KEYS
from activity.models import ActionLog
from tests.factories import PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db



def user_page(pk: int) -> str:
    return f"/admin/accounts/user/{pk}/change/"


def group_page(pk: int) -> str:
    return f"/admin/accounts/permissiongroup/{pk}/change/"


def posted_user(user, **permissions: str) -> dict:
    """The user form as the browser posts it: the person's fields unchanged, the given ``permissions[<key>]``."""
    data = {"username": user.username, "first_name": user.first_name, "last_name": user.last_name,
            "email": user.email, "employee_num": user.employee_num or "", "jobtitle": user.jobtitle or "",
            "phone": user.phone or "", "notes": user.notes or "", "company": user.company_id or "",
            "department": user.department_id or "", "location": user.location_id or "",
            "groups": list(user.groups.values_list("pk", flat=True))}
    if user.is_active:
        data["is_active"] = "on"
    data.update({f"permissions[{key}]": value for key, value in permissions.items()})
    return data


def form_errors(response) -> str:
    form = response.context["adminform"].form
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def input_tag(content: str, key: str, value: str) -> str:
    match = re.search(rf'<input[^>]*name="permissions\[{re.escape(key)}\]"[^>]*value="{value}"[^>]*>', content)
    assert match, (key, value)
    return match.group(0)


def test_the_table_covers_every_key_once_with_snipe_it_area_names():
    keys = [row.key for _area, rows in AREAS for row in rows]
    assert sorted(keys) == sorted(PERMISSION_KEYS) and len(keys) == len(set(keys))
    areas = [area for area, _rows in AREAS]
    assert areas[:5] == ["Global", "Admin", "CSV Import", "Reports", "Assets"] and areas[-1] == "Self"
    assert {"Status Labels", "Custom Fields", "Maintenances", "Departments"} <= set(areas)
    assert LABELS["licenses.keys"] == "Licenses: View License Keys"
    assert LABELS["self.checkout_assets"] == "Self: Self-Checkout"


def test_user_page_is_a_grant_deny_inherit_table_with_what_groups_give(super_client):
    helpdesk = PermissionGroupFactory(name="Helpdesk", permissions={"assets.view": 1, "assets.checkout": "1"})
    leads = PermissionGroupFactory(name="Leads", permissions={"admin": 1})
    person = UserFactory(permissions={"reports.view": 1, "assets.checkout": -1})
    person.groups.add(helpdesk, leads)
    response = super_client.get(user_page(person.pk))
    assert response.status_code == 200
    content = response.content.decode()
    assert '<textarea name="permissions"' not in content and "{&quot;" not in content  # no JSON
    for area in ("Global", "Assets", "Status Labels", "Self"):
        assert f'scope="colgroup">{area}</th>' in content
    assert "checked" in input_tag(content, "reports.view", "1")
    assert "checked" in input_tag(content, "assets.checkout", "-1")
    assert "checked" in input_tag(content, "assets.view", "0")  # own: inherit
    assert "Granted by group Helpdesk" in content
    assert "Granted by group Leads (Admin)" in content
    sources = group_sources(person)
    assert sources["assets.view"] == ["Granted by group Helpdesk", "Granted by group Leads (Admin)"]
    assert "reports.view" not in sources  # admin does not pass Gate abilities
    assert "assets.view.encrypted_custom_fields" not in sources


def test_one_granted_key_is_stored_as_exactly_that_key(super_client):
    person = UserFactory()
    response = super_client.post(user_page(person.pk), posted_user(person, **{"assets.view": "1", "kits.view": "0"}))
    assert response.status_code == 302, form_errors(response)
    person.refresh_from_db()
    assert person.permissions == {"assets.view": 1}
    assert set(ActionLog.objects.get(item_type="user", item_id=person.pk).log_meta) == {"permissions"}


def test_deny_and_inherit_are_stored_as_minus_one_and_absent(super_client):
    person = UserFactory(permissions={"assets.view": 1, "users.view": 1})
    response = super_client.post(user_page(person.pk), posted_user(person, **{"assets.view": "-1",
                                                                               "users.view": "0"}))
    assert response.status_code == 302, form_errors(response)
    person.refresh_from_db()
    assert person.permissions == {"assets.view": -1}


def test_an_unchanged_table_writes_nothing(super_client):
    person = UserFactory(permissions={"assets.view": 1, "kits.view": 0})
    response = super_client.post(user_page(person.pk), posted_user(person, **{"assets.view": "1"}))
    assert response.status_code == 302, form_errors(response)
    person.refresh_from_db()
    assert person.permissions == {"assets.view": 1, "kits.view": 0} and not ActionLog.objects.exists()


def test_own_page_is_disabled_and_a_tampered_self_raise_is_refused(super_client, superuser):
    content = super_client.get(user_page(superuser.pk)).content.decode()
    assert "disabled" in input_tag(content, "admin", "1") and "disabled" in input_tag(content, "assets.view", "1")
    assert "checked" in input_tag(content, "superuser", "1")
    # the browser posts no disabled input: the stored keys stay as they are
    data = {**posted_user(superuser), "jobtitle": "Boss"}
    response = super_client.post(user_page(superuser.pk), data)
    assert response.status_code == 302, form_errors(response)
    superuser.refresh_from_db()
    assert superuser.permissions == {"superuser": 1} and superuser.jobtitle == "Boss"
    ActionLog.objects.all().delete()
    # a hand-made post for a disabled key reaches the service, which refuses it
    response = super_client.post(user_page(superuser.pk), posted_user(superuser, **{"admin": "1"}))
    assert response.status_code == 200 and "Insufficient permissions." in form_errors(response)
    superuser.refresh_from_db()
    assert superuser.permissions == {"superuser": 1} and not ActionLog.objects.exists()


def test_tampered_values_and_keys_are_refused(super_client):
    person = UserFactory(permissions={"assets.view": 1})
    response = super_client.post(user_page(person.pk), posted_user(person, **{"assets.view": "7"}))
    assert response.status_code == 200 and 'The permission "assets.view" must be 1, 0 or -1.' in form_errors(response)
    response = super_client.post(user_page(person.pk), posted_user(person, **{"root": "1"}))
    assert response.status_code == 200 and 'The permission "root" does not exist.' in form_errors(response)
    person.refresh_from_db()
    assert person.permissions == {"assets.view": 1}


def test_keys_an_editor_may_not_grant_are_locked():
    everything = frozenset(PERMISSION_KEYS)
    boss, helper = UserFactory(superuser=True), UserFactory(permissions={"admin": 1, "reports.view": 1})
    target = UserFactory()
    assert locked_keys(actor=boss, target=target) == frozenset()
    assert locked_keys(actor=boss, target=boss) == everything
    locked = locked_keys(actor=helper, target=target)
    assert set(PRIVILEGED_KEYS) <= locked
    assert "assets.view.encrypted_custom_fields" in locked and "import" in locked and "self.api" in locked
    assert "assets.edit" not in locked and "reports.view" not in locked
    assert locked_keys(actor=helper, target=None) == locked  # a group page: the same rule


def test_a_read_only_user_page_shows_the_table_disabled_not_json():
    person = UserFactory(permissions={"assets.view": 1})
    person.groups.add(PermissionGroupFactory(name="Helpdesk", permissions={"kits.view": 1}))
    client = Client()
    client.force_login(UserFactory(permissions={"admin": 1}))
    content = client.get(user_page(person.pk)).content.decode()
    assert 'name="permissions' not in content and "{&quot;" not in content
    assert 'class="permission-table"' in content and "Granted by group Helpdesk" in content
    assert re.search(r'aria-label="Assets: View: Grant"[^>]* checked disabled>', content)


def test_group_page_has_one_grant_box_per_key(super_client):
    group = PermissionGroupFactory(name="Helpdesk", permissions={"assets.view": 1, "kits.view": -1})
    content = super_client.get(group_page(group.pk)).content.decode()
    assert '<textarea name="permissions"' not in content and "Inherit" not in content
    assert 'type="checkbox"' in input_tag(content, "assets.view", "1") and "checked" in input_tag(
        content, "assets.view", "1")
    assert "checked" not in input_tag(content, "kits.view", "1")
    response = super_client.post(group_page(group.pk), {"name": "Helpdesk", "notes": "",
                                                        "permissions[assets.view]": "1",
                                                        "permissions[users.view]": "1"})
    assert response.status_code == 302, form_errors(response)
    group.refresh_from_db()
    assert group.permissions == {"assets.view": 1, "users.view": 1}


def test_an_untouched_group_page_keeps_a_stored_deny(super_client):
    group = PermissionGroupFactory(name="Helpdesk", permissions={"assets.view": 1, "kits.view": -1})
    response = super_client.post(group_page(group.pk), {"name": "Helpdesk", "notes": "changed",
                                                        "permissions[assets.view]": "1"})
    assert response.status_code == 302, form_errors(response)
    group.refresh_from_db()
    assert group.permissions == {"assets.view": 1, "kits.view": -1} and group.notes == "changed"


def test_a_group_with_super_user_shows_on_every_key():
    person = UserFactory()
    person.groups.add(PermissionGroupFactory(name="Root", permissions={"superuser": "1"}))
    sources = group_sources(person)
    assert sources["superuser"] == ["Granted by group Root"]
    root = ["Granted by group Root (Super User)"]
    assert sources["self.api"] == sources["assets.view.encrypted_custom_fields"] == root


def test_group_add_with_boxes(super_client):
    response = super_client.post("/admin/accounts/permissiongroup/add/", {"name": "Auditors", "notes": "",
                                                                         "permissions[assets.audit]": "1"})
    assert response.status_code == 302, form_errors(response)
    assert PermissionGroup.objects.get(name="Auditors").permissions == {"assets.audit": 1}
