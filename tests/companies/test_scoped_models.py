"""Separation cannot be forgotten: every model with a ``company`` goes through CompanyScopedQuerySet (rule 6), and
every CompanyScopedModel is counted by the company record and guarded by rule 9."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import models
from django.test.utils import isolate_apps

from assetsvc.scoping import ScopedQuerySet
from companies.checks import UNSCOPED_COMPANY_MODELS, check_company_scoping, unscoped_company_models
from companies.counts import company_counts
from companies.models import CompanyScopedModel


def test_every_model_with_a_company_is_scoped_or_exempt_with_a_reason():
    assert unscoped_company_models() == []
    assert check_company_scoping() == []
    assert check_company_scoping(app_configs=list(apps.get_app_configs())) == []
    for label, reason in UNSCOPED_COMPANY_MODELS.items():
        assert apps.get_model(label) is not None and len(reason) > 20


def test_assets_and_users_are_scoped():
    for label in ("inventory.Asset", "accounts.User", "activity.ActionLog"):
        assert isinstance(apps.get_model(label)._default_manager.all(), ScopedQuerySet), label


def test_every_company_scoped_model_is_counted_by_the_company_record():
    counted = {kind.model_label for kind in company_counts() if kind.model_label}
    subclasses = {m._meta.label for m in apps.get_models() if issubclass(m, CompanyScopedModel)}
    assert subclasses <= counted, "register the new kind with companies.counts.register_company_count"


@isolate_apps("companies")
def test_the_check_catches_a_model_that_forgot_the_scoped_manager():
    class Forgetful(models.Model):  # noqa: DJ008
        company = models.ForeignKey("companies.Company", null=True, on_delete=models.PROTECT, related_name="+")

        class Meta:
            app_label = "companies"

    class Inheriting(CompanyScopedModel):
        class Meta:
            app_label = "companies"

    assert unscoped_company_models([Forgetful, Inheriting]) == ["companies.Forgetful"]
    assert isinstance(Inheriting._default_manager.all(), ScopedQuerySet)


@pytest.mark.django_db
def test_a_scoped_view_refuses_an_unscoped_company_model():
    from django.core.exceptions import ImproperlyConfigured
    from rest_framework.test import APIRequestFactory

    from assetsvc.api.viewsets import ApiViewSet
    from tests.factories import UserFactory

    class LocationLeak(ApiViewSet):  # Location has a company but is deliberately not scoped (exempt)
        from inventory.models import Location

        queryset = Location.objects.all()
        permission_section = None

    view = LocationLeak()
    view.request = APIRequestFactory().get("/")
    view.request.user = UserFactory()
    view.format_kwarg = None
    with pytest.raises(ImproperlyConfigured):
        view.get_queryset()
