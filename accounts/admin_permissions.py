"""The permission map in the admin as Snipe-IT's permission table (issue 28 item 4): one row per key, grouped by area
with Snipe-IT's area names and labels, never the raw JSON.

- A **user** chooses Grant / Deny / Inherit per key (Snipe-IT's user page; ``1`` / ``-1`` / absent), and each row
  says what the user already gets from their groups ("Granted by group Helpdesk").
- A **group** has one Grant box per key (Snipe-IT's group page offers Grant/Deny, i.e. ``1`` or nothing: a group's
  ``-1`` decides nothing, see ``accounts.permissions._evaluate``).
- Keys the editor may not change (their own page, ``superuser``/``admin`` for anyone but a super user, a key the
  editor does not hold) are shown disabled. Browsers send no disabled input, so such a key keeps its stored value;
  a value posted for it anyway (a tampered form) is passed on, and the service refuses it
  (``accounts.services.ensure_permission_change_allowed``): the page is a convenience, never the guard.

The stored value is the same JSON map (only ``1``/``-1`` entries are written), cleaned by
``accounts.permissions.clean_permission_map``, and saved through ``user_update`` / ``group_update`` as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from accounts import permissions as perms
from assetsvc.typing import Actor


@dataclass(frozen=True)
class PermissionRow:
    key: str
    label: str
    note: str = ""


def _files(singular: str) -> str:
    return f"View and Modify {singular} Files"


_VERB_LABELS = {"view": "View", "create": "Create", "edit": "Edit", "delete": "Delete", "checkout": "Checkout",
                "checkin": "Checkin", "audit": "Audit", "keys": "View License Keys",
                "view.requestable": "View Requestable Assets",
                "view.encrypted_custom_fields": "View and Modify Encrypted Custom Fields"}
#: Snipe-IT's area names (``config/permissions.php``), in its order; ``maintenances`` is ours (docs/decisions.md).
_AREA_NAMES = {"assets": "Assets", "maintenances": "Maintenances", "accessories": "Accessories",
               "consumables": "Consumables", "licenses": "Licenses", "components": "Components", "kits": "Kits",
               "users": "Users", "models": "Models", "categories": "Categories", "departments": "Departments",
               "statuslabels": "Status Labels", "customfields": "Custom Fields", "suppliers": "Suppliers",
               "manufacturers": "Manufacturers", "depreciations": "Depreciations", "locations": "Locations",
               "companies": "Companies"}
_FILES_OF = {"accessories": "Accessory", "consumables": "Consumable", "licenses": "License",
             "components": "Component"}


def _item_area(section: str) -> tuple[str, tuple[PermissionRow, ...]]:
    rows = []
    for verb in perms.ITEM_SECTIONS[section]:
        label = _files(_FILES_OF[section]) if verb == "files" else _VERB_LABELS[verb]
        rows.append(PermissionRow(f"{section}.{verb}", label))
    return _AREA_NAMES[section], tuple(rows)


#: Every permission key once, as ``(area, rows)``; a test checks that it covers ``PERMISSION_KEYS`` exactly.
AREAS: tuple[tuple[str, tuple[PermissionRow, ...]], ...] = (
    ("Global", (PermissionRow("superuser", "Super User", "Every right everywhere; overrides every other key."),)),
    ("Admin", (PermissionRow("admin", "Admin", "Every item right and the back office, except the Gate abilities "
                                               "below and encrypted custom fields."),)),
    ("CSV Import", (PermissionRow("import", "CSV Import"),)),
    ("Reports", (PermissionRow("reports.view", "View"),)),
    *(_item_area(section) for section in _AREA_NAMES),
    ("Self", (PermissionRow("self.two_factor", "Two-Factor Authentication"),
              PermissionRow("self.api", "Create API Keys"),
              PermissionRow("self.edit_location", "Profile Edit Location"),
              PermissionRow("self.checkout_assets", "Self-Checkout"),
              PermissionRow("self.view_purchase_cost", "View Purchase-Cost Column"))),
)
LABELS = {row.key: f"{area}: {row.label}" for area, rows in AREAS for row in rows}

USER_CHOICES = (("1", "Grant"), ("-1", "Deny"), ("0", "Inherit"))
GROUP_CHOICES = (("1", "Grant"),)


def locked_keys(*, actor: Actor, target: Any = None) -> frozenset[str]:
    """The keys ``actor`` may not change on ``target``'s page (a user, or None for a group), by the rules of
    ``ensure_permission_change_allowed``: nobody changes their own; only super users touch ``superuser``/``admin``;
    anyone else grants only keys they hold (``NOT_FROM_ADMIN_KEYS`` included: ``admin`` does not pass them)."""
    if target is not None and getattr(target, "pk", None) is not None and target.pk == actor.pk:
        return frozenset(perms.PERMISSION_KEYS)
    if perms.is_superuser(actor):
        return frozenset()
    return frozenset(key for key in perms.PERMISSION_KEYS
                     if key in perms.PRIVILEGED_KEYS or not perms.has_access(actor, key))


def group_sources(user: Any) -> dict[str, list[str]]:
    """What ``user`` already gets from their groups, per key: "Granted by group Helpdesk", and for keys passed by a
    group's ``superuser`` or ``admin``, "Granted by group Helpdesk (Admin)"."""
    out: dict[str, list[str]] = {}
    if user is None or getattr(user, "pk", None) is None:
        return out
    for name, raw in user.groups.order_by("name").values_list("name", "permissions"):
        granted = {key for key, value in (raw or {}).items() if perms.normalize_permission_value(value) == 1}
        for key in perms.PERMISSION_KEYS:
            if key in granted:
                out.setdefault(key, []).append(f"Granted by group {name}")
            elif "superuser" in granted:
                out.setdefault(key, []).append(f"Granted by group {name} (Super User)")
            elif ("admin" in granted and key in perms.ITEM_KEYS and key not in perms.NOT_FROM_ADMIN_KEYS):
                out.setdefault(key, []).append(f"Granted by group {name} (Admin)")
    return out


