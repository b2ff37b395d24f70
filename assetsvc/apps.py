from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AssetsvcConfig(AppConfig):
    name = "assetsvc"
    verbose_name = "Site settings"


class AssetsvcAdminConfig(admin_apps.AdminConfig):
    """Django's admin with our site (``assetsvc.admin_site.AssetsvcAdminSite``) as ``admin.site``: every app's
    ``admin.site.register`` lands there unchanged (issue 28). ``default = False``: never picked as the configuration
    of the ``assetsvc`` app itself."""

    default = False
    default_site = "assetsvc.admin_site.AssetsvcAdminSite"
