"""What ``/api/docs`` says of inventory's operations that are not plain create/read/update/delete (the standard
ones are written by ``assetsvc.api.operation_docs`` from the resource's name)."""

from assetsvc.api.operation_docs import OperationText, register_operation_texts, register_tag_descriptions

register_tag_descriptions({
    "hardware": "Assets (Snipe-IT's hardware): create, find by tag or serial, check out to a user, an asset or a "
                "location, check in, audit, and change many at once.",
    "accessories": "Accessories: items kept in a quantity and checked out to users, assets or locations.",
    "consumables": "Consumables: items kept in a quantity and handed out for good (toner, cables).",
    "components": "Components: parts kept in a quantity and installed into assets (RAM, disks).",
    "licenses": "Software licenses and their seats, checked out to users or assets.",
    "models": "Asset models: a make and model of hardware; every asset is one of these.",
    "categories": "Categories of items (asset, accessory, consumable, component, license).",
    "manufacturers": "Manufacturers of models and items.",
    "suppliers": "Suppliers items are bought from.",
    "statuslabels": "Status labels: whether an asset is deployable, pending, undeployable or archived.",
    "locations": "Locations, nested through a parent; where assets are, and where they return to.",
    "fields": "Custom fields that assets of a model carry, through the model's fieldset.",
    "fieldsets": "Fieldsets: the ordered custom fields of a model's assets.",
    "reports": "Reports: the activity log, and the depreciation of assets.",
    "depreciations": "Depreciations: how the assets of a model lose value, for their book value.",
    "notes": "Notes on assets, kept in the asset's history.",
    "kits": "Predefined kits: a set of models, licenses, accessories and consumables handed to a new colleague in "
            "one checkout.",
    "labels": "Label templates: the sheets and tapes ``POST /hardware/labels`` lays asset labels out on.",
    "maintenances": "Maintenances of assets: repairs, upgrades, tests and support, with supplier, dates and cost.",
})

_CHECKIN_QTY = "``checkin_qty`` (default: all of the row's units)"

