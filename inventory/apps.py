from django.apps import AppConfig


def assets_for_show(queryset):
    """Listed asset counts skip soft-deleted assets, and archived ones unless the site shows them (Snipe-IT
    ``scopeAssetsForShow``)."""
    from assetsvc.site import get_site_settings
    from inventory.choices import StatusType

    queryset = queryset.filter(deleted_at__isnull=True)
    if not get_site_settings().show_archived_in_list:
        queryset = queryset.exclude(status__type=StatusType.ARCHIVED)
    return queryset


class InventoryConfig(AppConfig):
    name = "inventory"

    def ready(self) -> None:
        """Tell the lower layers what inventory's kinds hold and count (``assetsvc.registry``)."""
        from accounts.holdings import UserHolding, register_user_holding
        from assetsvc.services import alive
        from companies.counts import CountedKind, register_company_count
        from inventory.portal import pages as portal_pages
        from inventory.selectors.counts import (
            CatalogueCount,
            CatalogueReference,
            register_catalogue_count,
            register_catalogue_reference,
        )
        from inventory.services import (
            licenses,  # noqa: F401  (register the license, accessory and consumable kinds)
            stock,  # noqa: F401
        )

        for catalogue, field in (("StatusLabel", "status"), ("Category", "model__category"),
                                 ("Manufacturer", "model__manufacturer"), ("Supplier", "supplier"),
                                 ("Location", "location"), ("AssetModel", "model")):
            register_catalogue_count(CatalogueCount(f"inventory.{catalogue}", "assets_count", "inventory.Asset", field))
        register_catalogue_count(CatalogueCount("inventory.Depreciation", "assets_count", "inventory.Asset",
                                                "model__depreciation"))
        register_catalogue_count(CatalogueCount("inventory.Depreciation", "models_count", "inventory.AssetModel",
                                                "depreciation"))
        register_catalogue_count(CatalogueCount("inventory.Location", "rtd_assets_count", "inventory.Asset",
                                                "rtd_location"))
        register_catalogue_count(CatalogueCount("inventory.Location", "assigned_assets_count", "inventory.Asset",
                                                "assigned_location"))
        register_catalogue_count(CatalogueCount("inventory.Location", "users_count", "accounts.User", "location"))

        register_company_count(CountedKind("assets_count", "inventory.Asset", assets_for_show))
        register_company_count(CountedKind("accessories_count", "inventory.Accessory"))
        register_company_count(CountedKind("consumables_count", "inventory.Consumable"))
        register_company_count(CountedKind("components_count", "inventory.Component"))
        register_company_count(CountedKind("licenses_count", "inventory.License"))
        # Accessories, consumables, components and licenses on the catalogue records (live items, as Snipe-IT's
        # withCount).
        for kind, name in (("Accessory", "accessories_count"), ("Consumable", "consumables_count"),
                           ("Component", "components_count"), ("License", "licenses_count")):
            for catalogue, field in (("Category", "category"), ("Manufacturer", "manufacturer"),
                                     ("Supplier", "supplier")):
                register_catalogue_count(CatalogueCount(f"inventory.{catalogue}", name, f"inventory.{kind}", field))
        register_catalogue_count(CatalogueCount("inventory.Location", "accessories_count", "inventory.Accessory",
                                                "location"))
        register_catalogue_count(CatalogueCount("inventory.Location", "assigned_accessories_count",
                                                "inventory.AccessoryCheckout", "assigned_location",
                                                units="assigned_qty"))
        # What holds a catalogue entry (its delete guard and the records' delete flag).
        for reference in (
            CatalogueReference("inventory.StatusLabel", "inventory.Asset", "status"),
            # Any asset model holds its category (the foreign key protects it, whatever the category's type).
            CatalogueReference("inventory.Category", "inventory.AssetModel", "category"),
            CatalogueReference("inventory.Manufacturer", "inventory.Asset", "model__manufacturer", rows=alive),
            CatalogueReference("inventory.Supplier", "inventory.Asset", "supplier"),
            CatalogueReference("inventory.Location", "inventory.Asset", "location"),
            CatalogueReference("inventory.Location", "inventory.Asset", "rtd_location"),
            CatalogueReference("inventory.Location", "inventory.Asset", "assigned_location"),
            CatalogueReference("inventory.Location", "inventory.Location", "parent"),
            CatalogueReference("inventory.Location", "accounts.User", "location", rows=alive),
            CatalogueReference("inventory.AssetModel", "inventory.Asset", "model", rows=alive),
            CatalogueReference("inventory.Depreciation", "inventory.AssetModel", "depreciation"),
            # Accessories and consumables hold their category, supplier and location (deleted for real, so even a
            # soft-deleted item holds them) and, while live, their manufacturer; units out hold a location.
            *(CatalogueReference(f"inventory.{catalogue}", f"inventory.{kind}", field)
              for kind in ("Accessory", "Consumable", "Component")
              for catalogue, field in (("Category", "category"), ("Supplier", "supplier"), ("Location", "location"))),
            CatalogueReference("inventory.Category", "inventory.License", "category"),
            CatalogueReference("inventory.Supplier", "inventory.License", "supplier"),
            *(CatalogueReference("inventory.Manufacturer", f"inventory.{kind}", "manufacturer", rows=alive)
              for kind in ("Accessory", "Consumable", "Component", "License")),
            CatalogueReference("inventory.Location", "inventory.AccessoryCheckout", "assigned_location"),
            CatalogueReference("inventory.Supplier", "inventory.Maintenance", "supplier"),  # deleted ones too
        ):
            register_catalogue_reference(reference)
        register_user_holding(UserHolding(
            name="assets", model_label="inventory.Asset", user_field="assigned_user", count_name="assets_count",
            blocks_delete=("This user still has an asset assigned. Please check it in first.",
                           "This user still has :count assets assigned. Please check their assets in first."),
            messages_key="assigned_assets", code="user_has_items", follows_user_location=True, returnable=True,
        ))
        # Accessories out to a user block deleting them (reference §6.3) and changing their company; consumables are
        # used up: counted, never blocking (API-CONTRACT.md §10).
        register_user_holding(UserHolding(
            name="accessories", model_label="inventory.AccessoryCheckout", user_field="assigned_user",
            count_name="accessories_count", units="assigned_qty",
            blocks_delete=("This user still has an accessory checked out. Please check it in first.",
                           "This user still has :count accessories checked out. Please check them in first."),
            messages_key="assigned_accessories", code="user_has_items", company_field="accessory__company",
            returnable=True,
        ))
        register_user_holding(UserHolding(
            name="consumables", model_label="inventory.ConsumableAssignment", user_field="assigned_user",
            count_name="consumables_count", units="assigned_qty", company_field=None,
        ))
        # License seats assigned to a user block deleting them (reference §6.3) and changing their company.
        register_user_holding(UserHolding(
            name="licenses", model_label="inventory.LicenseSeat", user_field="assigned_user",
            count_name="licenses_count",
            blocks_delete=("This user still has a license seat assigned. Please check it in first.",
                           "This user still has :count license seats assigned. Please check them in first."),
            messages_key="assigned_licenses", code="user_has_items", company_field="license__company",
            returnable=True,
        ))
        register_user_holding(UserHolding(
            name="managed_locations", model_label="inventory.Location", user_field="manager",
            blocks_delete=("This user still manages a location. Please select another manager first.",
                           "This user still manages :count locations. Please select another manager first."),
            messages_key="managed_locations", code="user_manages_locations", company_field=None,
        ))
        register_file_kinds()
        register_directory_lookups()
        portal_pages.register()  # the employees' pages under /account/ (issue 32)


