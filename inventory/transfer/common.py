"""What the CSV importers share (``inventory.transfer.import_assets`` for assets, ``inventory.transfer.import_items``
for the other
kinds): the result and its summary, per-row errors, the dry-run transaction, the checks of catalogue-name cells, and
the catalogue and people tables resolved once per import (docs/import-export.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models, transaction
from rest_framework import serializers

from assetsvc.api.fields import StrictCharField, TextField
from assetsvc.api.serializers import ApiSerializer
from companies.models import Company
from companies.querysets import caller_chooses_company
from companies.services import company_create
from inventory.choices import CategoryType, StatusType
from inventory.models import (
    AssetModel,
    Category,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.services import catalogue as catalogue_services

if TYPE_CHECKING:
    from accounts.models import User

#: Rows kept for the admin's preview (the first lines of the file).
PREVIEW_ROWS = 20
#: The label of rows without a status when no deployable label exists (Snipe-IT's name).
DEFAULT_STATUS = "Default Status"


@dataclass
class ImportResult:
    """What an import did (or, dry, would do): the counts, every error line, and the first rows' outcomes."""

    kind: str
    dry_run: bool = False
    created: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)
    preview: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.created + self.updated + self.skipped + self.failed

    def summary(self) -> str:
        verb = "would be " if self.dry_run else ""
        return (f"{self.total} rows: {self.created} {verb}created, {self.updated} {verb}updated, "
                f"{self.skipped} skipped, {self.failed} failed.")

    def outcome(self, line: int, status: str, cells: dict[str, str], messages: list[str] = ()) -> None:
        setattr(self, status, getattr(self, status) + 1)
        if len(self.preview) < PREVIEW_ROWS or line < self.preview[-1]["line"]:  # the first lines, in order
            self.preview.append({"line": line, "status": status, "cells": cells, "messages": list(messages)})
            self.preview.sort(key=lambda entry: entry["line"])
            del self.preview[PREVIEW_ROWS:]


def messages_of(exc: serializers.ValidationError | DjangoValidationError) -> list[str]:
    if isinstance(exc, DjangoValidationError):
        return exc.messages
    detail = exc.detail
    if isinstance(detail, dict):
        return [str(text) for texts in detail.values() for text in texts]
    return [str(text) for text in (detail if isinstance(detail, list) else [detail])]


def record_failure(result: ImportResult, line: int, cells: dict[str, str], problems: list[tuple[str, str]]) -> None:
    texts = [f"line {line}, column {column}: {message}" for column, message in problems]
    result.errors.extend(texts)
    result.outcome(line, "failed", cells, texts)


@contextmanager
def dry_run_scope(dry_run: bool) -> Iterator[None]:
    """Everything inside one transaction rolled back at the end when ``dry_run``; nothing special otherwise."""
    if not dry_run:
        yield
        return
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


class NameFields(ApiSerializer):
    """The catalogue-name columns, checked as the API checks a name (at most 255 characters, no NUL byte)."""

    model = StrictCharField(max_length=255, required=False, allow_blank=True)
    category = StrictCharField(max_length=255, required=False, allow_blank=True)
    manufacturer = StrictCharField(max_length=255, required=False, allow_blank=True)
    status = StrictCharField(max_length=255, required=False, allow_blank=True)
    location = StrictCharField(max_length=255, required=False, allow_blank=True)
    company = StrictCharField(max_length=255, required=False, allow_blank=True)
    supplier = StrictCharField(max_length=255, required=False, allow_blank=True)
    checked_out_to = StrictCharField(max_length=191, required=False, allow_blank=True)
    model_number = TextField(max_length=255)


# --- catalogue names and people, resolved once per import --------------------------------------------------------


