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


def test_only_super_users_sign_in_to_the_admin(client):
    staffless = UserFactory(permissions={"admin": 1})
    client.force_login(staffless)
    assert client.get("/admin/").status_code == 302  # back to the login page
