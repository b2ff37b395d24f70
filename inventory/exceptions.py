"""Domain errors of the inventory services. Each carries a stable ``code``; the kind (conflict / invalid /
not found) picks the HTTP status in ``API_ERROR_STATUS=http`` mode (see ``assetsvc.api.exceptions``). Messages are
Snipe-IT's English texts so existing clients keep matching them."""

from __future__ import annotations

from typing import Any

from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError


class AssetNotAvailableError(ConflictError):
    """Checkout of an asset that is assigned, deleted, or whose label is not deployable."""

    default_code = "asset_not_available"

    def __init__(self, asset_tag: str, message: str = "That asset is not available for checkout!"):
        super().__init__(message, payload={"asset": asset_tag})


class AssetAlreadyCheckedInError(ConflictError):
    """Checkin of an asset that is not checked out."""

    default_code = "asset_already_checked_in"

    def __init__(self, payload: Any = None):
        super().__init__("That asset is already checked in.", payload=payload)


class AssetNotDeletedError(ConflictError):
    """Restore of an asset that is not deleted."""

    default_code = "asset_not_deleted"

    def __init__(self):
        super().__init__("The Asset was not deleted and therefore cannot be restored")


class AssetTagTakenError(ConflictError):
    """Restore of an asset whose tag another (live) asset now carries."""

    default_code = "asset_tag_taken"

    def __init__(self):
        super().__init__(
            "Error restoring Asset: The asset tag must be unique.",
            messages={"asset_tag": ["The asset tag must be unique."]},
        )


class AssetCustomValueTakenError(ConflictError):
    """Restore of an asset whose unique custom value another live asset now holds (API-CONTRACT.md §11.1)."""

    default_code = "asset_custom_value_taken"

    def __init__(self, messages: dict[str, list[str]]):
        first = next(iter(messages.values()))[0]
        super().__init__(f"Error restoring Asset: {first}", messages=messages)


class AssetSerialTakenError(ConflictError):
    """Restore of an asset whose serial another live asset carries while ``unique_serial`` is on."""

    default_code = "asset_serial_taken"

    def __init__(self):
        super().__init__(
            "Error restoring Asset: The serial must be unique.",
            messages={"serial": ["The serial must be unique."]},
        )


class InvalidCheckoutTargetError(InvalidInputError):
    """The checkout target does not exist, is not visible to the caller, is deleted or deactivated, is the asset
    itself, or is an asset checked out (directly or through other assets) to the asset being checked out."""

    default_code = "invalid_checkout_target"

    def __init__(self, asset, target_type: str, target_id: Any, reason: str | None = None):
        message = reason or f"Checkout target for asset {asset.asset_tag} is invalid - {target_type} does not exist."
        super().__init__(
            message,
            payload={"asset": {"id": asset.pk, "asset_tag": asset.asset_tag}, "target_id": target_id,
                     "target_type": target_type},
        )


class AssetNotFoundError(NotFoundError):
    default_code = "asset_not_found"

    def __init__(self, message: str = "Asset does not exist.", payload: Any = None):
        super().__init__(message, payload=payload)