register_operation_texts({
    # --- hardware -------------------------------------------------------------------------------------------------
    "hardware_checkout": OperationText(
        "Check an asset out",
        "Checks a deployable, available asset out to a user (``assigned_user``), another asset "
        "(``assigned_asset``) or a location (``assigned_location``), named by ``checkout_to_type``, with an optional "
        "``expected_checkin``, ``checkout_at``, ``name`` and ``note``. An asset that is already checked out, "
        "undeployable, or a target you may not see is refused and nothing changes; two checkouts racing for the same "
        "asset never both succeed."),
    "hardware_checkin": OperationText(
        "Check an asset in",
        "Checks the asset in from whoever holds it, optionally setting ``status_id``, ``location_id`` and a "
        "``note``. An asset that is not checked out is refused."),
    "hardware_audit": OperationText(
        "Audit an asset",
        "Records that the asset was seen: the audit date, the ``next_audit_date`` (given, or computed from the audit "
        "interval), an optional ``location_id`` (updating where it is) and ``note``."),
    "hardware_audit_legacy": OperationText(
        "Audit an asset by tag",
        "The older form of the audit: the asset is named by ``asset_tag`` in the body instead of the path."),
    "hardware_audit_bulk": OperationText(
        "Audit many assets",
        "One audit for many assets (``assets``: ids). Each asset is judged as a single audit would be; the answer "
        "lists what succeeded and the errors of the rest."),
    "hardware_bulk_update": OperationText(
        "Change many assets (PUT)",
        "The same as PATCH on ``hardware/bulk``: one change applied to many assets."),
    "hardware_bulk_partial_update": OperationText(
        "Change many assets",
        "Applies the same change (status, location, model, custom fields...) to many assets (``ids``). Each asset "
        "is judged as a single PATCH would be; the answer lists the assets changed and the errors of the others."),
    "hardware_bytag_retrieve": OperationText(
        "Find an asset by tag",
        "Answers the asset with this asset tag (tags may contain ``/``), or \"not found\"."),
    "hardware_byserial_list": OperationText(
        "Find assets by serial",
        "Answers a list of the assets with this serial (serials need not be unique)."),
    "hardware_bytag_checkout_checkin": OperationText(
        "Check out or in by tag",
        "``checkout`` or ``checkin`` the asset named by its tag, with the same body and rules as the id-based "
        "routes."),
    "hardware_checkinbytag": OperationText(
        "Check in by tag",
        "Checks in the asset named by ``asset_tag`` in the body, with the same rules as ``hardware/{id}/checkin``."),
    "hardware_upcoming_list": OperationText(
        "Audits or checkins due",
        "Assets whose audit (``audits``) or expected checkin (``checkins``) is ``due`` soon, ``overdue``, or "
        "``due-or-overdue``, in the hardware list's shape."),
    "hardware_qr_retrieve": OperationText(
        "QR code of an asset",
        "The asset's label code, encoding its tag and the address of its page in the back office, as SVG (default) "
        "or PNG (``format=png``)."),
    "hardware_labels_create": OperationText(
        "Print asset labels (PDF)",
        "One PDF of the labels of the assets given by ``asset_tags`` (or ``asset_ids``): each with its QR code and "
        "the texts of ``fields`` (default: tag and name), on the ``template`` of ``GET /labels`` (default: the first "
        "one). The PDF is base64 in ``payload.pdf``, or the file itself with ``Accept: application/pdf`` or "
        "``format=pdf``. An asset that is not found, or that the caller may not see, refuses the whole request."),
    "labels_list": OperationText(
        "List label templates",
        "The label templates, in Snipe-IT's shape: page size and margins, what a label supports, and for sheets "
        "the label's size and the grid (``sheet_info``, ``rectanglesheet_info``). ``search`` matches part of the name; "
        "``offset`` and ``limit`` page through them, as in Snipe-IT."),
    "labels_retrieve": OperationText(
        "Get a label template",
        "One template by its name; a ``/`` in the path stands for the name's ``\\`` "
        "(``Sheets/Avery/L7163_A``)."),
    "hardware_assigned_accessories_list": OperationText(
        "Accessories checked out to an asset", "The accessories checked out to this asset, one row per checkout."),
    "hardware_components_list": OperationText(
        "Components installed in an asset", "The components installed in this asset, one row per installation."),
    "hardware_licenses_list": OperationText(
        "Licenses of an asset", "One license record per seat this asset holds."),
    "users_assets_list": OperationText(
        "Assets of a user", "The live assets checked out to this user, in the hardware list's shape."),
    # --- checkout requests ----------------------------------------------------------------------------------------
    "account_requestable_hardware_list": OperationText(
        "Assets I may request",
        "A page of the assets the caller may ask for: flagged requestable, not deleted, with a deployable or pending "
        "status, of a company the caller may see. ``available_actions`` says whether the caller has asked already."),
    "account_request_create": OperationText(
        "Request an asset",
        "Asks for the asset; an administrator fulfils the request by checking it out to the caller. Asking again "
        "keeps the one open request. An asset that is not requestable is refused."),
    "account_request_cancel": OperationText(
        "Cancel my request", "Withdraws the caller's open request for the asset."),
    "account_requests_list": OperationText(
        "My requests", "The caller's open requests, newest first.", "Any signed-in user, for their own requests."),
    # --- accepted EULAs (issue 29) ----------------------------------------------------------------------------------
    "account_eulas_list": OperationText(
        "My accepted EULAs",
        "The checkouts the caller accepted on the acceptance page, newest first (``{total, rows}``): the item, when it "
        "was checked out and accepted, the note, the EULA's SHA-256 and the ``url`` of the signed PDF.",
        "Any signed-in user, for their own EULAs."),
    "account_eulas_file": OperationText(
        "Download my signed EULA", "The PDF kept when the caller accepted the checkout.",
        "Any signed-in user, for their own EULAs; anything else is not found."),
    "users_eulas_list": OperationText(
        "A user's accepted EULAs",
        "The checkouts this user accepted, in the shape of ``account/eulas``. Another company's user is not found."),
    "users_eulas_file": OperationText(
        "Download a user's signed EULA",
        "The PDF kept when the user accepted the checkout.",
        "The user themselves, or holders of ``users.view`` who may see that user; anyone else gets not found."),
    "hardware_assigned_assets_list": OperationText(
        "Assets checked out to an asset", "The assets checked out to this asset, in the hardware list's shape."),
    "models_assets_list": OperationText(
        "Assets of a model", "The assets of the model named by ``model_id``, in the hardware list's shape; needs "
        "``models.view`` as well."),
    "locations_assets_list": OperationText(
        "Assets at a location", "The assets whose current location is this one, in the hardware list's shape; needs "
        "``locations.view`` as well."),
    "locations_assigned_assets_list": OperationText(
        "Assets checked out to a location", "The assets checked out to this location, in the hardware list's "
        "shape; needs ``locations.view`` as well."),
    "locations_users_list": OperationText(
        "Users at a location", "The users whose location is this one, in the users list's shape; needs "
        "``users.view`` as well."),
    "statuslabels_assetlist_list": OperationText(
        "Assets with a status label", "The assets with this status label, in the hardware list's shape; needs "
        "``assets.view`` as well."),
    "statuslabels_deployable_retrieve": OperationText(
        "Is a status label deployable", "A bare ``1`` when assets with this label can be checked out, else ``0``."),
    "statuslabels_assets_name_retrieve": OperationText(
        "Asset counts by status label", "The number of assets per status label, as chart data (labels, counts and "
        "colours); only the assets you may see are counted."),
    "statuslabels_assets_type_retrieve": OperationText(
        "Asset counts by status type", "The number of assets per status type (deployable, pending, undeployable, "
        "archived, deployed), as chart data; only the assets you may see are counted."),
    "notes_store_create": OperationText(
        "Add a note to an asset", "Adds ``note`` (required) to the asset's history as a \"note added\" entry."),
    "notes_index_list": OperationText(
        "Notes of an asset", "The notes added to the asset, newest first, as ``{total, rows}``."),
    "reports_depreciation_list": OperationText(
        "Depreciation report",
        "The assets whose model has a depreciation: cost, book value today, how much they lost, the monthly "
        "depreciation, the date they are fully depreciated (``eol_date``) and the whole months left. ``format=csv`` "
        "(or ``Accept: text/csv``) answers every row as a CSV file instead of a page.",
        "Needs ``reports.view`` (or ``admin``). With company separation on, only your company's assets."),
    # --- kits ---------------------------------------------------------------------------------------------------------
    "kits_lines_list": OperationText(
        "Lines of a kit", "The kit's ``models``, ``licenses``, ``accessories`` or ``consumables`` (the path says "
        "which), each with its quantity; items of another company are left out for a caller limited to theirs."),
    "kits_lines_add": OperationText(
        "Add a line to a kit", "Adds a model (``model_id``), license (``license_id``), accessory (``accessory_id``) "
        "or consumable (``consumable_id``) with a ``quantity`` (default 1). An item already on the kit is refused."),
    "kits_lines_update": OperationText("Change a line's quantity (PUT)", "The same as PATCH."),
    "kits_lines_partial_update": OperationText(
        "Change a line's quantity", "Sets the ``quantity`` of the item on the kit; an item not on it is \"not "
        "found\"."),
    "kits_lines_remove": OperationText("Remove a line from a kit", "Takes the item off the kit."),
    "kits_checkout_create": OperationText(
        "Check a kit out to a user",
        "Hands everything the kit lists to ``user_id`` in one transaction: for each model line that many deployable "
        "assets, for each license line free seats, and the accessories and consumables. If anything is short, "
        "nothing is checked out and the answer lists what is missing.",
        "Needs ``kits.view`` and the checkout permission of every kind the kit holds (``assets.checkout`` for "
        "models). With company separation on, only your company's items and users."),
    # --- stock kinds ----------------------------------------------------------------------------------------------
    "accessories_checkout_create": OperationText(
        "Check an accessory out",
        "Checks ``checkout_qty`` units (default 1) out to a user, an asset or a location (``assigned_to`` with "
        "``checkout_to_type``). More units than remain are refused and nothing is written; concurrent checkouts "
        "never over-issue. The payload is the new checkout row, whose ``id`` checks it in."),
    "accessories_checkin_create": OperationText(
        "Check an accessory in",
        f"``{{id}}`` is the checkout row's id (as in Snipe-IT), not the accessory's. Brings back {_CHECKIN_QTY}."),
    "accessories_checkedout_list": OperationText(
        "Who holds an accessory", "The accessory's checkout rows, newest first."),
    "consumables_checkout_create": OperationText(
        "Hand out a consumable",
        "Hands ``checkout_qty`` units (default 1) to a user (``assigned_to``). More units than remain are refused "
        "and nothing is written; concurrent checkouts never over-issue."),
    "consumables_users_list": OperationText(
        "Who took a consumable", "Who took units of the consumable, newest first."),
    "components_checkout_create": OperationText(
        "Install a component",
        "Installs ``assigned_qty`` units (default 1) into an asset (``assigned_to``). More units than remain are "
        "refused and nothing is written. The payload is the installation row, whose ``id`` takes it out again."),
    "components_checkin_create": OperationText(
        "Take a component out",
        f"``{{id}}`` is the installation row's id (as in Snipe-IT). Takes out {_CHECKIN_QTY}."),
    "components_assets_list": OperationText(
        "Assets a component is installed in",
        "The assets this component is installed in, newest first; needs ``assets.view`` as well."),
    "users_accessories_list": OperationText(
        "Accessories of a user", "The accessories checked out to this user, one record per checkout."),
    "users_consumables_list": OperationText(
        "Consumables of a user", "The consumables this user took, one record per checkout."),
    "users_licenses_list": OperationText(
        "Licenses of a user", "One license record per seat this user holds."),
    "locations_assigned_accessories_list": OperationText(
        "Accessories checked out to a location", "The accessories checked out to this location, one row per checkout."),
    # --- licenses -------------------------------------------------------------------------------------------------
    "licenses_seats_list": OperationText("Seats of a license", "The license's seats, in id order."),
    "licenses_seats_retrieve": OperationText("Get a seat", "One seat of the license."),
    "licenses_seats_update": OperationText(
        "Check a seat out or in (PUT)", "The same as PATCH on the seat."),
    "licenses_seats_partial_update": OperationText(
        "Check a seat out or in",
        "Checks the seat out to a user (``assigned_to``) or an asset (``asset_id``), or in (both null). The payload "
        "is the seat as it is now. A seat that is taken is refused."),
    # --- catalogue and custom fields ------------------------------------------------------------------------------
    "categories_typed_selectlist": OperationText(
        "Categories of one item type for a picker",
        "The select list of the categories of one item type (``asset``, ``accessory``, ``consumable``, "
        "``component``, ``license``)."),
    "fields_associate_create": OperationText(
        "Add a field to a fieldset",
        "Adds the field to a fieldset (``fieldset_id``) at ``order`` (default: last), ``required`` or not."),
    "fields_disassociate_create": OperationText(
        "Take a field out of a fieldset",
        "Takes the field out of the fieldset (``fieldset_id``); values already on assets are kept, hidden."),
    "fields_fieldsets_order": OperationText(
        "Reorder a fieldset's fields", "``item`` lists every field of the fieldset once, in the new order."),
    "fieldsets_fields_list": OperationText(
        "Fields of a fieldset", "The fieldset's fields in order, each with its ``required`` flag."),
    "fieldsets_fields_list_post": OperationText(
        "Fields of a fieldset (POST)", "The same as GET (Snipe-IT's clients read it with POST)."),
    "fieldsets_fields_for_model": OperationText(
        "Fields of a fieldset for a model", "The fieldset's fields with each one's default value for the model."),
    "fieldsets_fields_for_model_post": OperationText(
        "Fields of a fieldset for a model (POST)", "The same as GET (Snipe-IT's clients read it with POST)."),
})
