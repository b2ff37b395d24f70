"""Custom field values on the asset's admin page (issue 15 part 9; docs/custom-fields.md, "Back office: values").

The page shows one form field per field of the fieldset of the asset's model, named by the field's column, so the
errors of :func:`inventory.custom_values.read_input` and of the services land on their form fields. The fields are
those of the model the page is about: the posted one (a write that changes the model is validated against the new
model's fieldset; the page shown again then has the new fields), else the asset's, else on the add page the model of
``?model=``. A hidden field names the columns the page showed: a field the browser did not show keeps its stored
value (values of fields outside the new set stay stored, hidden). Encrypted values are shown and written only with
``assets.view.encrypted_custom_fields``; without it the field is read-only and shows ``ENCRYPTED`` (never the
plaintext)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest
from django.utils.html import escape

from accounts.permissions import has_access
from inventory import custom_values
from inventory.choices import FieldElement
from inventory.models import Asset, AssetModel

#: The hidden form field naming the columns the page showed (comma-separated).
SHOWN = "custom_values_shown"
SECTION = "Custom fields"
BLANK = ("", "---------")
LOCKED_HELP = "Encrypted: reading or changing it needs the permission to view encrypted custom fields."
ADD_HELP = ("The custom fields of the model's fieldset appear once the model is known: open this page with "
            "?model=<id>, or edit them after saving (or when the form is shown again with an error).")


def page_model(request: HttpRequest, obj: Asset | None) -> AssetModel | None:
    """The model whose fields the page shows: the posted live model, else the asset's, else ``?model=`` (add)."""
    raw = request.POST.get("model") if request.method == "POST" else None
    if raw is None and obj is None:
        raw = request.GET.get("model")
    if raw:
        try:
            model = AssetModel.objects.filter(pk=int(raw), deleted_at__isnull=True).first()
        except (TypeError, ValueError):
            model = None
        if model is not None:
            return model
    return obj.model if obj is not None else None


def _choices(field: Any, current: list[str]) -> list[tuple[str, str]]:
    """The options as (value, label) (``value|label`` lines), plus stored values no option names (kept editable)."""
    pairs = []
    for line in field.field_values_array or []:
        value, _, label = line.partition("|")
        pairs.append((value.strip(), label.strip() or value.strip()))
    known = {value for value, _ in pairs}
    return pairs + [(value, value) for value in current if value and value not in known]


def form_field(slot: custom_values.Slot, stored: str | None, may_read_encrypted: bool) -> forms.Field:
    """The form field of one custom field; its initial value is the stored plaintext (``ENCRYPTED`` and read-only
    for an encrypted field the user may not read)."""
    field = slot.field
    text = custom_values.shown(field, stored, may_read_encrypted)
    options: dict[str, Any] = {"label": field.name, "required": False,
                               "help_text": escape(field.help_text or "")}  # the admin renders help text unescaped
    if slot.required:
        options["help_text"] = escape(f"Required. {field.help_text or ''}".strip())
    if field.field_encrypted and not may_read_encrypted:
        options["help_text"] = escape(LOCKED_HELP)
        return forms.CharField(initial=text, disabled=True, **options)
    if field.element == FieldElement.CHECKBOX:
        chosen = [item for item in text.split(",") if item]
        return forms.MultipleChoiceField(choices=_choices(field, chosen), initial=chosen,
                                         widget=forms.CheckboxSelectMultiple, **options)
    if field.element in (FieldElement.LISTBOX, FieldElement.RADIO):
        widget = forms.RadioSelect if field.element == FieldElement.RADIO else forms.Select
        return forms.ChoiceField(choices=[BLANK, *_choices(field, [text])], initial=text, widget=widget, **options)
    widget = forms.Textarea if field.element == FieldElement.TEXTAREA else forms.TextInput
    return forms.CharField(initial=text, widget=widget, **options)


def form_class(base: type[forms.ModelForm], request: HttpRequest, obj: Asset | None) -> type[forms.ModelForm]:
    """``base`` (a :class:`CustomValuesFormMixin` form) with one field per custom field of the page's model (built
    once per request and asset: the admin asks for the form more than once)."""
    memo = request.__dict__.setdefault("_custom_value_forms", {})
    key = (base, getattr(obj, "pk", None))
    if key not in memo:
        memo[key] = _form_class(base, request, obj)
    return memo[key]


