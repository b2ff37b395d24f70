from django.apps import AppConfig


class AssetsvcConfig(AppConfig):
    name = "assetsvc"
    verbose_name = "Site settings"
