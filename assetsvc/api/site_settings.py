"""``/settings``: the site settings for super users (issue 27), and Snipe-IT's ``POST /settings/purge_barcodes``.

Snipe-IT v8.1.4 routes ``POST /settings`` and ``GET/PUT/PATCH /settings/{setting_id}`` to methods its API controller
does not have (every call is a 500), so the shape is ours (docs/decisions.md "Issue 27: the settings routes"): the
settings are one record, id 1, as Snipe-IT's one-row ``settings`` table. ``GET /settings`` and ``GET /settings/1``
answer it; ``PATCH``/``PUT`` on either address and ``POST /settings`` change the settings the body names and keep
the others (the only row already exists, so a "store" is a change). Any other id is "Setting not found."

Values are validated by the admin page's form (:func:`assetsvc.site.site_settings_update`): a refused value is a
field error and nothing is written. ``webhook_secret`` is write-only (the record says ``webhook_secret_set``); a
webhook setting a ``WEBHOOK_*`` variable overrides is listed under ``environment_overrides`` with what is in force.
Unknown keys are ignored, as in every write (API-CONTRACT.md §1).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from assetsvc.api.fields import IsoUtcField, SchemaField
from assetsvc.api.operation_docs import OperationText, register_operation_texts, register_tag_descriptions
from assetsvc.api.permissions import IsSuperUser
from assetsvc.api.serializers import ApiModelSerializer
from assetsvc.api.viewsets import ApiView, success, success_envelope
from assetsvc.crypto import Undecryptable
from assetsvc.models import WEBHOOK_SECRET_MAX, SiteSettings, parse_webhook_events
from assetsvc.site import WEBHOOK_VARIABLES, webhook_overrides
from assetsvc.site_settings import site_settings_fields, site_settings_update

SETTING_NOT_FOUND = "Setting not found."
SETTINGS_SAVED = "Settings saved."
MASK = "********"
#: The settings are one record; its id, as Snipe-IT's ``settings`` row.
SETTINGS_ID = "1"
#: Optional texts: ``null`` clears them, as ``""`` does.
OPTIONAL_TEXTS = ("webhook_endpoint", "webhook_channel", "webhook_botname", "auto_increment_prefix")


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}],
                      "nullable": True, "example": ["asset.checked_out", "asset.checked_in"]})
class WebhookEventsField(serializers.Field):
    """``webhook_events``: a list of event names or one comma-separated text; an empty list is no event, ``null``
    (or ``""``, which every write reads as null) the default list. Unknown names are a field error naming them."""

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, list) and all(isinstance(name, str) for name in data):
            data = ",".join(data)
        if not isinstance(data, str):
            raise serializers.ValidationError("The webhook events must be a list of event names or a comma-separated "
                                              "text.")
        try:
            return ",".join(parse_webhook_events(data))
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class SiteSettingsWriteSerializer(ApiModelSerializer):
    """The settings a write may name; their types and bounds come from the model, the rules across settings from
    the admin page's form."""

    webhook_secret = serializers.CharField(write_only=True, required=False, allow_blank=True, allow_null=True,
                                           max_length=WEBHOOK_SECRET_MAX,
                                           help_text="Write-only; empty or null: deliveries are not signed.")
    webhook_events = WebhookEventsField(required=False, allow_null=True,
                                        help_text="Event names (a list or a comma-separated text); []: none; "
                                                  "null: the default events.")

    class Meta:
        model = SiteSettings
        fields = [field.name for field in site_settings_fields()]
        extra_kwargs = {name: {"required": False, **({"allow_null": True} if name in OPTIONAL_TEXTS else {})}
                        for name in fields}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for name in (*OPTIONAL_TEXTS, "webhook_secret"):
            if name in attrs and attrs[name] is None:
                attrs[name] = ""  # null clears an optional text
        return attrs


