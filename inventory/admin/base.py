"""What the inventory admin pages share: the pickers and checkout/checkin forms, the action pages, company
separation of every admin (``ScopedAdminMixin``: ``restrict(user)`` as the API does) and the HISTORY page from the
action log (``ActionLogHistoryMixin``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import display_for_value, unquote
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.models import User
from activity.models import ActionLog
from assetsvc.admin_services import (
    SERVICE_ERRORS,
    current_request,
    error_map,
    error_text,
    restricted,
)
from assetsvc.admin_site import PickerChoiceField, use_picker_labels
from assetsvc.api.fields import visible_reference
from assetsvc.scoping import limiting_company_id
from inventory.api.reports import activity_rows
from inventory.models import (
    Asset,
    Location,
)
from inventory.services.checkout import Target

RELATED_ONLY = admin.RelatedOnlyFieldListFilter


def _autocomplete(field_name: str) -> AutocompleteSelect:
    """An autocomplete picker backed by the admin of the asset field's related model (its search fields, and its
    ``get_queryset``, so company separation applies to the suggestions too). Its answers are labelled by
    ``assetsvc.admin_site`` (users as "Jane Doe (jdoe, jane@example.com)", assets as "TAG – name (serial)"); the form
    fields are ``PickerChoiceField`` so a chosen row reads the same."""
    return AutocompleteSelect(Asset._meta.get_field(field_name), admin.site)


class PickerForm(forms.Form):
    """A form of an admin action or page: given the acting ``user``, its row pickers offer only the rows that user
    may see (company separation; a row of another company is then an invalid choice)."""

    def __init__(self, *args: Any, user: User | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if user is not None:
            restrict_choices(self, user)


#: The target types of a checkout, in the order the "Check out to" choice offers them.
TARGET_TYPES = (("user", "User"), ("asset", "Asset"), ("location", "Location"))


class TargetPickerForm(PickerForm):
    """A checkout form whose target is one of several kinds: a "Check out to" choice (``checkout_to_type``) and one
    picker per kind (``TARGET_FIELDS``: kind -> field), of which the page shows only the chosen kind's
    (``templates/admin/inventory/includes/form_fieldset.html``). The choice is offered only among the kinds the
    form has (a subclass sets a picker to None to leave its kind out). Without a choice posted (an older client of
    the page), exactly one picker must be filled."""

    TARGET_FIELDS: ClassVar[dict[str, str]] = {"user": "user", "asset": "asset", "location": "location"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        kinds = [(kind, label) for kind, label in TARGET_TYPES if self.TARGET_FIELDS.get(kind) in self.fields]
        if len(kinds) > 1 and "checkout_to_type" not in self.fields:
            self.fields["checkout_to_type"] = forms.ChoiceField(label="Check out to", choices=kinds,
                                                                initial=kinds[0][0], required=False,
                                                                widget=forms.RadioSelect)
            self.order_fields(["checkout_to_type", *self.fields])

    def target_kinds(self) -> list[str]:
        return [kind for kind, field in self.TARGET_FIELDS.items() if field in self.fields]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        chosen_kind = data.get("checkout_to_type")
        if chosen_kind:
            field = self.TARGET_FIELDS.get(chosen_kind)
            if data.get(field) is None and field not in self.errors:
                self.add_error(field, f"Choose the {chosen_kind} it goes to.")
            data["target"] = data.get(field)
            return data
        kinds = self.target_kinds()
        chosen = [data[self.TARGET_FIELDS[kind]] for kind in kinds if data.get(self.TARGET_FIELDS[kind]) is not None]
        if len(chosen) != 1:
            named = [f"{'an' if kind == 'asset' else 'a'} {kind}" for kind in kinds]
            raise ValidationError(f"Choose exactly one target: {', '.join(named[:-1])} or {named[-1]}."
                                  if len(named) > 1 else f"Choose the {kinds[0]} it goes to.")
        data["target"] = chosen[0]
        return data


class CheckoutForm(TargetPickerForm):
    """Target of the "check out" admin action: exactly one of user, asset or location."""

    user = PickerChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True), required=False,
                             widget=_autocomplete("assigned_user"))
    asset = PickerChoiceField(Asset.objects.alive(), required=False, widget=_autocomplete("assigned_asset"))
    location = PickerChoiceField(Location.objects.all(), required=False, widget=_autocomplete("assigned_location"))
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


def form_rows(form: forms.Form) -> list[tuple[Any, str]]:
    """The visible fields of an action form with the target kind each picker belongs to ("" for the others)."""
    kinds = {field: kind for kind, field in getattr(form, "TARGET_FIELDS", {}).items()}
    return [(field, kinds.get(field.name, "")) for field in form.visible_fields()]


def form_context(form: forms.Form) -> dict[str, Any]:
    """What ``includes/form_fieldset.html`` needs of ``form``."""
    kinds = form.target_kinds() if isinstance(form, TargetPickerForm) and "checkout_to_type" in form.fields else []
    return {"form": form, "rows": form_rows(form), "target_types": kinds}


def service_error_on_form(form: forms.Form, exc: Exception) -> None:
    """A service's refusal shown on the form: each field error beside the field the form has (a quantity, a date),
    the rest (the item's state: already checked out) above the fields. A form names the service's fields it shows
    under another name in ``SERVICE_FIELD_NAMES``. Nothing was written."""
    aliases = getattr(form, "SERVICE_FIELD_NAMES", {})
    for field, texts in error_map(exc).items():
        name = aliases.get(field, field)
        for text in texts:
            form.add_error(name if name in form.fields else None, text)


def restrict_choices(form: forms.Form, user: User) -> None:
    """Company separation for a form's row pickers: each choice among rows of a scoped model is limited to the
    rows ``user`` may see (a target of another company is then an invalid choice)."""
    for field in form.fields.values():
        if getattr(field, "queryset", None) is not None:
            field.queryset = restricted(field.queryset, user)


def action_form_page(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: models.QuerySet,
                     form_class: type[forms.Form], *, action: str, title: str, intro: str, submit: str,
                     apply: Callable[[dict[str, Any]], None]) -> TemplateResponse | None:
    """The intermediate page of an admin action that needs input (a checkout's target, a checkin's note): the form,
    and once it is posted back valid with "apply", ``apply(cleaned_data)``. None sends the admin back to the list,
    where the messages ``apply`` left (one per refused row, one count of the done ones) are shown."""
    applying = "apply" in request.POST
    form = form_class(request.POST if applying else None, user=request.user)
    if applying and form.is_valid():
        apply(form.cleaned_data)
        return None
    context = {**model_admin.admin_site.each_context(request), "title": title, "intro": intro, "submit": submit,
               **form_context(form), "items": queryset, "action": action, "opts": model_admin.model._meta,
               "action_checkbox_name": ACTION_CHECKBOX_NAME, "media": model_admin.media + form.media}
    return TemplateResponse(request, "admin/inventory/action_form.html", context)


class ScopedAdminMixin:
    """Company separation in the admin, as in the API (STYLE.md §3): the changelist, change pages, autocomplete
    answers (Django's autocomplete reads the related admin's ``get_queryset``), actions, labels and history read rows
    through ``restrict(request.user)``, and foreign key choices are restricted the same way. Super users see every
    company; an administrator (the ``admin`` key, docs/decisions.md) with a company sees theirs only when separation
    is on.

    The company picker: companies are super users' business (an administrator has no right on the company admin,
    whose autocomplete would refuse them), so for anyone else it is a plain select of the companies they may see
    (their own, with separation on), and the services apply rule 7 on top. The list's company filter, which would
    name every company, is left out for a user limited to one."""

    def get_queryset(self, request):
        return restricted(super().get_queryset(request), request.user)

    def get_autocomplete_fields(self, request):
        fields = list(super().get_autocomplete_fields(request))
        return fields if request.user.is_superuser else [name for name in fields if name != "company"]

    def get_list_filter(self, request):
        filters = list(super().get_list_filter(request))
        if request.user.is_superuser or limiting_company_id(request.user) is None:  # rule 2 first: no settings read
            return filters
        return [item for item in filters if (item[0] if isinstance(item, list | tuple) else item) != "company"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        formfield = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if getattr(formfield, "queryset", None) is not None:
            formfield.queryset = restricted(formfield.queryset, request.user)
        return use_picker_labels(formfield)  # a chosen user or asset reads as in the autocomplete (issue 28)


def render_with_request(request: HttpRequest, view: Callable[..., Any], *args: Any) -> Any:
    """``view(request, *args)`` rendered while ``current_request`` holds ``request``: read-only display callables
    get only the object, and the rows they list depend on who asks (company separation)."""
    token = current_request.set(request)
    try:
        response = view(request, *args)
        if hasattr(response, "render"):
            response.render()
        return response
    finally:
        current_request.reset(token)


def report_each(model_admin: admin.ModelAdmin, request: HttpRequest, items, call: Callable[[Any], Any],
                done: str) -> int:
    """Call ``call(item)`` for each item, each in its own transaction, and leave one message with the counts: "3
    assets checked out." or "2 assets checked out; 1 refused: A-1: That asset is already checked in." (a warning; an
    error when nothing was done). Returns how many were done."""
    count, refused = 0, []
    for item in items:
        try:
            with transaction.atomic():
                call(item)
        except SERVICE_ERRORS as exc:
            refused.append(f"{item}: {error_text(exc)}")
        else:
            count += 1
    opts = model_admin.opts
    summary = f"{count} {opts.verbose_name if count == 1 else opts.verbose_name_plural} {done}"
    if not refused:
        model_admin.message_user(request, f"{summary}.", level=messages.SUCCESS)
    else:
        level = messages.WARNING if count else messages.ERROR
        model_admin.message_user(request, f"{summary}; {len(refused)} refused: {'; '.join(refused)}", level=level)
    return count


def log_rows(request: HttpRequest, logs) -> list[dict[str, Any]]:
    """Action log rows as the admin shows them (the API's activity rows: names resolved, another company's people
    hidden): date, actor, action, item, target, note."""
    logs = list(logs)
    rows = activity_rows(logs, limiting_company_id(request.user))
    shown = []
    for log, row in zip(logs, rows, strict=True):
        target = row["target"]
        shown.append({"date": log.action_date or log.created_at, "action": row["action_type"],
                      "actor": row["admin"]["name"] if row["admin"] else "-",
                      "item": f"{row['item']['type']}: {row['item']['name'] or row['item']['id']}",
                      "target": f"{target['type']}: {target['name'] or target['id']}" if target else "-",
                      "note": row["note"] or "", "changes": row["log_meta"]})
    return shown


LOG_TABLE = ("<table><thead><tr><th>Date</th><th>Actor</th><th>Action</th><th>Item</th><th>Target</th><th>Note</th>"
             "</tr></thead><tbody>{}</tbody></table>")


#: How many rows of the action log the asset's change page shows (the history page shows them all).
RECENT_LOG_ROWS = 10


def object_form_page(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, *,
                     form_class: type[PickerForm], title: str, submit: str,
                     apply: Callable[[Any, dict[str, Any]], str]):
    """A form page of one item (the buttons of its change page): on a valid post, ``apply(item, cleaned_data)``
    calls the service and returns the success message, and the admin goes back to the item's page; a refusal is an
    error message on the same page, and nothing is written."""
    obj = model_admin.get_object(request, unquote(object_id))
    opts = model_admin.opts
    if obj is None:
        return model_admin._get_obj_does_not_exist_redirect(request, opts, object_id)
    if not model_admin.has_change_permission(request, obj):
        raise PermissionDenied
    posted = request.method == "POST"
    form = form_class(request.POST if posted else None, user=request.user)
    if posted and form.is_valid():
        try:
            message = apply(obj, form.cleaned_data)
        except SERVICE_ERRORS as exc:
            service_error_on_form(form, exc)
        else:
            model_admin.message_user(request, message, level=messages.SUCCESS)
            return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
    context = {**model_admin.admin_site.each_context(request), "title": f"{title}: {obj}", "subtitle": None,
               **form_context(form), "original": obj, "opts": opts, "submit": submit,
               "media": model_admin.media + form.media}
    return TemplateResponse(request, "admin/inventory/object_form.html", context)


class ActionLogHistoryMixin:
    """The HISTORY page of an item is its action log, newest first (Snipe-IT's history tab), instead of Django's
    admin log (the services write the action log; Django's log has no rows for them); the change page shows the
    latest rows read-only ("latest activity"). ``log_item_type`` is the item's type in the log."""

    log_item_type: ClassVar[str]

    def _logs(self, request, obj):
        return (ActionLog.objects.restrict(request.user).for_item(self.log_item_type, obj.pk)
                .select_related("created_by", "location").order_by("-created_at", "-id"))

    @admin.display(description="latest activity")
    def recent_activity(self, obj) -> SafeString | str:
        request = current_request.get()
        if request is None or obj.pk is None:
            return "-"
        rows = log_rows(request, self._logs(request, obj)[:RECENT_LOG_ROWS])
        if not rows:
            return "-"
        cells = [(display_for_value(row["date"], "-"), row["actor"], row["action"], row["item"], row["target"],
                  row["note"] or "-") for row in rows]
        opts = self.opts
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_history", args=[obj.pk])
        return format_html('{}<p><a href="{}">Whole history…</a></p>',
                           format_html(LOG_TABLE, format_html_join(
                               "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                               cells)), url)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return render_with_request(request, super().changeform_view, object_id, form_url, extra_context)

    def history_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        context = {**self.admin_site.each_context(request), "title": f"History: {obj}", "subtitle": None,
                   "object": obj, "opts": self.opts, "rows": log_rows(request, self._logs(request, obj)),
                   **(extra_context or {})}
        return TemplateResponse(request, "admin/inventory/history.html", context)


class CheckinForm(PickerForm):
    """Input of "check in": a note (the site may require one, as for the API) and how many units of each row come
    back; empty returns all of them."""

    quantity = forms.IntegerField(required=False, help_text="Units to return from each row; empty returns them all.")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


def shown_target(obj: Target | None) -> Target | None:
    """``obj`` (a holder) unless separation hides it from the caller of the page being rendered (another company's
    user or asset: issue 25); read-only display callables get only the object, so the request comes from
    ``current_request`` (:func:`render_with_request`)."""
    request = current_request.get()
    if obj is None or request is None or isinstance(obj, Location):
        return obj
    return visible_reference(obj, limiting_company_id(request.user))


def admin_link(obj: Target | None) -> SafeString | str:
    """A checkout target as "<type>: <link to its admin page>", so the holder is one click away."""
    if obj is None:
        return "-"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('{}: <a href="{}">{}</a>', opts.verbose_name, url,
                       obj.full_name if isinstance(obj, User) else str(obj))
