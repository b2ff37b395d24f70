"""Every admin page an administrator can reach renders (the Django admin is the settings UI)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.factories import AssetFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def test_every_changelist_add_and_change_page_renders(admin_client, company):
    AssetFactory(company=company, rtd_location=LocationFactory())
    UserFactory(company=company)
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        response = admin_client.get(changelist, follow=True)
        assert response.status_code == 200, changelist
        if model_admin.has_add_permission(response.wsgi_request):
            add = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
            assert admin_client.get(add).status_code == 200, add
        obj = model._default_manager.first()
        if obj is not None:
            change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
            assert admin_client.get(change).status_code == 200, change


def test_only_super_users_and_administrators_sign_in_to_the_admin(client):
    staffless = UserFactory(permissions={"assets.view": 1, "users.edit": 1})
    client.force_login(staffless)
    assert client.get("/admin/").status_code == 302  # back to the login page
    client.force_login(UserFactory(permissions={"admin": 1}))
    assert client.get("/admin/").status_code == 200


def test_every_page_answers_an_administrator_with_a_company_200_or_403(client, company, fmcs_on):
    """An administrator who is not a super user (docs/decisions.md): every page they may see renders, the others are
    refused; none fails."""
    AssetFactory(company=company, rtd_location=LocationFactory())
    UserFactory(company=company)
    client.force_login(UserFactory(company=company, permissions={"admin": 1}))
    for model in admin.site._registry:
        opts = model._meta
        allowed = (opts.app_label in ("inventory", "activity") or (opts.app_label, opts.model_name) in {
            ("accounts", "user"), ("accounts", "department"), ("notifications", "outboundmail")}) and (
            (opts.app_label, opts.model_name) != ("inventory", "snipeitimport"))  # super users only
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        response = client.get(changelist, follow=True)
        assert response.status_code == (200 if allowed else 403), changelist
        add = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
        assert client.get(add).status_code in ((200, 403) if allowed else (403,)), add
        obj = model._default_manager.first()
        if obj is not None:
            change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
            assert client.get(change).status_code == (200 if allowed else 403), change