def _environment_overrides() -> dict[str, dict[str, str]]:
    return {name: {"variable": WEBHOOK_VARIABLES[name], "value": MASK if name == "webhook_secret" else value}
            for name, value in webhook_overrides().items()}


class SiteSettingsSerializer(serializers.ModelSerializer):
    """The settings record: every setting as saved (the secret only as ``webhook_secret_set``), the effective event
    list, and the webhook settings the environment overrides."""

    id = serializers.IntegerField(read_only=True)
    webhook_events = SchemaField({"type": "array", "items": {"type": "string"}}, source="*",
                                 help_text="The events that are sent, in the registry's order.")
    webhook_secret_set = SchemaField({"type": "boolean"}, source="*",
                                     help_text="Whether deliveries are signed (the secret itself is never shown).")
    environment_overrides = SchemaField(
        {"type": "object", "additionalProperties": {"type": "object", "properties": {
            "variable": {"type": "string", "example": "WEBHOOK_ENDPOINT"}, "value": {"type": "string"}}}},
        source="*", help_text="Webhook settings a WEBHOOK_* environment variable overrides, with the value in force "
                              "(the secret masked).")
    updated_at = IsoUtcField()

    class Meta:
        model = SiteSettings
        fields = ["id", *[field.name for field in site_settings_fields() if field.name != "webhook_secret"],
                  "webhook_secret_set", "environment_overrides", "updated_at"]
        read_only_fields = fields

    def to_representation(self, instance: SiteSettings) -> dict[str, Any]:
        data = super().to_representation(instance)
        secret = instance.webhook_secret
        data["webhook_secret_set"] = isinstance(secret, Undecryptable) or bool(secret)
        data["webhook_events"] = parse_webhook_events(instance.webhook_events)  # null (the default list) included
        data["environment_overrides"] = _environment_overrides()
        return data


SETTINGS_RESPONSE = {200: SiteSettingsSerializer}
SAVED_RESPONSE = {200: success_envelope(SiteSettingsSerializer)}


class SuperUserView(ApiView):
    permission_section = None  # not a permission key: super users only
    permission_classes = [IsSuperUser]
    not_found_message = SETTING_NOT_FOUND


class SiteSettingsMixin(SuperUserView):
    def read(self) -> Response:
        return Response(SiteSettingsSerializer(SiteSettings.load(), context={"request": self.request}).data)

    def write(self) -> Response:
        serializer = SiteSettingsWriteSerializer(data=self.input, partial=True)
        serializer.is_valid(raise_exception=True)
        try:
            saved = site_settings_update(serializer.validated_data)
        except DjangoValidationError as exc:
            raise exceptions.ValidationError(exc.message_dict) from exc
        return success(SiteSettingsSerializer(saved, context={"request": self.request}).data, SETTINGS_SAVED)


class SiteSettingsView(SiteSettingsMixin):
    """``/settings``: the record (``GET``), a change (``PATCH``, ``PUT``, and Snipe-IT's ``POST`` "store")."""

    @extend_schema(tags=["settings"], operation_id="settings_read", responses=SETTINGS_RESPONSE)
    def get(self, request):
        return self.read()

    @extend_schema(tags=["settings"], operation_id="settings_store", request=SiteSettingsWriteSerializer,
                   responses=SAVED_RESPONSE)
    def post(self, request):
        return self.write()

    @extend_schema(tags=["settings"], operation_id="settings_update", request=SiteSettingsWriteSerializer,
                   responses=SAVED_RESPONSE)
    def put(self, request):
        return self.write()

    @extend_schema(tags=["settings"], operation_id="settings_partial_update", request=SiteSettingsWriteSerializer,
                   responses=SAVED_RESPONSE)
    def patch(self, request):
        return self.write()