class Catalogue:
    """Names → catalogue rows, read once and created when missing (through the catalogue services), and the
    people a row may be checked out to (by username or e-mail, among those the actor may see)."""

    def __init__(self, actor: User) -> None:
        self.actor = actor
        self.chooses_company = caller_chooses_company(actor)
        self._cache: dict[Any, dict[Any, Any]] = {}
        self._users: tuple[dict[str, Any], dict[str, list[Any]]] | None = None

    def _table(self, key: Any, rows: Callable[[], list[tuple[Any, Any]]]) -> dict[Any, Any]:
        if key not in self._cache:
            self._cache[key] = {}
            for name, row in rows():
                self._cache[key].setdefault(name, row)
        return self._cache[key]

    def _named(self, model: type[models.Model], name: str, create: Callable[[], models.Model],
               **filters: Any) -> models.Model:
        queryset = model.objects.filter(**filters).order_by("pk")
        table = self._table((model, tuple(sorted(filters.items()))),
                            lambda: [(obj.name.lower(), obj) for obj in queryset])
        found = table.get(name.lower())
        if found is None:
            found = table[name.lower()] = create()
        return found

    def _create(self, model: type[models.Model], **data: Any) -> Callable[[], models.Model]:
        return lambda: catalogue_services.catalogue_item_create(model=model, data=data, actor=self.actor)

    def category(self, name: str, category_type: str) -> Category:
        return self._named(Category, name, self._create(Category, name=name, category_type=category_type),
                           category_type=category_type)

    def manufacturer(self, name: str) -> Manufacturer:
        return self._named(Manufacturer, name, self._create(Manufacturer, name=name), deleted_at__isnull=True)

    def supplier(self, name: str) -> Supplier:
        return self._named(Supplier, name, self._create(Supplier, name=name))

    def location(self, name: str) -> Location:
        return self._named(Location, name, self._create(Location, name=name))

    def status(self, name: str) -> StatusLabel:
        return self._named(StatusLabel, name, self._create(StatusLabel, name=name, type=StatusType.DEPLOYABLE))

    def default_status(self) -> StatusLabel:
        if "default_status" not in self._cache:
            label = StatusLabel.objects.filter(type=StatusType.DEPLOYABLE).order_by("pk").first()
            self._cache["default_status"] = label or self.status(DEFAULT_STATUS)
        return self._cache["default_status"]

    def find_status(self, name: str) -> StatusLabel | None:
        table = self._table((StatusLabel, ()), lambda: [(obj.name.lower(), obj)
                                                        for obj in StatusLabel.objects.order_by("pk")])
        return table.get(name.lower())

    def company(self, name: str) -> Company | None:
        """The row's company: the named one (created when missing) for a caller who chooses companies, else the
        caller's own (rule 7; the column is ignored)."""
        if not self.chooses_company:
            return self.actor.company
        if not name:
            return None
        return self._named(Company, name, lambda: company_create(actor=self.actor, data={"name": name}))

    def find_model(self, name: str, number: str) -> AssetModel | None:
        table = self._table(AssetModel, lambda: [
            ((obj.name.lower(), obj.model_number.lower()), obj)
            for obj in AssetModel.objects.filter(deleted_at__isnull=True).order_by("pk")])
        return table.get((name.lower(), number.lower()))

    def asset_model(self, name: str, number: str, category: str, manufacturer: str) -> AssetModel:
        found = self.find_model(name, number)
        if found is None:
            data = {"name": name, "model_number": number, "category": self.category(category, CategoryType.ASSET),
                    "manufacturer": self.manufacturer(manufacturer) if manufacturer else None}
            found = catalogue_services.catalogue_item_create(model=AssetModel, data=data, actor=self.actor)
            self._cache[AssetModel][(name.lower(), number.lower())] = found
        return found

    def user(self, text: str) -> tuple[Any | None, str]:
        """The live, active user with this username, else with this e-mail (one only), among those the actor may
        see; with the reason when none."""
        if self._users is None:
            from accounts.models import User

            by_name: dict[str, Any] = {}
            by_email: dict[str, list[Any]] = {}
            people = User.objects.restrict(self.actor).filter(deleted_at__isnull=True, is_active=True)
            for person in people.order_by("pk"):
                by_name.setdefault(person.username.lower(), person)
                if person.email:
                    by_email.setdefault(person.email.lower(), []).append(person)
            self._users = (by_name, by_email)
        by_name, by_email = self._users
        key = text.strip().lower()
        if key in by_name:
            return by_name[key], ""
        matches = by_email.get(key, [])
        if len(matches) == 1:
            return matches[0], ""
        if matches:
            return None, f"{len(matches)} users have the e-mail {text}; give the username."
        return None, f"No active user has the username or e-mail {text}."


def differs(obj: models.Model, key: str, value: Any) -> bool:
    """Whether setting ``key`` to ``value`` changes ``obj`` (foreign keys compared by id)."""
    current = getattr(obj, f"{key}_id") if isinstance(value, models.Model | type(None)) and hasattr(
        obj, f"{key}_id") else getattr(obj, key)
    return current != (value.pk if isinstance(value, models.Model) else value)
