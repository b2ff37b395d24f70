"""Input serializers of the hardware endpoints (writes take ids; reads are built by ``records``)."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers

from assetsvc.api.fields import (
    FlexibleBooleanField,
    IsoUtcField,
    LenientDateTimeField,
    MoneyField,
    ScopedPrimaryKeyRelatedField,
    StrictCharField,
    StrictDateField,
    StrictIntegerField,
    TextField,
    UserBriefField,
)
from assetsvc.api.serializers import ApiSerializer
from assetsvc.site import get_site_settings
from companies.models import Company
from inventory.api.checkout import TARGET_KEYS, TARGET_TYPE_OF_KEY, CheckoutSerializer
from inventory.choices import StatusType
from inventory.models import MAX_WARRANTY_MONTHS, AssetModel, Location, StatusLabel, Supplier
from inventory.services import assets as services

#: The longest note ``POST notes/{id}/store`` takes (Snipe-IT's ``NotesController``).
NOTE_MAX_LENGTH = 50_000

TAG_REQUIRED = "The asset tag field is required."


def _fk(queryset, **kwargs) -> ScopedPrimaryKeyRelatedField:
    kwargs.setdefault("required", False)
    kwargs.setdefault("allow_null", True)
    return ScopedPrimaryKeyRelatedField(queryset=queryset, **kwargs)


class AssetWriteSerializer(ApiSerializer):
    """Create fields (spec "Asset write fields") plus Snipe-IT's extras clients send."""

    asset_tag = StrictCharField(max_length=255, required=False, allow_null=True)
    model_id = ScopedPrimaryKeyRelatedField(queryset=AssetModel.objects.filter(deleted_at__isnull=True))
    status_id = ScopedPrimaryKeyRelatedField(queryset=StatusLabel.objects.all())
    name = TextField(max_length=255)
    serial = TextField(max_length=255)
    purchase_date = StrictDateField(required=False, allow_null=True)
    purchase_cost = MoneyField(required=False, allow_null=True)
    order_number = TextField(max_length=255)
    notes = TextField(max_length=65535)
    rtd_location_id = _fk(Location.objects.all())
    location_id = _fk(Location.objects.all())
    warranty_months = StrictIntegerField(required=False, allow_null=True, min_value=0,
                                         max_value=MAX_WARRANTY_MONTHS)
    supplier_id = _fk(Supplier.objects.all())
    company_id = _fk(Company.objects.all())
    byod = FlexibleBooleanField(required=False)
    requestable = FlexibleBooleanField(required=False)
    next_audit_date = StrictDateField(required=False, allow_null=True)
    assigned_user = StrictIntegerField(required=False, allow_null=True)
    assigned_asset = StrictIntegerField(required=False, allow_null=True)
    assigned_location = StrictIntegerField(required=False, allow_null=True)

    #: serializer field → Asset field
    FIELD_MAP = {
        "asset_tag": "asset_tag", "model_id": "model", "status_id": "status", "name": "name", "serial": "serial",
        "purchase_date": "purchase_date", "purchase_cost": "purchase_cost", "order_number": "order_number",
        "notes": "notes", "rtd_location_id": "rtd_location", "location_id": "location",
        "warranty_months": "warranty_months", "supplier_id": "supplier", "company_id": "company", "byod": "byod",
        "requestable": "requestable", "next_audit_date": "next_audit_date",
    }

    #: A create needs a tag unless the site generates one; an update never does (it may only not empty it).
    tag_required = True

    def to_internal_value(self, data):
        """Reports a missing ``asset_tag`` together with every other field error (issue 12): the service's own check
        (``asset_create``, which also guards callers other than the API) would only come after the fields pass."""
        missing_tag = self.tag_required and not str(data.get("asset_tag") or "").strip() \
            and not get_site_settings().auto_increment_assets
        try:
            attrs = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if missing_tag and "asset_tag" not in exc.detail:
                raise serializers.ValidationError({"asset_tag": [TAG_REQUIRED], **exc.detail}) from exc
            raise
        if missing_tag:
            raise serializers.ValidationError({"asset_tag": [TAG_REQUIRED]})
        return attrs

    # The tag and serial taken by another asset are reported with the other field errors (issue 12). A check ahead of
    # the service's own, which repeats it under the locks that make it certain (a racing writer), and guards the
    # admin and commands too. ``asset_pk`` (an update's own asset) is not "another".

    def validate_asset_tag(self, value):
        if value and value.strip() and services.tag_taken(value.strip(), exclude_pk=self.context.get("asset_pk")):
            raise serializers.ValidationError(services.TAG_TAKEN)
        return value

    def validate_serial(self, value):
        if value and get_site_settings().unique_serial \
                and services.serial_taken(value, exclude_pk=self.context.get("asset_pk")):
            raise serializers.ValidationError(services.SERIAL_TAKEN)
        return value

    def validate(self, attrs):
        targets = [key for key in TARGET_KEYS if attrs.get(key) is not None]
        if len(targets) > 1:
            raise serializers.ValidationError(
                {targets[1]: ["Only one of assigned_user, assigned_asset or assigned_location may be given."]}
            )
        return attrs

    def asset_data(self) -> dict:
        return {self.FIELD_MAP[key]: value for key, value in self.validated_data.items() if key in self.FIELD_MAP}

    def target_request(self) -> tuple[str, int] | None:
        for key in TARGET_KEYS:
            if self.validated_data.get(key) is not None:
                return TARGET_TYPE_OF_KEY[key], self.validated_data[key]
        return None


