"""Imports from Snipe-IT in the back office (issue 31): super users read each run and its closing report; anyone
else, an ``admin`` included, is refused; nobody adds, changes or deletes a run there."""

from __future__ import annotations

import pytest
from django.urls import reverse

from inventory.models import SnipeitImport, SnipeitRecord
from inventory.snipeit.report import ImportReport
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run() -> SnipeitImport:
    report = ImportReport()
    report.read("asset", 3)
    report.imported("asset", 2)
    report.skip("asset", 'asset 7 "A-7"', "model_id: The selected model id is invalid.", 7)
    report.note("user 12: its manager, user 7, is not kept: You cannot be your own manager")
    run = SnipeitImport.objects.create(source_url="https://snipe.example.com", state="finished",
                                       options={"timezone": "UTC"}, report=report.as_dict())
    SnipeitRecord.objects.create(run=run, kind="asset", snipeit_id=5, our_id=5)
    return run


def test_a_super_user_reads_each_run_and_its_report(super_client, finished_run):
    listing = super_client.get(reverse("admin:inventory_snipeitimport_changelist"))
    assert listing.status_code == 200
    assert "https://snipe.example.com" in listing.content.decode()
    page = super_client.get(reverse("admin:inventory_snipeitimport_change", args=[finished_run.pk])).content.decode()
    assert "model_id: The selected model id is invalid." in page and "is not kept" in page
    assert super_client.get(reverse("admin:inventory_snipeitimport_add")).status_code == 403
    assert super_client.post(reverse("admin:inventory_snipeitimport_delete", args=[finished_run.pk]),
                             {"post": "yes"}).status_code == 403
    assert SnipeitImport.objects.filter(pk=finished_run.pk).exists()


def test_an_admin_who_is_not_a_super_user_sees_no_import(signed_in, finished_run):
    client = signed_in(UserFactory(permissions={"admin": 1}))
    assert client.get(reverse("admin:inventory_snipeitimport_changelist")).status_code == 403
    assert client.get(reverse("admin:inventory_snipeitimport_change", args=[finished_run.pk])).status_code == 403
    assert "snipeitimport" not in client.get(reverse("admin:index")).content.decode()