def register_directory_lookups() -> None:
    """The directory sync (issue 30, ``accounts.ldap.services``) fills a user's location by name: one of the user's
    company, else one of no company."""
    from accounts.ldap.services import LOOKUP_STORE, one_by_name
    from assetsvc.registry import register_entry
    from inventory.models import Location

    register_entry(LOOKUP_STORE, "location",
                   lambda name, company_id: one_by_name(Location.objects.all(), name, company_id))


def register_file_kinds() -> None:
    """The kinds of record that hold files (issue 27; ``activity.files``): Snipe-IT's object types. Each kind's
    queryset is what the caller may see (company separation, live rows); the API finds the record through it."""
    from activity.files import FileKind, register_file_kind
    from inventory.models import Accessory, Asset, AssetModel, Component, Consumable, License, Location
    from inventory.services.licenses import NOT_FOUND as LICENSE_NOT_FOUND

    def scoped(model):
        return lambda user: model.objects.restrict(user).filter(deleted_at__isnull=True)

    def no_company(record) -> None:
        return None

    for kind in (
        FileKind("asset", "inventory.Asset", ("assets", "hardware"), "assets", "edit", "Asset does not exist.",
                 scoped(Asset)),
        FileKind("accessory", "inventory.Accessory", ("accessories",), "accessories", "files",
                 "Accessory not found", scoped(Accessory)),
        FileKind("consumable", "inventory.Consumable", ("consumables",), "consumables", "files",
                 "Consumable not found", scoped(Consumable)),
        FileKind("component", "inventory.Component", ("components",), "components", "files",
                 "Component not found", scoped(Component)),
        FileKind("license", "inventory.License", ("licenses",), "licenses", "files", LICENSE_NOT_FOUND,
                 scoped(License)),
        # Models are shared catalogue records; locations are not company-scoped (docs/catalogue.md).
        FileKind("model", "inventory.AssetModel", ("models",), "models", "edit", "AssetModel not found",
                 lambda user: AssetModel.objects.filter(deleted_at__isnull=True), no_company),
        FileKind("location", "inventory.Location", ("locations",), "locations", "edit", "Location not found",
                 lambda user: Location.objects.all(), no_company),
    ):
        register_file_kind(kind)
