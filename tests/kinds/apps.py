from django.apps import AppConfig


class KindsConfig(AppConfig):
    name = "tests.kinds"
    label = "test_kinds"
