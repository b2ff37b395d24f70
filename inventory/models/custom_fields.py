"""Custom fields, fieldsets and the values on assets (docs/custom-fields.md)."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower, Substr

from inventory.choices import FieldElement
from inventory.models.assets import Asset
from inventory.models.base import TimestampedModel

COLUMN_PREFIX = "_snipeit_"
COLUMN_BASE_LENGTH = 50


class CustomField(TimestampedModel):
    """A custom field definition (a MAC address, an IMEI, an OS version): global, not company-scoped. Its
    ``db_column_name`` is fixed when it is created and never changes, also on a rename (integrations address the
    field by it); ``field_encrypted`` is fixed at creation too. Written only by ``inventory.services.custom_fields``."""

    name = models.CharField(max_length=255)
    db_column_name = models.CharField(max_length=80, null=True, blank=True, unique=True, editable=False)
    element = models.CharField(max_length=16, choices=FieldElement.choices, default=FieldElement.TEXT)
    #: The format's name (``ANY``, ``MAC``, ... see ``inventory.choices.FIELD_FORMATS``) or ``regex:/p/flags``.
    format = models.CharField(max_length=255, default="ANY")
    #: The options, one per line, ``value`` or ``value|label``; empty for none.
    field_values = models.TextField(blank=True, default="")
    field_encrypted = models.BooleanField(default=False)
    is_unique = models.BooleanField(default=False)
    display_in_user_view = models.BooleanField(default=False)
    auto_add_to_fieldsets = models.BooleanField(default=False)
    show_in_listview = models.BooleanField(default=False)
    display_checkin = models.BooleanField(default=False)
    display_checkout = models.BooleanField(default=False)
    display_audit = models.BooleanField(default=False)
    help_text = models.TextField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="customfield_name_ci_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def field_values_array(self) -> list[str] | None:
        """The options, one per non-empty line (Snipe-IT explodes the text on line breaks), or None."""
        lines = [line.strip() for line in (self.field_values or "").splitlines()]
        lines = [line for line in lines if line]
        return lines or None


class CustomFieldset(TimestampedModel):
    """A named, ordered set of custom fields; an asset model names one, and its assets carry exactly those fields."""

    name = models.CharField(max_length=255)
    fields = models.ManyToManyField(CustomField, through="CustomFieldsetField", related_name="fieldsets")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="customfieldset_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class CustomFieldsetField(models.Model):
    """A field's place in a fieldset: its position and whether assets of the set's models must have a value.
    A field in any set cannot be deleted (PROTECT, and the service's ``Field is in use.``)."""

    fieldset = models.ForeignKey(CustomFieldset, on_delete=models.CASCADE, related_name="memberships")
    field = models.ForeignKey(CustomField, on_delete=models.PROTECT, related_name="memberships")
    required = models.BooleanField(default=False)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "id"]
        constraints = [models.UniqueConstraint(fields=["fieldset", "field"], name="customfieldsetfield_unique")]

    def __str__(self) -> str:
        return f"{self.field} in {self.fieldset}"


class AssetFieldValue(models.Model):
    """One asset's value of one custom field, as text (an encrypted field's value is stored encrypted).

    ``unique_key`` is set only for fields with ``is_unique`` on live assets: a digest of the value trimmed and lower
    cased (of the plaintext for encrypted fields), so the partial unique constraint makes two concurrent writes of
    one value fail in the database, whatever the length of the value; deleting an asset clears it, restoring sets it
    again. ``unique_scope`` is the asset's company id (0: no company), set with ``unique_key``: the constraint is per
    scope, so with company separation on a value is unique within a company (issue 25; with separation off the
    services check across scopes under a lock of the field: ``inventory.custom_values``). ``?<column>=`` lookups use
    the index on the field and the lower-cased first 191 characters of the value."""

    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="field_values")
    field = models.ForeignKey(CustomField, on_delete=models.CASCADE, related_name="values")
    value = models.TextField(blank=True, default="")
    unique_key = models.CharField(max_length=64, null=True, blank=True)
    unique_scope = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["id"]
        # ``?<column>=`` compares this expression first (inventory.custom_values.lookups): case-insensitive, from the
        # index.
        indexes = [models.Index("field", Lower(Substr("value", 1, 191)), include=["asset"],
                                name="assetfieldvalue_lookup_ci_idx")]
        constraints = [
            models.UniqueConstraint(fields=["asset", "field"], name="assetfieldvalue_asset_field_unique"),
            models.UniqueConstraint(fields=["field", "unique_scope", "unique_key"],
                                    condition=models.Q(unique_key__isnull=False),
                                    name="assetfieldvalue_unique_value_in_scope"),
        ]

    def __str__(self) -> str:
        return f"{self.field} of {self.asset_id}"