def stored_values(raw: Any) -> dict[str, int]:
    """A stored map as ``{key: 1|-1}`` in table order (``0``, unknown keys and unreadable values dropped)."""
    values = {}
    for key, value in (raw or {}).items() if isinstance(raw, dict) else ():
        normalized = perms.normalize_permission_value(value)
        if key in perms.PERMISSION_KEY_SET and normalized:
            values[key] = normalized
    return {key: values[key] for key in perms.PERMISSION_KEYS if key in values}


STYLE = mark_safe("""<style>
.permission-table { max-width: 44rem; width: 100%; }
.permission-table table { width: 100%; border-collapse: collapse; }
.permission-table th, .permission-table td { padding: 4px 6px; vertical-align: middle; }
.permission-table thead th { text-align: center; position: sticky; top: 0; background: var(--body-bg); }
.permission-table thead th:first-child { text-align: left; }
.permission-table .permission-area th { background: var(--darkened-bg); font-weight: bold; text-align: left; }
.permission-table tbody th[scope=row] { font-weight: normal; text-align: left; width: 100%; }
.permission-table td { text-align: center; width: 4.5rem; min-width: 3rem; }
.permission-table input { margin: 0; width: 1.25rem; height: 1.25rem; }
.permission-table .permission-note { display: block; font-size: 0.75rem; color: var(--body-quiet-color); }
.permission-table .permission-source { display: inline-block; margin: 2px 4px 0; padding: 0 6px; border-radius: 4px;
  font-size: 0.75rem; background: var(--message-success-bg); color: var(--body-fg); }
.permission-table input:disabled { cursor: not-allowed; }
@media (max-width: 767px) { .permission-table td { width: 3rem; } .permission-table { overflow-wrap: anywhere; } }
</style>""")


