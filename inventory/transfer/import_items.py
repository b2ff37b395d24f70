"""CSV import of accessories, consumables, components and licenses (issue 14; docs/import-export.md): row by row
through the API's write serializer and the kind's services, catalogue names resolved to ids first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from django.db import models, transaction
from rest_framework import serializers

from assetsvc.admin_services import SERVICE_ERRORS, error_map
from assetsvc.progress import Progress
from companies.models import Company
from inventory.api.licenses.serializers import LicenseWriteSerializer
from inventory.api.stock.serializers import (
    AccessoryWriteSerializer,
    ComponentWriteSerializer,
    ConsumableWriteSerializer,
)
from inventory.choices import CategoryType
from inventory.models import (
    Accessory,
    Component,
    Consumable,
    License,
)
from inventory.services import licenses, stock
from inventory.transfer.columns import COLUMNS, CsvRows, header_of
from inventory.transfer.common import (
    Catalogue,
    ImportResult,
    NameFields,
    differs,
    dry_run_scope,
    messages_of,
    record_failure,
)

if TYPE_CHECKING:
    from accounts.models import User

# --- accessories, consumables, components, licenses ----------------------------------------------------------------


@dataclass(frozen=True)
class ItemKindSpec:
    """How one quantity kind is imported: its model, the API's write serializer, its category type, the
    services that create and update it, and which columns find an existing item."""

    kind: str
    model: type[models.Model]
    serializer: type[serializers.Serializer]
    category_type: str
    create: Callable[..., models.Model]
    update: Callable[..., models.Model]
    match: tuple[str, ...] = ("name",)


ITEM_KINDS: dict[str, ItemKindSpec] = {
    "accessory": ItemKindSpec("accessory", Accessory, AccessoryWriteSerializer, CategoryType.ACCESSORY,
                              stock.stock_create, stock.stock_update),
    "consumable": ItemKindSpec("consumable", Consumable, ConsumableWriteSerializer, CategoryType.CONSUMABLE,
                               stock.stock_create, stock.stock_update),
    "component": ItemKindSpec("component", Component, ComponentWriteSerializer, CategoryType.COMPONENT,
                              stock.stock_create, stock.stock_update),
    "license": ItemKindSpec("license", License, LicenseWriteSerializer, CategoryType.LICENSE,
                            licenses.license_create, licenses.license_update, match=("name", "serial")),
}
_FK_KEYS = {"category": "category_id", "company": "company_id", "manufacturer": "manufacturer_id",
            "supplier": "supplier_id", "location": "location_id"}


class ItemImporter:
    """Quantity kinds, row by row through the API's write serializer and the kind's services (each row in its own
    savepoint); catalogue names become ids first (created when missing)."""

    def __init__(self, spec: ItemKindSpec, *, actor: User, update: bool = False, dry_run: bool = False,
                 progress: Progress | None = None) -> None:
        self.spec, self.actor, self.update, self.dry_run, self.progress = spec, actor, update, dry_run, progress
        self.result = ImportResult(kind=spec.kind, dry_run=dry_run)
        self.catalogue = Catalogue(actor)
        self.names = NameFields().fields
        self.seen: dict[tuple[str, ...], int] = {}

    def col(self, key: str) -> str:
        return header_of(self.spec.kind, key)

    def run(self, rows: CsvRows) -> ImportResult:
        self.result.ignored_columns = rows.ignored
        for line, text in rows.bad_lines:
            record_failure(self.result, line, {}, [("-", text)])
        with dry_run_scope(self.dry_run):
            for line, cells in rows.rows:
                self.row(line, cells)
                if self.progress is not None:
                    self.progress.advance()
        return self.result

    def _existing(self, cells: dict[str, str]) -> models.Model | None:
        queryset = self.spec.model.objects.restrict(self.actor).filter(deleted_at__isnull=True)
        for key in self.spec.match:
            queryset = queryset.filter(**{f"{key}__iexact": cells.get(key, "").strip()})
        return queryset.order_by("pk").first()

    def row(self, line: int, cells: dict[str, str]) -> None:
        problems: list[tuple[str, str]] = []
        names = {}
        for key in _FK_KEYS:
            try:
                names[key] = self.names[key].run_validation(cells.get(key, "")).strip()
            except serializers.ValidationError as exc:
                problems.extend((self.col(key), text) for text in messages_of(exc))
        existing = self._existing(cells)
        if existing is not None and not self.update:
            self.result.notes.append(f"line {line}: {cells.get('name', '').strip()} exists; skipped.")
            self.result.outcome(line, "skipped", cells, ["exists"])
            return
        payload: dict[str, Any] = {}
        for key, value in cells.items():
            if key in _FK_KEYS or (existing is not None and not value.strip()):
                continue
            payload[key] = value if value.strip() else None
        if existing is None and not names["category"]:
            problems.append((self.col("category"), "The category field is required."))
        if existing is None and "qty" in self.spec.serializer().fields and not (cells.get("qty") or "").strip():
            payload["qty"] = 1  # Snipe-IT's importer: one when the quantity is not given
        if existing is None and self.spec.kind == "license" and not (cells.get("seats") or "").strip():
            payload["seats"] = 1
        context = {"request": SimpleNamespace(user=self.actor)}
        if problems:
            self._check_fields(self.spec.serializer(context=context), payload, problems)
            record_failure(self.result, line, cells, problems)
            return
        try:
            with transaction.atomic():
                for key, fk in _FK_KEYS.items():
                    if names[key]:
                        payload[fk] = self._resolve(key, names[key]).pk
                serializer = self.spec.serializer(data=payload, partial=existing is not None, context=context)
                if not serializer.is_valid():
                    raise serializers.ValidationError(serializer.errors)
                status = self._write(serializer.validated_data, existing)
        except SERVICE_ERRORS as exc:
            record_failure(self.result, line, cells, self._problems(exc))
            return
        self.result.outcome(line, status, cells)

    def _check_fields(self, serializer: serializers.Serializer, payload: dict[str, Any],
                      problems: list[tuple[str, str]]) -> None:
        """The other columns' errors too, when a name already failed (no catalogue entry is created then)."""
        for key, value in payload.items():
            fld = serializer.fields.get(key)
            if fld is None:
                continue
            try:
                fld.run_validation(value)
            except serializers.ValidationError as exc:
                problems.extend((self.col(key), text) for text in messages_of(exc))

    def _resolve(self, key: str, name: str) -> models.Model:
        catalogue = self.catalogue
        if key == "category":
            return catalogue.category(name, self.spec.category_type)
        if key == "company":
            return catalogue.company(name) or Company(pk=None)
        return getattr(catalogue, key)(name)

    def _write(self, data: dict[str, Any], existing: models.Model | None) -> str:
        if existing is None:
            self.spec.create(model=self.spec.model, data=data, actor=self.actor)
            return "created"
        changed = {key: value for key, value in data.items() if differs(existing, key, value)}
        if not changed:
            return "skipped"
        self.spec.update(item=existing, data=changed, actor=self.actor)
        return "updated"

    def _problems(self, exc: Exception) -> list[tuple[str, str]]:
        columns = {column.key for column in COLUMNS[self.spec.kind]}
        problems = []
        for key, texts in error_map(exc).items():
            key = key.removesuffix("_id")
            header = self.col(key if key in columns else "name")
            problems.extend((header, str(text)) for text in texts)
        return problems
