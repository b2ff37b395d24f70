"""Issue 26: the database schema follows the one-way layers of the code. A foreign key (or one-to-one or many-to-many)
from a model of one app to a model of a higher app fails this test, except the edges listed below (docs/decisions.md,
"Upward foreign keys"): lazy references by name that import nothing. A new upward edge is then a decision written
here, not an accident.

The design named two edges (the ``inventory.Location`` ones); walking every field found four more. Two are the
``created_by`` of the swappable user model, which Django's own apps reference from below too (admin's LogEntry);
two are the action log's company columns, which company separation of the log needs (activity sits below companies
because companies' services write log rows). Issue 27 added a seventh, ``accounts.Department.location``, for the same
reason as ``User.location``."""

from __future__ import annotations

from django.apps import apps

LAYERS = ["assetsvc", "activity", "companies", "accounts", "inventory", "notifications"]
ALLOWED_UPWARD = {
    ("accounts.User", "location", "inventory.Location"),
    ("accounts.Department", "location", "inventory.Location"),  # issue 27, docs/decisions.md
    ("activity.ActionLog", "location", "inventory.Location"),
    ("activity.ActionLog", "created_by", "accounts.User"),
    ("companies.Company", "created_by", "accounts.User"),
    ("activity.ActionLog", "company", "companies.Company"),
    ("activity.ActionLog", "target_company", "companies.Company"),
    # Files on records (issue 27) are keyed like the action log: the uploader and the record's company.
    ("activity.StoredFile", "created_by", "accounts.User"),
    ("activity.StoredFile", "company", "companies.Company"),
}


def _label(model) -> str:
    return f"{model._meta.app_label}.{model.__name__}"


def upward_edges() -> set[tuple[str, str, str]]:
    edges = set()
    for model in apps.get_models():
        source = model._meta.app_label
        if source not in LAYERS:
            continue
        for field in model._meta.get_fields(include_hidden=False):
            if not field.is_relation or field.auto_created or field.related_model is None:
                continue
            target = field.related_model._meta.app_label
            if target in LAYERS and LAYERS.index(target) > LAYERS.index(source):
                edges.add((_label(model), field.name, _label(field.related_model)))
    return edges


def test_no_foreign_key_points_to_a_higher_app_except_the_listed_edges():
    assert upward_edges() == ALLOWED_UPWARD


def test_the_allowlist_names_fields_that_still_exist():
    for model, field, target in ALLOWED_UPWARD:
        related = apps.get_model(model)._meta.get_field(field).related_model
        assert _label(related) == target
