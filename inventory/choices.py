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
