"""What ``/api/docs`` says of the accounts operations that are not plain create/read/update/delete."""

from assetsvc.api.operation_docs import OperationText, register_operation_texts, register_tag_descriptions

_OWN = "Any signed-in user, for their own account only."

register_tag_descriptions({
    "users": "People: the users items are checked out to, and those who sign in and call the API.",
    "groups": "Permission groups: named sets of permissions that users belong to. Super users only.",
    "account": "The caller's own account: personal access tokens and checkout requests.",
    "departments": "Departments people belong to, with their company, location and manager.",
    "companies": "Companies: with company separation on, each user sees and uses only their company's records.",
})

register_operation_texts({
    "users_me": OperationText(
        "Who am I", "The caller's own user record (not wrapped in the success envelope).", _OWN),
    "personal_access_tokens_list": OperationText(
        "List my tokens", "The caller's active personal access tokens: name, scopes, created and expiry dates; "
        "never the token itself.", _OWN),
    "personal_access_tokens_create": OperationText(
        "Create a token", "Creates a personal access token for the caller. Its value is in this answer only: it is "
        "stored hashed and cannot be shown again.", _OWN),
    "personal_access_tokens_revoke": OperationText(
        "Revoke a token", "Revokes one of the caller's tokens; the next request with it gets 401.", _OWN),
    "users_list_by_status": OperationText(
        "List users by status",
        "Snipe-IT's older list address: ``deleted`` lists the deleted users, ``all`` every user, ``active`` (or no "
        "status) the live ones, each as ``GET /users`` lists them (the same filters, search, sort and pages). Any "
        "other status is a field error on ``status``."),
})
