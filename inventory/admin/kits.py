"""Predefined kits: the kit validated by the API's write serializer and saved, deleted and checked out by
``inventory.services.kits``; its four kinds of lines are tabular inlines on the kit's change page whose every row
goes through the line services (``kit_line_add`` / ``kit_line_update`` / ``kit_line_remove``) while the form
validates, so a refused row is a form error, never a raw write.

Kits are shared records (issue 25): only callers whom company separation does not limit change or delete them
(``may_change_kits``); anyone else may add one (as the API) but sees kits read-only, and the lines of another
company's license, accessory or consumable are not shown to them at all (``visible_lines_of_kind``). The action
"Check out to a user…" hands each selected kit to one user through ``kit_checkout``, all or nothing per kit, and
reports each refused kit with what is short."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.http import HttpResponseRedirect

from accounts.models import User
from assetsvc.admin_services import SERVICE_ERRORS, ServiceAdminMixin, ServiceModelForm, error_map, error_text
from assetsvc.admin_site import PickerChoiceField
from assetsvc.exceptions import DomainError
from inventory.admin.base import ActionLogHistoryMixin, PickerForm, _autocomplete, action_form_page
from inventory.admin.catalogue import SharedCatalogueAdminMixin, api_form
from inventory.api.kits.serializers import KitWriteSerializer
from inventory.models import Kit
from inventory.services import kits
from inventory.services.assets import checkout_datetime
from inventory.services.kits import LINE_KINDS, MAX_LINE_QUANTITY, LineKind


class KitForm(ServiceModelForm):
    """A kit's name: saved by ``kit_create`` / ``kit_update`` with the API's rules and messages."""

    def call_service(self, data: dict) -> Kit:
        if self.adding:
            return kits.kit_create(data=data, actor=self.actor)
        return kits.kit_update(item=self.instance, data=data, actor=self.actor)


class KitLineForm(ServiceModelForm):
    """One line of a kit: a new row is ``kit_line_add``, a changed quantity ``kit_line_update``, a ticked "delete"
    ``kit_line_remove``, and another item on an existing row the removal of the old line and the addition of the new
    one. Unchanged rows call nothing."""

    kind: LineKind

    def call_service(self, data: dict) -> Any:
        kind, cleaned = self.kind, self.cleaned_data
        kit, actor = self.instance.kit_id, self.actor
        item, quantity = cleaned.get(kind.field), cleaned.get("quantity")
        if self.adding:
            if cleaned.get("DELETE") or item is None:
                return None
            return kits.kit_line_add(kit=kit, kind=kind, item=item, quantity=quantity, actor=actor)
        old_id = self.initial.get(kind.field)
        if cleaned.get("DELETE"):
            kits.kit_line_remove(kit=kit, kind=kind, item_id=old_id, actor=actor)
            return None
        if kind.field in self.changed_data:
            kits.kit_line_remove(kit=kit, kind=kind, item_id=old_id, actor=actor)
            return kits.kit_line_add(kit=kit, kind=kind, item=item, quantity=quantity, actor=actor)
        if "quantity" in self.changed_data:
            return kits.kit_line_update(kit=kit, kind=kind, item_id=old_id, quantity=quantity, actor=actor)
        return self.instance


class KitLineInline(admin.TabularInline):
    """The lines of one kind: the item and its quantity. Only the lines (and, to pick from, the items) the caller
    may see are offered; only callers who may change kits add, change or delete them."""

    kind: LineKind
    extra = 1

    def get_queryset(self, request):
        kind = self.kind
        return (kits.visible_lines_of_kind(kind, request.user)
                .filter(**{f"{kind.field}__deleted_at__isnull": True}).select_related(kind.field).order_by("id"))

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        formset.form = type(formset.form.__name__, (formset.form,), {"request": request})
        return formset

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == self.kind.field:
            kwargs["queryset"] = self.kind.visible_items(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "quantity":  # the services' bounds, refused before they are called
            kwargs.update(min_value=1, max_value=MAX_LINE_QUANTITY)
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def _may_change(self, request) -> bool:
        return kits.may_change_kits(request.user)

    def has_add_permission(self, request, obj=None) -> bool:
        return super().has_add_permission(request, obj) and self._may_change(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) and self._may_change(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and self._may_change(request)


def _inline(kind: LineKind, verbose_name: str, verbose_name_plural: str) -> type[KitLineInline]:
    """The inline of one kind of line: its pivot model, the item and quantity columns, a form bound to the kind."""
    model = kind.line_model
    form = type(f"{model.__name__}Form", (KitLineForm,), {"__module__": __name__, "kind": kind})
    return type(f"{model.__name__}Inline", (KitLineInline,), {
        "__module__": __name__, "kind": kind, "model": model, "form": form, "fields": [kind.field, "quantity"],
        "verbose_name": verbose_name, "verbose_name_plural": verbose_name_plural})


KIT_INLINES = [
    _inline(LINE_KINDS["models"], "asset model", "asset models"),
    _inline(LINE_KINDS["licenses"], "license", "licenses"),
    _inline(LINE_KINDS["accessories"], "accessory", "accessories"),
    _inline(LINE_KINDS["consumables"], "consumable", "consumables"),
]


class KitCheckoutForm(PickerForm):
    """Input of "Check out to a user…": the user every selected kit goes to, and the checkout's note and dates."""

    user = PickerChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True),
                                  widget=_autocomplete("assigned_user"))
    checkout_at = forms.DateField(required=False, help_text="Empty: now.")
    expected_checkin = forms.DateField(required=False)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


