"""Issue 12 item 8: a bounded schemathesis run against the OpenAPI schema, every operation, on the PostgreSQL leg.

Each operation of ``/api/v1/schema`` is one test item: schemathesis generates requests from the schema and sends them
to the WSGI application as a super user with a real personal access token; the test fails on any 5xx or on any
answer the schema does not describe (status code, content type, body).

Bounded and reproducible:

- the coverage phase (boundary and wrong-type values of every parameter and body property, a fixed list) is sent
  with JSON bodies only; the form and multipart bodies it would repeat the same values in are left to the next phase;
- the fuzzing phase sends ``MAX_EXAMPLES`` generated cases per operation, derandomized (the same cases every run),
  no example database; in it, two cases in three point their path ids at a small seeded world (one of each
  resource) so that reads, writes and check-outs of existing rows are fuzzed too, not only not-found answers.

Run alone: ``DATABASE_URL=postgres://... pytest -p no:xdist tests/api/test_fuzz.py`` (docs/testing.md).
"""

from __future__ import annotations

import json
import zlib

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.meta import TestPhase
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.services import personal_token_issue
from inventory.models import AssetModel
from tests.factories import CompanyFactory, UserFactory
from tests.factories.accounts import PermissionGroupFactory
from tests.factories.inventory import (
    AccessoryFactory,
    ConsumableFactory,
    CustomFieldsetFieldFactory,
    LocationFactory,
    SupplierFactory,
    accessory_out,
    checked_out_asset,
    component_in,
    seat_out,
)

MAX_EXAMPLES = 15
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def _load_schema():
    """The document ``/api/v1/schema`` serves, built in-process (collection has no database to authenticate)."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    raw = json.loads(OpenApiJsonRenderer().render(document, renderer_context={}))
    loaded = schemathesis.openapi.from_dict(raw)
    loaded.app = get_wsgi_application()
    return loaded


schema = _load_schema()


@pytest.fixture
def world(db):
    """One row of each resource, keyed by what a path names: ``(path template or first segment, parameter)``."""
    company = CompanyFactory()
    location = LocationFactory(company=company)
    person = UserFactory(company=company, location=location)
    asset = checked_out_asset(person, company=company)
    lent = accessory_out(person, AccessoryFactory(company=company))
    installed = component_in(asset)
    seat = seat_out(person)
    model = asset.model
    membership = CustomFieldsetFieldFactory()  # a fieldset with one field, used by the model
    AssetModel.objects.filter(pk=model.pk).update(fieldset=membership.fieldset)
    by_segment = {
        "accessories": lent.accessory_id, "categories": model.category_id, "companies": company.pk,
        "components": installed.component_id, "consumables": ConsumableFactory().pk,
        "groups": PermissionGroupFactory().pk, "hardware": asset.pk, "licenses": seat.license_id,
        "locations": location.pk, "manufacturers": model.manufacturer_id, "models": model.pk,
        "statuslabels": asset.status_id, "suppliers": SupplierFactory().pk, "users": person.pk,
        "fields": membership.field_id, "fieldsets": membership.fieldset_id,
    }
    ids = {(segment, "id"): pk for segment, pk in by_segment.items()}
    ids |= {
        ("hardware", "asset_pk"): asset.pk, ("hardware", "tag"): asset.asset_tag,
        ("hardware", "serial"): asset.serial, ("users", "user_pk"): person.pk,
        ("locations", "location_pk"): location.pk, ("licenses", "seat_pk"): seat.pk,
        # check-ins name the check-out row, not the item
        ("/api/v1/accessories/{id}/checkin", "id"): lent.pk,
        ("/api/v1/components/{id}/checkin", "id"): installed.pk,
        ("/api/v1/fields/fieldsets/{id}/order", "id"): membership.fieldset_id,
        ("fieldsets", "model_id"): model.pk,
    }
    return ids


def _point_at_world(case, world) -> None:
    """In the fuzzing phase, two cases in three get the seeded rows' ids instead of generated ones (chosen by a hash of
    the generated values, so the run stays reproducible)."""
    if not case.path_parameters or case.meta is None or case.meta.phase.name != TestPhase.FUZZING:
        return
    if zlib.crc32(repr(sorted(case.path_parameters.items())).encode()) % 3 == 0:
        return
    segment = case.path.removeprefix("/api/v1/").split("/")[0]
    for name in list(case.path_parameters):
        value = world.get((case.path, name), world.get((segment, name)))
        if value is not None:
            case.path_parameters[name] = str(value)


@pytest.fixture
def fuzz_headers(db, settings):
    # The fuzzer sends hundreds of requests a minute; the limiter is not what it tests (tests/api/test_rate_limit.py).
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 1_000_000}
    admin = UserFactory(username="fuzz-admin", superuser=True)
    _record, token = personal_token_issue(user=admin, name="fuzz")
    # Requests go through the real WSGI handler, inside the test's transaction: like Django's test client, keep the
    # handler from closing the connection at the end of each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.postgres
@schema.parametrize()
@hypothesis_settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_fuzz(case, fuzz_headers, world):
    if case.meta is not None and case.meta.phase.name == TestPhase.COVERAGE and case.media_type not in (
            None, "application/json"):
        return  # the bound: the coverage phase's values are sent once, as JSON
    _point_at_world(case, world)
    case.call_and_validate(headers=fuzz_headers, checks=CHECKS)
