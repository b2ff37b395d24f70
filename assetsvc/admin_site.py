"""The admin site every app registers on (``admin.site``, issue 28), installed by ``AssetsvcAdminConfig``: stock
Django admin with three changes, so no app's ``admin.site.register``/``unregister`` call changes.

- **Site name.** Header, browser title, index title and login page say ``SITE_NAME`` (read at call time, so a test's
  ``settings`` override shows), not "Django administration".
- **Internals.** The tables of libraries (django-tasks' task results, django-oauth-toolkit's rows if one is ever
  registered again) are super users' business: whatever admin registers them is wrapped in
  :class:`InternalAdminMixin` (every right needs a super user, so an administrator gets 403 on their pages), and the
  index and sidebar list them under one "Internals" heading, last.
- **Start page.** The index shows the panels the apps above register with :func:`register_index_panel` (inventory's
  dashboard, issue 28) above the app list; Django's "Recent actions" box (its own log, which the services do not
  write) is left out.
- **Pickers.** The autocomplete answers (select2 pickers) label a row with its ``picker_label`` ("Jane Doe (jdoe,
  jane@example.com)", "TAG – name (serial)") and leave soft-deleted rows out. The rows still come from the related
  admin's ``get_queryset`` and ``get_search_results``, so company separation and search fields are the admin's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.db import models
from django.db.models.base import ModelBase
from django.http import HttpRequest

from assetsvc.conf import app_settings
from assetsvc.registry import entries, register_entry

#: App labels whose models are internals (shown to super users only, under "Internals").
INTERNAL_APP_LABELS = frozenset({"django_tasks_database", "django_tasks", "oauth2_provider",
                                 "axes", "otp_totp", "otp_static"})
INTERNALS_HEADING = "Internals"
#: ``assetsvc.registry`` store of the start page's panels: key -> :class:`IndexPanel`.
INDEX_PANELS = "admin_index_panels"


@dataclass(frozen=True)
class IndexPanel:
    """A part of the admin's start page: ``template`` is included with the context ``context(request)`` returns."""

    template: str
    context: Callable[[HttpRequest], dict[str, Any]]


def register_index_panel(key: str, panel: IndexPanel) -> None:
    register_entry(INDEX_PANELS, key, panel)


def picker_label(obj: models.Model) -> str:
    """How a picker shows ``obj``: its model's ``picker_label`` when it has one, else ``str(obj)``."""
    label = getattr(obj, "picker_label", None)
    return label if isinstance(label, str) else str(obj)


class PickerChoiceField(forms.ModelChoiceField):
    """A row picker whose options (and an autocomplete's selected value) read as the autocomplete answers do."""

    def label_from_instance(self, obj: models.Model) -> str:
        return picker_label(obj)


def use_picker_labels(formfield: Any) -> Any:
    """Give a foreign key's admin form field (a select or an autocomplete) the pickers' labels; returns it."""
    if isinstance(formfield, forms.ModelChoiceField):
        formfield.label_from_instance = picker_label
    return formfield


def is_soft_deleting(model: type[models.Model]) -> bool:
    """Whether ``model`` keeps deleted rows with a ``deleted_at`` date (assets, items, users, ...)."""
    return any(field.name == "deleted_at" for field in model._meta.concrete_fields)


class PickerAutocompleteJsonView(AutocompleteJsonView):
    """Django's autocomplete answer, with picker labels and without soft-deleted rows (nobody checks out to a
    deleted user or asset; the form fields refuse them anyway)."""

    def get_queryset(self):
        queryset = super().get_queryset()
        if is_soft_deleting(queryset.model):
            queryset = queryset.filter(deleted_at__isnull=True)
        return queryset

    def serialize_result(self, obj, to_field_name):
        return {"id": str(getattr(obj, to_field_name)), "text": picker_label(obj)}


class InternalAdminMixin:
    """Every right on an internal table needs an active super user, whatever the wrapped admin allows."""

    @staticmethod
    def _internal_allowed(request) -> bool:
        user = request.user
        return bool(user.is_active and user.is_superuser)

    def has_module_permission(self, request) -> bool:
        return self._internal_allowed(request) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return self._internal_allowed(request) and super().has_view_permission(request, obj)

    def has_add_permission(self, request, *args) -> bool:
        return self._internal_allowed(request) and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None) -> bool:
        return self._internal_allowed(request) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._internal_allowed(request) and super().has_delete_permission(request, obj)


class AssetsvcAdminSite(admin.AdminSite):
    """``admin.site`` (see the module docstring)."""

    index_template = "admin/assetsvc/index.html"

    def index(self, request, extra_context=None):
        context = dict(extra_context or {})
        panels = list(entries(INDEX_PANELS).values())
        for panel in panels:
            context.update(panel.context(request))
        context["index_panels"] = [panel.template for panel in panels]
        return super().index(request, context)

    @property
    def site_header(self) -> str:
        return app_settings.SITE_NAME

    @property
    def site_title(self) -> str:
        return app_settings.SITE_NAME

    @property
    def index_title(self) -> str:
        return app_settings.SITE_NAME

    def register(self, model_or_iterable, admin_class=None, **options) -> None:
        models_ = [model_or_iterable] if isinstance(model_or_iterable, ModelBase) else list(model_or_iterable)
        for model in models_:
            model_admin = admin_class or admin.ModelAdmin
            if model._meta.app_label in INTERNAL_APP_LABELS and not issubclass(model_admin, InternalAdminMixin):
                model_admin = type(model_admin.__name__, (InternalAdminMixin, model_admin),
                                   {"__module__": model_admin.__module__, "__doc__": model_admin.__doc__})
            super().register(model, model_admin, **options)

    def get_app_list(self, request, app_label=None) -> list[dict[str, Any]]:
        """The apps as Django sorts them, with the internal apps' models merged into one "Internals" entry at the
        end (an app's own page, ``app_label`` given, is left as it is)."""
        app_list = super().get_app_list(request, app_label)
        if app_label is not None:
            return app_list
        internal = [app for app in app_list if app["app_label"] in INTERNAL_APP_LABELS]
        if not internal:
            return app_list
        merged = sorted((model for app in internal for model in app["models"]), key=lambda model: model["name"])
        heading = {"name": INTERNALS_HEADING, "app_label": "internals", "app_url": internal[0]["app_url"],
                   "has_module_perms": True, "models": merged}
        return [*(app for app in app_list if app["app_label"] not in INTERNAL_APP_LABELS), heading]

    def autocomplete_view(self, request):
        return PickerAutocompleteJsonView.as_view(admin_site=self)(request)