class SiteSettingsRecordView(SiteSettingsMixin):
    """``/settings/{setting}``: Snipe-IT's resource address of the one settings row (id 1)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authentication and the super-user check come first
        if str(kwargs.get("setting", "")).strip() != SETTINGS_ID:
            raise self.not_found()

    @extend_schema(tags=["settings"], operation_id="settings_retrieve", responses=SETTINGS_RESPONSE)
    def get(self, request, setting: str):
        return self.read()

    @extend_schema(tags=["settings"], operation_id="settings_record_update", request=SiteSettingsWriteSerializer,
                   responses=SAVED_RESPONSE)
    def put(self, request, setting: str):
        return self.write()

    @extend_schema(tags=["settings"], operation_id="settings_record_partial_update",
                   request=SiteSettingsWriteSerializer, responses=SAVED_RESPONSE)
    def patch(self, request, setting: str):
        return self.write()


PURGE_SCHEMA = {"type": "object", "properties": {
    "status": {"type": "string", "example": "success"},
    "message": {"type": "string", "example": "Deleted 0 barcodes"},
    "messages": {"type": "string", "example": "Deleted 0 barcodes"},
    "payload": {"type": "object", "nullable": True}}}


class PurgeBarcodesView(SuperUserView):
    """``POST /settings/purge_barcodes``: Snipe-IT deletes the barcode images it caches on disk and answers
    ``{"message": "Deleted N barcodes"}``. Labels here draw their codes into each PDF and keep nothing, so there is
    nothing to delete: the answer is Snipe-IT's with N = 0 (plus the success envelope's keys)."""

    @extend_schema(tags=["settings"], operation_id="settings_purge_barcodes", request=None,
                   responses={200: OpenApiResponse(response=PURGE_SCHEMA)})
    def post(self, request):
        text = "Deleted 0 barcodes"
        return Response({"status": "success", "message": text, "messages": text, "payload": None})


_SUPER_ONLY = "Super users only; administrators and everyone else get 403."
_RECORD = ("The site settings as one record (id 1): every setting as saved, ``webhook_secret_set`` instead of the "
           "secret, the events that are sent, and the webhook settings a ``WEBHOOK_*`` environment variable "
           "overrides (``environment_overrides``).")
_WRITE = ("Changes the settings the body names and keeps the others; the values are checked as on the admin's "
          "settings page (a webhook endpoint must be an http(s) address, a channel-based platform needs a channel, "
          "a secret has 16 to 255 characters). A refused value is a field error and nothing is saved. "
          "``webhook_secret`` is write-only; ``webhook_events`` takes a list or a comma-separated text (``[]``: no "
          "event; null: the default events). Unknown keys are ignored. Answers the record in the success envelope.")
register_tag_descriptions({"settings": "The site settings, backups and the server's tools (webhook, e-mail and "
                                       "directory tests), for super users."})
register_operation_texts({
    "settings_read": OperationText("Read the site settings", _RECORD, _SUPER_ONLY),
    "settings_retrieve": OperationText("Read the site settings by id",
                                       _RECORD + " Snipe-IT's address of its one settings row: any id but 1 is "
                                                 "\"Setting not found.\"", _SUPER_ONLY),
    "settings_store": OperationText("Save site settings", _WRITE + " (Snipe-IT's store route: the only settings "
                                    "record already exists, so it is changed.)", _SUPER_ONLY),
    "settings_update": OperationText("Change site settings", _WRITE, _SUPER_ONLY),
    "settings_partial_update": OperationText("Change some site settings", _WRITE, _SUPER_ONLY),
    "settings_record_update": OperationText("Change site settings by id", _WRITE + " Any id but 1 is \"Setting not "
                                            "found.\"", _SUPER_ONLY),
    "settings_record_partial_update": OperationText("Change some site settings by id", _WRITE + " Any id but 1 is "
                                                    "\"Setting not found.\"", _SUPER_ONLY),
    "settings_purge_barcodes": OperationText(
        "Purge cached barcodes", "Snipe-IT deletes the barcode images it caches. This server draws each label's "
        "code into the PDF and caches none, so it answers \"Deleted 0 barcodes\".", _SUPER_ONLY),
})
