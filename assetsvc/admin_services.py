"""Admin pages that save, delete and restore through the domain services (STYLE.md §2: "Admin, commands and the API
call the same services").

A service-backed form (``ServiceFormMixin``) ends its validation with the service call, inside a savepoint: a refusal
(a Django or DRF ``ValidationError``, a ``DomainError``, ``PermissionDenied``) becomes a form error, whatever the
service wrote is rolled back, and the admin shows the form again instead of "saved successfully". Where the API
validates its input in a serializer, the form runs that same serializer (``api_serializer``) on the values it cleaned,
so both paths refuse the same input with the same messages; no rule is copied here.

``ServiceAdminMixin`` binds the request to the form (the acting user is ``request.user``, so the services' privilege
guards run), makes deletes (the object's delete page and a bulk action) and restores service calls whose refusals are
admin error messages, and never lets Django's cascade collector or its raw ``delete_selected`` touch the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from datetime import date
from decimal import Decimal
from functools import cached_property
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models, transaction
from django.forms.models import construct_instance
from django.http import HttpRequest, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from rest_framework import exceptions as drf_exceptions

from assetsvc.api.exceptions import FORBIDDEN
from assetsvc.exceptions import DomainError

#: Everything a service may refuse with. Anything else is a bug and stays a 500.
SERVICE_ERRORS = (DomainError, DjangoValidationError, DjangoPermissionDenied, drf_exceptions.APIException)

#: The request of an admin view whose form Django builds itself (the user admin's password page).
current_request: ContextVar[HttpRequest | None] = ContextVar("admin_current_request", default=None)


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _texts(item)]
    return [str(value)]


def error_map(exc: Exception) -> dict[str, list[str]]:
    """A refusal as ``{field: [messages]}``; the key ``""`` holds what belongs to no field."""
    if isinstance(exc, DomainError):
        if isinstance(exc.messages, dict):
            return {str(key): _texts(value) for key, value in exc.messages.items()}
        return {"": [exc.message]}
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            return {("" if key == NON_FIELD_ERRORS else key): texts for key, texts in exc.message_dict.items()}
        return {"": exc.messages}
    if isinstance(exc, DjangoPermissionDenied | drf_exceptions.PermissionDenied):
        detail = str(exc) if isinstance(exc, DjangoPermissionDenied) else ""
        return {"": [f"{FORBIDDEN} ({detail})" if detail else FORBIDDEN]}
    if isinstance(exc, drf_exceptions.APIException):
        detail = exc.detail
        if isinstance(detail, dict):
            return {("" if key in ("non_field_errors", "general") else str(key)): _texts(value)
                    for key, value in detail.items()}
        return {"": _texts(detail)}
    return {"": [str(exc)]}


def error_text(exc: Exception) -> str:
    """A refusal as one line for an admin message (a domain error's own message; else every field's)."""
    if isinstance(exc, DomainError):
        return exc.message
    parts = []
    for field, texts in error_map(exc).items():
        parts.extend(f"{field}: {text}" if field else text for text in texts)
    return "; ".join(parts)


def _api_value(value: Any, field: Any) -> Any:
    """A cleaned form value as the API would receive it (ids for rows, text for amounts and dates; an empty input is
    the API's null where the API field takes null but no empty text)."""
    if value == "" and getattr(field, "allow_null", False) and not getattr(field, "allow_blank", False):
        return None
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, models.QuerySet | list | tuple):
        return [item.pk if isinstance(item, models.Model) else item for item in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


def restricted(queryset: models.QuerySet, user: Any) -> models.QuerySet:
    """``queryset.restrict(user)`` for a scoped model (company separation, rules 1 to 5), else ``queryset``. A super
    user sees everything (rule 2) without the site settings being read."""
    restrict = getattr(queryset, "restrict", None)
    if restrict is None or getattr(user, "is_superuser", False):
        return queryset
    return restrict(user)


class ServiceFormMixin:
    """Mix into a (model) form: ``call_service(data)`` saves, while the form validates, and returns the saved row.

    ``api_serializer``: the API's write serializer for this kind of row; it validates the form's values first and its
    ``validated_data`` is what the service gets, exactly as in the API view. ``api_names`` maps a form field to its
    API input name where neither the name nor the serializer field's ``source`` tells.
    """

    request: HttpRequest | None = None
    api_serializer: type | None = None
    api_names: dict[str, str] = {}
    saved: Any = None

    # --- hooks --------------------------------------------------------------------------------------------------

    def call_service(self, data: dict[str, Any]) -> Any:
        raise NotImplementedError

    def extra_post_clean(self) -> None:
        """Checks of the base form that must run after the instance is built (e.g. password validators)."""

    # --- helpers ------------------------------------------------------------------------------------------------

    @property
    def acting_request(self) -> HttpRequest:
        request = self.request or current_request.get()
        if request is None:
            raise RuntimeError("a service form needs the admin request (ServiceAdminMixin.get_form binds it)")
        return request

    @property
    def actor(self):
        return self.acting_request.user

    @property
    def adding(self) -> bool:
        instance = getattr(self, "instance", None)
        return instance is None or instance._state.adding

    @cached_property
    def _api_fields_cache(self) -> dict[str, Any]:
        if self.api_serializer is None:
            return {}
        return {name: field for name, field in self._serializer().fields.items() if not field.read_only}

    def _api_fields(self) -> dict[str, Any]:
        return self._api_fields_cache

    def _serializer(self, data: Any = None):
        kwargs: dict[str, Any] = {"context": {"request": self.acting_request}}
        if data is not None:
            kwargs["data"] = data
        if not self.adding:
            kwargs["partial"] = True  # PATCH, as the API's updates
            return self.api_serializer(getattr(self, "instance", None), **kwargs)
        return self.api_serializer(**kwargs)

    def form_field_of(self, name: str) -> str | None:
        """The form field an input (or error) name of the API or the service belongs to, if any."""
        reverse_names = {api: form for form, api in self.api_names.items()}
        source = getattr(self._api_fields().get(name), "source", None)
        candidates = (reverse_names.get(name), name, source, name[:-3] if name.endswith("_id") else None)
        return next((candidate for candidate in candidates if candidate and candidate in self.fields), None)

    def api_input(self) -> dict[str, Any]:
        """What the API would have been sent: every filled field when adding, the changed ones when changing."""
        data = {}
        for name, field in self._api_fields().items():
            form_name = self.form_field_of(name)
            if form_name is None or form_name not in self.cleaned_data:
                continue
            if not self.adding and form_name not in self.changed_data:
                continue
            data[name] = _api_value(self.cleaned_data[form_name], field)
        return data

    def service_data(self) -> dict[str, Any]:
        if self.api_serializer is None:
            return {name: self.cleaned_data[name] for name in self.cleaned_data
                    if self.adding or name in self.changed_data}
        serializer = self._serializer(self.api_input())
        if not serializer.is_valid():
            raise drf_exceptions.ValidationError(serializer.errors)
        return dict(serializer.validated_data)

    def add_service_error(self, exc: Exception) -> None:
        for name, texts in error_map(exc).items():
            field = self.form_field_of(name) if name else None
            self.add_error(field, texts)

    # --- the form protocol --------------------------------------------------------------------------------------

    def _post_clean(self) -> None:
        if isinstance(self, forms.BaseModelForm):
            # The model form's own step, minus uniqueness and constraints: those belong to the service and the API
            # serializer (case-insensitive, live rows only, with the API's messages).
            opts = self._meta
            try:
                self.instance = construct_instance(self, self.instance, opts.fields, opts.exclude)
            except DjangoValidationError as exc:
                self._update_errors(exc)
            try:
                self.instance.full_clean(exclude=self._get_validation_exclusions(), validate_unique=False,
                                         validate_constraints=False)
            except DjangoValidationError as exc:
                self._update_errors(exc)
        self.extra_post_clean()
        if self._errors:
            return
        try:
            with transaction.atomic():
                self.saved = self.call_service(self.service_data())
        except SERVICE_ERRORS as exc:
            self.add_service_error(exc)

    def save(self, commit: bool = True) -> Any:
        if self.errors:
            raise ValueError("a refused form cannot be saved")
        self.save_m2m = lambda: None  # the service wrote the relations too
        if hasattr(self, "instance"):
            self.instance = self.saved
        return self.saved


class ServiceModelForm(ServiceFormMixin, forms.ModelForm):
    pass


class ServiceAdminMixin:
    """Mix into a ``ModelAdmin`` whose form is a ``ServiceFormMixin``. Subclasses implement ``delete_item`` and, for
    soft-deleted models, ``restore_item`` (both ``(request, obj)``, calling the service)."""

    def delete_item(self, request: HttpRequest, obj: Any) -> None:
        raise NotImplementedError

    restore_item: Callable[[Any, HttpRequest, Any], Any] | None = None
    #: The name of the bulk delete action (the asset admin keeps its historical one).
    bulk_delete_action = "delete_selected_items"

    # --- saving -------------------------------------------------------------------------------------------------

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        return type(form.__name__, (form,), {"request": request})

    def save_model(self, request, obj, form, change) -> None:
        """Nothing left to do: the form's validation saved through the service (a refusal was a form error)."""

    # --- deleting and restoring ---------------------------------------------------------------------------------

    def get_deleted_objects(self, objs, request):
        """The confirmation page lists the rows themselves: what else a delete touches or what blocks it is the
        service's decision (a soft delete cascades to nothing), and its refusal is shown as its message."""
        return [str(obj) for obj in objs], {self.opts.verbose_name_plural: len(objs)}, set(), []

    def log_deletions(self, request, queryset):
        """Logged by ``_call`` only once the service agreed, so a refused delete leaves no trace."""
        return []

    def _call(self, request, obj, call, *, log_deletion: bool = False) -> bool:
        label = str(obj)
        try:
            with transaction.atomic():
                if log_deletion:
                    admin.ModelAdmin.log_deletions(self, request, [obj])
                call(request, obj)
        except SERVICE_ERRORS as exc:
            self.message_user(request, f"{label}: {error_text(exc)}", level=messages.ERROR)
            return False
        return True

    def delete_model(self, request, obj) -> None:
        if not self._call(request, obj, self.delete_item, log_deletion=True):
            request._service_refused = True

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self._call(request, obj, self.delete_item, log_deletion=True)

    def response_delete(self, request, obj_display, obj_id):
        if getattr(request, "_service_refused", False):
            opts = self.opts
            return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change",
                                                args=[quote(obj_id)], current_app=self.admin_site.name))
        return super().response_delete(request, obj_display, obj_id)

    def _each(self, request, queryset, call, done: str, *, log_deletion: bool = False) -> None:
        ok = sum(1 for obj in queryset if self._call(request, obj, call, log_deletion=log_deletion))
        if ok:
            self.message_user(request, f"{ok} {self.opts.verbose_name_plural} {done}.", level=messages.SUCCESS)

    @admin.action(description="Delete selected %(verbose_name_plural)s", permissions=["delete"])
    def delete_selected_items(self, request, queryset) -> None:
        self._each(request, queryset, self.delete_item, "deleted", log_deletion=True)

    @admin.action(description="Restore selected %(verbose_name_plural)s", permissions=["change"])
    def restore_selected(self, request, queryset) -> None:
        self._each(request, queryset, self.restore_item, "restored")

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # Django's bulk delete would skip the service
        if self.actions is None or IS_POPUP_VAR in request.GET:
            return actions
        names = [self.bulk_delete_action] + (["restore_selected"] if self.restore_item is not None else [])
        missing = [self.get_action(name) for name in names if name not in actions]
        # Django's own filter: the delete action needs the delete right, restore the change right (an administrator
        # only views users, so their list offers neither).
        for func, action_name, description in self._filter_actions_by_permissions(request, missing):
            actions[action_name] = (func, action_name, description)
        return actions


