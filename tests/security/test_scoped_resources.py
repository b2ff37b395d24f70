"""Company separation for every company-scoped kind (specification rules 1 to 8, API-CONTRACT.md §7 and §10), from
``SeparationTests`` in ``tests/api_mixins.py``.

A new scoped kind (accessories, consumables, components, licenses) is added to the matrix by one line in
``SCOPED_RESOURCES``: its test class already declares ``url``, ``section``, ``factory`` (taking ``company``),
``custom_requests`` for its custom verbs and ``reference_requests``. ``test_company_matrix.py`` keeps the
hand-written, wider matrix for assets, users and companies.
"""

from __future__ import annotations

import importlib
import pkgutil

import tests
from tests.accounts import test_api_departments as departments
from tests.api_mixins import APIResource, SeparationTests
from tests.inventory.assets import test_api_mixins as hardware
from tests.inventory.licenses import test_api as licenses
from tests.inventory.maintenances import test_api as maintenances
from tests.inventory.stock import test_api_accessories as accessories
from tests.inventory.stock import test_api_components as components
from tests.inventory.stock import test_api_consumables as consumables

#: One line per company-scoped kind.
SCOPED_RESOURCES: list[type[APIResource]] = [
    hardware.TestHardwareAPI,
    accessories.TestAccessoriesAPI,
    consumables.TestConsumablesAPI,
    licenses.TestLicensesAPI,
    components.TestComponentsAPI,
    departments.TestDepartmentsAPI,
    maintenances.TestMaintenancesAPI,
]


class TestSeparation(SeparationTests):
    resources = SCOPED_RESOURCES


def all_resource_classes() -> set[type[APIResource]]:
    """Every ``APIResource`` class declared under ``tests/`` (importing every test module first)."""
    for module in pkgutil.walk_packages(tests.__path__, prefix="tests."):
        if module.name.startswith("tests.oidc_provider"):
            continue  # the test OpenID provider: a project of its own, run in its own process (no test classes)
        importlib.import_module(module.name)
    found, todo = set(), [APIResource]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return {cls for cls in found if cls.__module__.startswith("tests.") and getattr(cls, "url", None)}


def test_every_scoped_resource_is_in_the_matrix():
    scoped = {cls for cls in all_resource_classes() if cls.scoped}
    missing = sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in scoped - set(SCOPED_RESOURCES))
    assert not missing, f"company-scoped resources missing from SCOPED_RESOURCES: {missing}"
    assert all(cls.scoped for cls in SCOPED_RESOURCES)
