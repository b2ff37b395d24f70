"""What an import left in the database, comparable between two runs (issue 31: a run killed and resumed must equal an
uninterrupted one): every row of every table an import fills, without what differs between two honest runs (when it
ran, the random names of stored files, row ids a database hands out, which a rolled-back insert consumes on
PostgreSQL)."""

from __future__ import annotations

from typing import Any

from django.apps import apps

from inventory.models import SnipeitImport, SnipeitRecord
from inventory.snipeit.importer import IMPORTED_MODELS

APPS = ("companies", "accounts", "inventory", "activity")
NOT_IMPORTED = {"accounts.PersonalAccessToken", "accounts.SealedTOTPDevice", "inventory.ImportJob",
                "inventory.ImportFile"}
#: Columns that differ between two honest runs: when rows were written, stored files' random names.
BOOKKEEPING = {"created_at", "updated_at", "imported_at", "last_login", "password", "storage_name"}


def database_state() -> dict[str, list[Any]]:
    kept = {model._meta.label for model in IMPORTED_MODELS.values()}
    out: dict[str, list[Any]] = {}
    for model in apps.get_models():
        label = model._meta.label
        if model._meta.app_label not in APPS or label in NOT_IMPORTED or model in (SnipeitImport, SnipeitRecord):
            continue
        skip = set(BOOKKEEPING) | ({model._meta.pk.attname} if label not in kept else set())
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in skip]
        out[label] = sorted((tuple(row) for row in model._default_manager.values_list(*fields)), key=repr)
    out["groups"] = sorted(apps.get_model("accounts", "User").groups.through.objects.values_list(
        "user_id", "permissiongroup_id"))
    out["records"] = sorted((kind, snipeit_id, our_id if kind in IMPORTED_MODELS else None)
                            for kind, snipeit_id, our_id in SnipeitRecord.objects.values_list(
                                "kind", "snipeit_id", "our_id"))
    return out
