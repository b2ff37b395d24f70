"""Issue 28 item 8, the admin site itself: titled with ``SITE_NAME`` (header, browser title, index, login page), and
the internal tables (django-tasks' task results) listed for super users only, under "Internals", while a company
administrator gets 403 on their pages. Through Django's test client."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from assetsvc.admin_site import INTERNAL_APP_LABELS, InternalAdminMixin
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

TASKS = reverse("admin:django_tasks_database_dbtaskresult_changelist")



@pytest.fixture
def cadmin_client(company, signed_in) -> Client:
    return signed_in(UserFactory(username="cadmin", company=company, permissions={"admin": 1}))


def headings(html: str) -> list[str]:
    """The app captions of the index page, in order."""
    return re.findall(r'<caption>\s*<a [^>]*class="section"[^>]*>([^<]+)</a>', html)


def test_the_login_page_and_the_index_are_titled_with_the_default_site_name(super_client):
    login = Client().get(reverse("admin:login"))
    assert login.status_code == 200
    text = login.content.decode()
    assert "Django administration" not in text and "Django site admin" not in text
    assert "<title>Log in | Asset management</title>" in text
    assert '<a href="/admin/">Asset management</a>' in text

    index = super_client.get(reverse("admin:index"))
    assert index.status_code == 200
    text = index.content.decode()
    assert "<title>Asset management | Asset management</title>" in text
    assert "Django administration" not in text


def test_site_name_comes_from_the_setting(settings, super_client):
    settings.ASSETSVC = {**settings.ASSETSVC, "SITE_NAME": "Acme IT"}
    assert "<title>Log in | Acme IT</title>" in Client().get(reverse("admin:login")).content.decode()
    text = super_client.get(reverse("admin:inventory_asset_changelist")).content.decode()
    assert '<a href="/admin/">Acme IT</a>' in text and "| Acme IT</title>" in text


def test_a_super_user_finds_the_task_results_under_internals_last(super_client):
    response = super_client.get(reverse("admin:index"))
    assert response.status_code == 200
    shown = headings(response.content.decode())
    assert shown[-1] == "Internals"
    assert not any("tasks" in name.lower() for name in shown[:-1])
    internals = response.content.decode().split(">Internals</a>", 1)[1]
    assert TASKS in internals
    assert super_client.get(TASKS).status_code == 200


def test_a_company_administrator_neither_sees_nor_opens_the_internals(cadmin_client):
    response = cadmin_client.get(reverse("admin:index"))
    assert response.status_code == 200
    text = response.content.decode()
    assert "Internals" not in text and TASKS not in text
    assert "Assets" in text  # their own work is listed
    assert cadmin_client.get(TASKS).status_code == 403
    assert cadmin_client.get(reverse("admin:django_tasks_database_dbtaskresult_add")).status_code == 403


def test_every_registered_internal_table_is_super_user_only():
    """Whichever app registers a library's table (now or later), it is wrapped."""
    internal = [model for model in admin.site._registry if model._meta.app_label in INTERNAL_APP_LABELS]
    assert DBTaskResult in internal
    assert all(isinstance(admin.site._registry[model], InternalAdminMixin) for model in internal)
