from django.apps import AppConfig


class CompaniesConfig(AppConfig):
    name = "companies"

    def ready(self) -> None:
        from assetsvc.registry import register_hook
        from companies.querysets import CompanySeparationPolicy

        register_hook("scope_policy", CompanySeparationPolicy)