def _form_class(base: type[forms.ModelForm], request: HttpRequest, obj: Asset | None) -> type[forms.ModelForm]:
    model = page_model(request, obj)
    slots = custom_values.model_slots(model)
    may = has_access(request.user, custom_values.ENCRYPTED_PERMISSION)
    stored = custom_values.values_of([obj.pk]).get(obj.pk, {}) if obj is not None and slots else {}
    attrs: dict[str, Any] = {"custom_slots": slots, "custom_model": model, "may_write_encrypted": may}
    for slot in slots:
        attrs[slot.field.db_column_name] = form_field(slot, stored.get(slot.field.pk), may)
    if slots:
        attrs[SHOWN] = forms.CharField(required=False, widget=forms.HiddenInput,
                                       initial=",".join(slot.field.db_column_name for slot in slots))
    return type(base.__name__, (base,), attrs)


def with_custom_section(fieldsets: list) -> list:
    """The admin's fieldsets with the custom fields (their columns) moved into their own section, in order."""
    columns = [name for _, opts in fieldsets for name in opts["fields"]
               if isinstance(name, str) and name.startswith(custom_values.PREFIX)]
    if not columns:
        return fieldsets
    moved = {*columns, SHOWN}
    rest = [(name, {**opts, "fields": [f for f in opts["fields"] if f not in moved]}) for name, opts in fieldsets]
    return [*rest, (SECTION, {"fields": [*columns, SHOWN]})]


class CustomValuesFormMixin:
    """Mix into the asset's admin form (before the service form): reads the custom fields into ``self.custom``
    (a :class:`custom_values.CustomInput`, or None when the write has none) while the form validates."""

    custom_slots: list[custom_values.Slot] = []
    custom_model: AssetModel | None = None
    may_write_encrypted: bool = False
    custom: custom_values.CustomInput | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.model_before = self.instance.model_id if not self.instance._state.adding else None
        if self.is_bound and self.custom_slots:
            self._keep_unshown()
        if self.instance._state.adding and self.custom_model is None and "model" in self.fields:
            self.fields["model"].help_text = ADD_HELP

    def _keep_unshown(self) -> None:
        """A field the posted page did not show is posted as its initial value (unchanged: not written); the page
        shown again names the fields it now shows."""
        data = self.data.copy()
        shown = set(filter(None, (data.get(self.add_prefix(SHOWN)) or "").split(",")))
        for slot in self.custom_slots:
            name = slot.field.db_column_name
            if name in shown:
                continue
            initial = self.get_initial_for_field(self.fields[name], name)
            data.setlist(self.add_prefix(name), initial if isinstance(initial, list) else [initial])
        data[self.add_prefix(SHOWN)] = self.fields[SHOWN].initial
        self.data = data

    def custom_columns(self) -> list[str]:
        return [slot.field.db_column_name for slot in self.custom_slots]

    def model_field_names(self) -> set[str]:
        """The asset's own fields (what the services' ``data`` takes), not the custom ones."""
        return set(self.fields) - {*self.custom_columns(), SHOWN}

    def read_custom_values(self) -> None:
        """Read the shown, editable, changed custom fields (every one when adding) with ``read_input`` against the
        fieldset of the chosen model; its errors become the fields' errors. Skipped when the model is invalid."""
        self.custom = None
        model = self.cleaned_data.get("model")
        if not self.custom_slots or "model" in self._errors or model is None \
                or getattr(self.custom_model, "pk", None) != model.pk:
            return
        adding = self.instance._state.adding
        model_changed = not adding and model.pk != self.model_before
        data = {}
        for slot in self.custom_slots:
            name = slot.field.db_column_name
            if slot.field.field_encrypted and not self.may_write_encrypted:
                continue
            if name in self.cleaned_data and (adding or name in self.changed_data):
                data[name] = self.cleaned_data[name]
        if not data and not adding and not model_changed:
            return
        pk = None if adding else self.instance.pk
        self.custom = custom_values.read_input(
            data, slots=self.custom_slots, may_write_encrypted=self.may_write_encrypted,
            existing=custom_values.values_of([pk]).get(pk, {}) if pk else {}, asset_pk=pk, creating=adding,
            model_changed=model_changed)
        for column, texts in self.custom.errors.items():
            self.add_error(column if column in self.fields else None, texts)