class PermissionTableWidget(forms.Widget):
    """The table. ``choices`` is :data:`USER_CHOICES` (radios) or :data:`GROUP_CHOICES` (one checkbox); the form sets
    ``locked``, ``stored`` (the map being edited) and ``sources`` (:func:`group_sources`) per page."""

    def __init__(self, choices: tuple[tuple[str, str], ...] = USER_CHOICES, attrs: dict | None = None) -> None:
        super().__init__(attrs)
        self.choices = choices
        self.locked: frozenset[str] = frozenset()
        self.stored: dict[str, int] = {}
        self.sources: dict[str, list[str]] = {}
        self.read_only = False

    @property
    def tri_state(self) -> bool:
        return len(self.choices) > 1

    def value_from_datadict(self, data, files, name) -> dict[str, Any]:
        """The posted map. A key without an input is "inherit", except a locked one, which keeps its stored value
        (its inputs were disabled, so the browser sent none); names of unknown keys are kept for the field to
        refuse."""
        prefix = f"{name}["
        out: dict[str, Any] = {}
        for field_name in data:
            if field_name.startswith(prefix) and field_name.endswith("]"):
                out[field_name[len(prefix):-1]] = data.get(field_name)
        for key in self.locked:
            if key not in out and key in self.stored:
                out[key] = self.stored[key]
        return out

    def id_for_label(self, id_: str) -> str:
        return ""  # the field's label names a table, not one input: each input has its own aria-label

    def value_omitted_from_data(self, data, files, name) -> bool:
        return False  # like a checkbox: nothing posted means "nothing granted"

    def _cells(self, name: str, key: str, label: str, current: int) -> SafeString:
        cells = []
        disabled = self.read_only or key in self.locked
        for value, text in self.choices:
            attrs = {"type": "radio" if self.tri_state else "checkbox", "value": value,
                     "aria-label": f"{label}: {text}"}
            if not self.read_only:
                attrs["name"] = f"{name}[{key}]"
            checked = int(value) == current if self.tri_state else current == 1
            flags = (" checked" if checked else "") + (" disabled" if disabled else "")
            cells.append(format_html("<td><input{}{}></td>", flatatt(attrs), mark_safe(flags)))
        return mark_safe("".join(cells))

    def render(self, name, value, attrs=None, renderer=None) -> SafeString:
        # the stored map, or on a refused post what was posted (unreadable values as "inherit")
        source = value if isinstance(value, dict) else self.stored
        current = {key: perms.normalize_permission_value(raw) or 0 for key, raw in source.items()}
        columns = len(self.choices) + 1
        head = format_html_join("", '<th scope="col">{}</th>', ((text,) for _value, text in self.choices))
        body = []
        for area, rows in AREAS:
            body.append(format_html('<tbody class="permission-area"><tr><th colspan="{}" scope="colgroup">{}</th>'
                                    "</tr></tbody><tbody>", columns, area))
            for row in rows:
                label = LABELS[row.key]
                note = format_html('<span class="permission-note">{}</span>', row.note) if row.note else ""
                sources = format_html_join("", '<span class="permission-source">{}</span>',
                                           ((text,) for text in self.sources.get(row.key, ())))
                body.append(format_html('<tr data-key="{}"><th scope="row">{}{}{}</th>{}</tr>', row.key, row.label,
                                        note, sources, self._cells(name, row.key, label, current.get(row.key, 0))))
            body.append(mark_safe("</tbody>"))
        element_id = (attrs or {}).get("id") or f"id_{name}"
        return format_html('{}<div class="permission-table" id="{}"><table><thead><tr><th scope="col">Permission</th>'
                           "{}</tr></thead>{}</table></div>", STYLE, element_id, head, mark_safe("".join(body)))


class PermissionMapField(forms.Field):
    """A permission map edited with :class:`PermissionTableWidget`; cleans to the stored shape (``{key: 1|-1}``,
    Snipe-IT's ``clean_permission_map`` rule: unknown keys and values are refused)."""

    widget = PermissionTableWidget

    def __init__(self, *, choices: tuple[tuple[str, str], ...] = USER_CHOICES, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", PermissionTableWidget(choices))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> dict[str, int]:
        try:
            cleaned = perms.clean_permission_map(value or {})
        except perms.PermissionMapError as exc:
            raise forms.ValidationError(str(exc), code=exc.code) from exc
        return stored_values(cleaned)

    def has_changed(self, initial: Any, data: Any) -> bool:
        """Whether the table differs from the stored map (``0`` entries are "inherit" either way; for a group, whose
        ``-1`` decides nothing, only the granted keys count), so an untouched page sends no permissions."""
        try:
            old, new = stored_values(initial), self.to_python(data)
        except forms.ValidationError:
            return True
        if not self.widget.tri_state:
            old, new = ({key for key, value in values.items() if value == 1} for values in (old, new))
        return old != new


def bind_permission_table(field: forms.Field, *, actor: Actor, target: Any, stored: Any,
                          user: Any = None) -> None:
    """Tell a form's table who edits (``locked``), what is stored, and (users) what the groups already give."""
    widget = field.widget
    widget.locked = locked_keys(actor=actor, target=target)
    widget.stored = stored_values(stored)
    widget.sources = group_sources(user)


def permission_overview(*, stored: Any, user: Any = None, choices=USER_CHOICES) -> SafeString:
    """The table, read only (every input disabled, none named), for a page the viewer may not change."""
    widget = PermissionTableWidget(choices)
    widget.read_only = True
    widget.stored = stored_values(stored)
    widget.sources = group_sources(user)
    return widget.render("permissions", None)