def refusal_text(exc: Exception) -> str:
    """A kit checkout's refusal as one line: the service's message and each short line it listed."""
    if isinstance(exc, DomainError) and isinstance(exc.messages, dict):
        details = [text.strip() for texts in error_map(exc).values() for text in texts]
        return f"{exc.message}: {' '.join(details)}" if details else exc.message
    return error_text(exc)


@admin.register(Kit)
class KitAdmin(ActionLogHistoryMixin, SharedCatalogueAdminMixin, ServiceAdminMixin, admin.ModelAdmin):
    """Kits with their lines (inlines, on the change page once the kit exists) and the checkout action. As the
    shared catalogue records: anyone may add a kit (as ``POST /kits``), only callers separation does not limit change
    or delete one (``may_change_kits``; for anyone else the page is read-only and a delete is the service's
    refusal)."""

    form = api_form(Kit, KitWriteSerializer, KitForm)
    log_item_type = kits.ITEM_TYPE
    inlines = KIT_INLINES
    list_display = ["name", "created_by", "created_at", "updated_at"]
    list_select_related = ["created_by"]
    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at", "updated_at", "recent_activity"]
    actions = ["checkout_to_user"]

    def get_inline_instances(self, request, obj=None):
        """No lines on the add page: a line belongs to a saved kit (the services lock it)."""
        return super().get_inline_instances(request, obj) if obj is not None else []

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """A posted page shown again means something was refused (the kit or a line): the lines the services
        already wrote while the forms validated are rolled back with it, so nothing of a refused page is kept."""
        with transaction.atomic():
            response = super().changeform_view(request, object_id, form_url, extra_context)
            if request.method == "POST" and not isinstance(response, HttpResponseRedirect):
                transaction.set_rollback(True)
        return response

    def save_formset(self, request, form, formset, change) -> None:
        """Nothing left to write: each row's validation called its service (a refusal was a form error)."""
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

    def delete_item(self, request, obj) -> None:
        kits.kit_delete(item=obj, actor=request.user)

    def _checkout_each(self, request, queryset, data: dict[str, Any]) -> None:
        count = 0
        for kit in queryset:
            try:
                kits.kit_checkout(kit=kit, target=data["user"], actor=request.user, note=data.get("note") or "",
                                  checkout_at=checkout_datetime(data.get("checkout_at")),
                                  expected_checkin=data.get("expected_checkin"))
            except SERVICE_ERRORS as exc:
                self.message_user(request, f"{kit}: {refusal_text(exc)}", level=messages.ERROR)
            else:
                count += 1
        if count:
            noun = self.opts.verbose_name if count == 1 else self.opts.verbose_name_plural
            self.message_user(request, f"{count} {noun} checked out to {data['user'].full_name}.",
                              level=messages.SUCCESS)

    @admin.action(description="Check out to a user…")
    def checkout_to_user(self, request, queryset):
        return action_form_page(self, request, queryset, KitCheckoutForm, action="checkout_to_user",
                                title="Check out kits",
                                intro="Check out everything each of these kits lists to one user (all or nothing "
                                      "per kit):",
                                submit="Check out", apply=lambda data: self._checkout_each(request, queryset, data))
