"""System check ``companies.E001``: every model with a ``company`` field is reached through
:class:`companies.querysets.CompanyScopedQuerySet`, unless exempted here with a reason."""

from __future__ import annotations

from collections.abc import Iterable

from django.apps import apps
from django.core import checks
from django.db import models

#: ``app_label.ModelName`` → why it is not company-scoped.
UNSCOPED_COMPANY_MODELS: dict[str, str] = {
    "inventory.Location": (
        "Locations are shared reference data: rule 6 scopes assets, accessories, consumables, components and "
        "licenses; Snipe-IT scopes locations only with its separate scope_locations_fmcs setting."
    ),
}


def unscoped_company_models(candidates: Iterable[type[models.Model]] | None = None) -> list[str]:
    """Labels of models (all installed ones by default) with a ``company`` field whose default manager is not scoped
    and that are not exempt."""
    from assetsvc.scoping import ScopedQuerySet

    missing = []
    for model in apps.get_models() if candidates is None else candidates:
        label = model._meta.label
        if label in UNSCOPED_COMPANY_MODELS:
            continue
        if not any(field.name == "company" and field.concrete for field in model._meta.get_fields()):
            continue
        if not isinstance(model._default_manager.all(), ScopedQuerySet):
            missing.append(label)
    return missing


@checks.register()
def check_company_scoping(app_configs=None, **kwargs):
    return [
        checks.Error(
            f"{label} has a company field but its default manager is not a CompanyScopedQuerySet.",
            hint="Inherit companies.models.CompanyScopedModel, or exempt it in "
            "companies.checks.UNSCOPED_COMPANY_MODELS.",
            id="companies.E001",
        )
        for label in unscoped_company_models(
            None if app_configs is None else [m for config in app_configs for m in config.get_models()]
        )
    ]
