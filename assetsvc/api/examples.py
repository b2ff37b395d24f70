"""Real answers of the operations whose success body the schema describes in words only (Snipe-IT's hand-built
shapes: the hardware verbs, an asset's history, the activity report, the token routes). Recorded from a running
server while writing ``docs/quickstart.md`` (asset ``LAP-0042`` checked out to user 2, checked in, audited; a token
listed and made) and attached to the schema by ``assetsvc.api.schema.attach_examples`` under each operation id.
Data only: nothing here imports the apps."""

from __future__ import annotations

from typing import Any

_CHECKOUT = {"status": "success", "messages": "Asset checked out successfully.", "payload": {"asset": "LAP-0042"}}
_CHECKIN = {
    "status": "success",
    "messages": "Asset checked in successfully.",
    "payload": {"asset_tag": "LAP-0042", "model": "MacBook Pro 14", "model_number": ""},
}
_AUDIT = {
    "status": "success",
    "messages": "Asset audit successfully logged.",
    "payload": {"id": 1, "asset_tag": "LAP-0042", "note": "Seen on shelf 3", "next_audit_date": "2027-11-24"},
}
_HISTORY = {
    "total": 4,
    "rows": [
        {
            "id": 9,
            "icon": "",
            "file": None,
            "item": {"id": 1, "name": "Jane's laptop", "type": "asset", "serial": "C02XK1JHJG5J"},
            "location": None,
            "created_at": "2026-11-24T20:50:46Z",
            "updated_at": "2026-11-24T20:50:46Z",
            "next_audit_date": "2027-11-24",
            "days_to_next_audit": 365,
            "action_type": "audit",
            "admin": {"id": 1, "name": "Admin", "first_name": "Admin", "last_name": ""},
            "created_by": {"id": 1, "name": "Admin", "first_name": "Admin", "last_name": ""},
            "target": None,
            "note": "Seen on shelf 3",
            "signature_file": None,
            "log_meta": {"next_audit_date": {"old": None, "new": "2027-11-24"}},
            "remote_ip": "127.0.0.1",
            "user_agent": "curl/7.88.1",
            "action_source": "api",
            "action_date": "2026-11-24T20:50:46Z",
        }
    ],
}

_TOKENS = {
    "status": "success",
    "messages": None,
    "payload": [
        {
            "id": "ce7692fa-09d7-4242-9d15-c1cdc2fde112",
            "user_id": 1,
            "client_id": "0836ba49-0b6b-4fe0-b0ab-63a42b1a1ce8",
            "name": "inventory script",
            "scopes": [],
            "revoked": False,
            "created_at": "2026-11-24T20:51:46.211061Z",
            "updated_at": "2026-11-24T20:51:46.211076Z",
            "expires_at": "2041-11-24T20:51:46.209558Z",
        }
    ],
}
_TOKEN_CREATED = {
    "status": "success",
    "messages": "Personal API Key inventory script created successfully",
    "payload": {
        "id": "ce7692fa-09d7-4242-9d15-c1cdc2fde112",
        "token": "q3Zr9xV0bKc2Wm8TnL5pYs1HdJf7Ga4Ue6Ri0Ow2Xk9Bv3Nc5Mz8Ql1Tj4Py7Sa6Dh",
        "name": "inventory script",
    },
}  # the token value is made up

_BULK_AUDIT = {
    "status": "partial",
    "message": "1 asset(s) audited successfully, 1 failed. See the results array for details.",
    "messages": "1 asset(s) audited successfully, 1 failed. See the results array for details.",
    "payload": {"total": 2, "success": 1, "error": 1},
    "results": [
        {"id": 1, "status": "success", "messages": "Asset audit successfully logged.",
         "payload": {"id": 1, "asset_tag": "LAP-0042", "note": "RFID sweep, room 2", "next_audit_date": "2027-06-01"}},
        {"id": 7, "status": "error", "messages": "Asset does not exist.", "payload": None},
    ],
}

_TWO_FACTOR_RESET = "Two factor device successfully reset"  # Snipe-IT's answer (issue 30)

#: operationId → the success answer's example.
RECORDED_ANSWERS: dict[str, Any] = {
    "hardware_checkout": _CHECKOUT,
    "hardware_bytag_checkout_checkin": _CHECKOUT,
    "hardware_checkin": _CHECKIN,
    "hardware_checkinbytag": _CHECKIN,
    "hardware_audit": _AUDIT,
    "hardware_audit_legacy": _AUDIT,
    "hardware_audit_bulk": _BULK_AUDIT,
    "hardware_history_list": _HISTORY,
    # the other kinds' history (issue 27): the same rows, of their items
    **{f"{kind}_history_retrieve": _HISTORY for kind in ("accessories", "consumables", "components", "licenses",
                                                         "users", "locations", "models")},
    "users_two_factor_reset": {"message": _TWO_FACTOR_RESET},
    "reports_activity_list": _HISTORY,
    "personal_access_tokens_list": _TOKENS,
    "personal_access_tokens_create": _TOKEN_CREATED,
}