class ReadOnlyModelAdmin(admin.ModelAdmin):
    """A log written only by the code that records it (the action log, the webhook delivery log): listed and
    searched in the admin, never added, changed or deleted there."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class DeletedListFilter(admin.SimpleListFilter):
    """"deleted": No (the default, also for an unknown value), Yes or All. Soft-deleted rows stay in the database
    (restorable, named by the action log), but a change list is for the rows in use (issue 28)."""

    title = "deleted"
    parameter_name = "deleted"

    def lookups(self, request, model_admin):
        return [("no", "No"), ("yes", "Yes"), ("all", "All")]

    def choices(self, changelist):
        current = self.value() if self.value() in {"yes", "all"} else "no"
        for lookup, title in self.lookup_choices:
            query = (changelist.get_query_string(remove=[self.parameter_name]) if lookup == "no"
                     else changelist.get_query_string({self.parameter_name: lookup}))
            yield {"selected": current == lookup, "query_string": query, "display": title}

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=False)
        if self.value() == "all":
            return queryset
        return queryset.filter(deleted_at__isnull=True)


def _filters_deleted_at(item: Any) -> bool:
    return (item[0] if isinstance(item, list | tuple) else item) == "deleted_at"


class SoftDeleteAdminMixin:
    """Mix into the admin of every model with ``deleted_at`` (``tests/admin/test_soft_deleted.py`` checks that each
    one does): its change list hides deleted rows unless the "deleted" filter asks for them (a "deleted at" filter of
    the admin is replaced), and a deleted row opened by its URL shows read-only, with a notice and, where the admin
    restores (``restore_item``), a button that runs the list's "restore" action on it."""

    def get_list_filter(self, request):
        filters = [item for item in super().get_list_filter(request) if not _filters_deleted_at(item)]
        return [*filters, DeletedListFilter]

    def has_change_permission(self, request, obj=None) -> bool:
        if obj is not None and getattr(obj, "deleted_at", None) is not None:
            return False  # read-only: the services refuse changes to a deleted row; restoring comes first
        return super().has_change_permission(request, obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if request.method == "GET":
            obj = self.get_object(request, unquote(object_id))
            if obj is not None and obj.deleted_at is not None:
                self.message_user(request, self.deleted_notice(request, obj), level=messages.WARNING)
        return super().change_view(request, object_id, form_url, extra_context)

    def deleted_notice(self, request: HttpRequest, obj: Any) -> str:
        opts = self.opts
        when = timezone.localtime(obj.deleted_at)  # TIME_ZONE, as the admin shows dates
        text = f"This {opts.verbose_name} was deleted on {when:%Y-%m-%d %H:%M}; it is shown read-only."
        if getattr(self, "restore_item", None) is None or not self.has_change_permission(request):
            return text
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist", current_app=self.admin_site.name)
        return format_html(
            '{} <form method="post" action="{}?{}=yes" style="display:inline">'
            '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
            '<input type="hidden" name="action" value="restore_selected"><input type="hidden" name="index" value="0">'
            '<input type="hidden" name="{}" value="{}">'
            '<button type="submit" class="button" id="restore-deleted">Restore</button></form>',
            text, url, DeletedListFilter.parameter_name, get_token(request), ACTION_CHECKBOX_NAME, obj.pk)
