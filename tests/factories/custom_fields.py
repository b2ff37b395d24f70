"""Custom field values on assets (the definitions' factories are in ``tests.factories.inventory``)."""

from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from inventory.custom_values import crypto as field_crypto
from inventory.models import AssetFieldValue
from tests.factories.inventory import (
    AssetFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
)


class AssetFieldValueFactory(DjangoModelFactory[AssetFieldValue]):
    """A stored value, written as the write side stores it: trimmed text, a Fernet token for an encrypted field
    (pass the plaintext as ``value``)."""

    class Meta:
        model = AssetFieldValue

    asset = factory.SubFactory(AssetFactory)
    field = factory.SubFactory(CustomFieldFactory)
    value = ""

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        text = str(kwargs.get("value", "")).strip()
        kwargs["value"] = field_crypto.encrypt(text) if text and kwargs["field"].field_encrypted else text
        return super()._create(model_class, *args, **kwargs)


def fieldset_of(*fields, required=()):
    """A fieldset holding ``fields`` in that order; those in ``required`` are required."""
    fieldset = CustomFieldsetFactory()
    for order, field in enumerate(fields, start=1):
        CustomFieldsetFieldFactory(fieldset=fieldset, field=field, order=order, required=field in required)
    return fieldset
