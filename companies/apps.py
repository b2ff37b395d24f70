from django.apps import AppConfig


class CompaniesConfig(AppConfig):
    name = "companies"
