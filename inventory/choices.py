from django.db import models


class StatusType(models.TextChoices):
    DEPLOYABLE = "deployable", "Deployable"
    PENDING = "pending", "Pending"
    UNDEPLOYABLE = "undeployable", "Undeployable"
    ARCHIVED = "archived", "Archived"


class CategoryType(models.TextChoices):
    ASSET = "asset", "Asset"
    ACCESSORY = "accessory", "Accessory"
    CONSUMABLE = "consumable", "Consumable"
    COMPONENT = "component", "Component"
    LICENSE = "license", "License"


class TargetType(models.TextChoices):
    USER = "user", "User"
    ASSET = "asset", "Asset"
    LOCATION = "location", "Location"


class FieldElement(models.TextChoices):
    """The form element of a custom field (Snipe-IT's ``element`` column)."""

    TEXT = "text", "Text box"
    LISTBOX = "listbox", "List box"
    TEXTAREA = "textarea", "Text area"
    CHECKBOX = "checkbox", "Checkbox"
    RADIO = "radio", "Radio buttons"


#: The predefined formats of a custom field: its name (what the record shows and the database stores) → Snipe-IT's
#: Laravel rule spelling, also accepted as input (``config/app.php`` ``custom_field_formats``). A custom format is
#: stored as sent: ``regex:/<pattern>/<flags>``.
FIELD_FORMATS: dict[str, str] = {
    "ANY": "",
    "ALPHA": "alpha",
    "ALPHA-DASH": "alpha_dash",
    "ALPHA-NUMERIC": "alpha_num",
    "NUMERIC": "numeric",
    "EMAIL": "email",
    "DATE": "date",
    "URL": "url",
    "IP": "ip",
    "IPV4": "ipv4",
    "IPV6": "ipv6",
    "MAC": "regex:/^[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}$/",
    "BOOLEAN": "boolean",
}