class AssetUpdateSerializer(AssetWriteSerializer):
    """Partial update: only sent keys change; ``asset_tag``, ``model_id`` and ``status_id`` may not be emptied."""

    asset_tag = StrictCharField(max_length=255, required=False)
    model_id = ScopedPrimaryKeyRelatedField(queryset=AssetModel.objects.filter(deleted_at__isnull=True),
                                            required=False)
    tag_required = False
    status_id = ScopedPrimaryKeyRelatedField(queryset=StatusLabel.objects.all(), required=False)
    expected_checkin = StrictDateField(required=False, allow_null=True)

    FIELD_MAP = {**AssetWriteSerializer.FIELD_MAP, "expected_checkin": "expected_checkin"}


class AssetCheckoutSerializer(CheckoutSerializer):
    """Asset checkout: the shared target rules plus a deployable status, dates and a new name."""

    status_id = ScopedPrimaryKeyRelatedField(queryset=StatusLabel.objects.all(), required=False, allow_null=True)
    checkout_at = LenientDateTimeField(required=False, allow_null=True)
    expected_checkin = StrictDateField(required=False, allow_null=True)
    name = TextField(max_length=255)

    def validate_status_id(self, value):
        if value is not None and value.type != StatusType.DEPLOYABLE:
            raise serializers.ValidationError("The selected status id is invalid.")
        return value

    def validate(self, attrs):
        attrs = super().validate(attrs)
        checkout_at, expected = attrs.get("checkout_at"), attrs.get("expected_checkin")
        if checkout_at and expected and expected < timezone.localtime(checkout_at).date():
            raise serializers.ValidationError(
                {"expected_checkin": ["The expected checkin must be a date after or equal to checkout at."]}
            )
        return attrs


class AssetCheckinSerializer(ApiSerializer):
    note = TextField(max_length=65535)
    name = TextField(max_length=255)
    location_id = _fk(Location.objects.all())
    status_id = _fk(StatusLabel.objects.all())
    checkin_at = LenientDateTimeField(required=False, allow_null=True)


class AssetAuditSerializer(ApiSerializer):
    note = TextField(max_length=65535)
    next_audit_date = StrictDateField(required=False, allow_null=True)
    location_id = _fk(Location.objects.all())


class AssetNoteSerializer(ApiSerializer):
    """``POST notes/{id}/store``: the note (Snipe-IT's rule: required, a string, at most 50,000 characters)."""

    note = StrictCharField(max_length=NOTE_MAX_LENGTH)


class NoteRecordSerializer(serializers.Serializer):
    """A note of an asset: its ``note added`` action-log row."""

    id = serializers.IntegerField(read_only=True)
    created_at = IsoUtcField()
    note = serializers.CharField(read_only=True)
    created_by = UserBriefField()
    item_id = serializers.IntegerField(read_only=True)
    item_type = serializers.CharField(read_only=True)
    action_type = serializers.CharField(read_only=True)


class AssetTagSerializer(ApiSerializer):
    asset_tag = StrictCharField(max_length=255)
