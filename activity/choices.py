from django.db import models


class ActionType(models.TextChoices):
    CREATE = "create", "create new"
    UPDATE = "update", "update"
    DELETE = "delete", "delete"
    RESTORE = "restore", "restore"
    CHECKOUT = "checkout", "checkout"
    CHECKIN = "checkin from", "checkin from"
    AUDIT = "audit", "audit"
    UPLOADED = "uploaded", "uploaded"
    UPLOAD_DELETED = "upload deleted", "upload deleted"
