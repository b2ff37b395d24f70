from django.db import models


class ActionType(models.TextChoices):
    CREATE = "create", "create new"
    UPDATE = "update", "update"
    DELETE = "delete", "delete"
    RESTORE = "restore", "restore"
    CHECKOUT = "checkout", "checkout"
    CHECKIN = "checkin from", "checkin from"
    AUDIT = "audit", "audit"
    REQUESTED = "requested", "requested"
    REQUEST_CANCELED = "request canceled", "request canceled"
    NOTE_ADDED = "note added", "note added"  # a note on an asset (Snipe-IT's action type; POST notes/{id}/store)
    UPLOADED = "uploaded", "uploaded"
    UPLOAD_DELETED = "upload deleted", "upload deleted"
    ACCEPTED = "accepted", "accepted"  # a checkout accepted by its person (issue 29; Snipe-IT's action type)
    DECLINED = "declined", "declined"
    TWO_FACTOR_RESET = "2FA reset", "2FA reset"  # a super user cleared a person's two-factor devices (issue 30)
    PROBLEM_REPORTED = "problem reported", "problem reported"  # an employee reported a problem (issue 32)
