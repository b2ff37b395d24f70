"""Audit (STYLE.md §6, NetBox ``test_model_test_coverage``): every DRF view routed under ``/api/v1/`` has a test class
built on the shared mixins (``tests/api_mixins.py``), or a written exemption below.

A test class covers a view when it inherits ``APIResource`` (any of the mixins) and declares ``viewset = <class>``
or a ``url`` that resolves to that class.
"""

from __future__ import annotations

from urllib.parse import urlparse

from django.urls import URLPattern, URLResolver, get_resolver, include, path, resolve
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSet, ViewSetMixin

from tests.security.test_scoped_resources import all_resource_classes

API_PREFIX = "api/v1"

#: View class (``module.QualName``) → why it has no mixin-based test class.
EXEMPT: dict[str, str] = {
    "accounts.api.views.PersonalAccessTokenListView": "the caller's own tokens, no permission section nor "
    "company: tests/accounts/test_api_tokens.py and test_query_budgets.py",
    "accounts.api.views.PersonalAccessTokenDetailView": "revoking one's own token: tests/accounts/test_api_tokens.py",
    "accounts.api.views.CurrentUserView": "the caller's own profile (/users/me): tests/accounts/test_api_users.py",
    "inventory.api.requests.views.RequestableAssetsView": "the caller's requestable assets, a list with no "
    "create/update/delete: tests/inventory/requests/test_api.py (permission, separation, query count)",
    "inventory.api.requests.views.AssetRequestView": "the caller asks for an asset: "
    "tests/inventory/requests/test_api.py",
    "inventory.api.requests.views.AssetRequestCancelView": "the caller withdraws their request: "
    "tests/inventory/requests/test_api.py",
    "inventory.api.requests.views.MyRequestsView": "the caller's own requests: tests/inventory/requests/test_api.py",
    "inventory.api.acceptances.views.MyEulasView": "the caller's own accepted EULAs: "
    "tests/inventory/acceptance/test_api_eulas.py",
    "inventory.api.acceptances.views.MyEulaFileView": "a PDF download of one's own: "
    "tests/inventory/acceptance/test_api_eulas.py",
    "inventory.api.acceptances.views.UserEulasView": "a user's accepted EULAs, unpaged, no writes: "
    "tests/inventory/acceptance/test_api_eulas.py (permission, separation)",
    "inventory.api.acceptances.views.UserEulaFileView": "a PDF download: tests/inventory/acceptance/test_api_eulas.py",
    "inventory.transfer.api.ImportListView": "CSV uploads, not a resource of the mixins' shape (multipart, the "
    "caller's own files): tests/inventory/transfer/test_api_imports.py",
    "inventory.transfer.api.ImportDetailView": "one CSV upload: tests/inventory/transfer/test_api_imports.py",
    "inventory.transfer.api.ImportProcessView": "runs the importer: tests/inventory/transfer/test_api_imports.py",
    "inventory.api.reports.DepreciationReportView": "a report, not a resource: "
    "tests/inventory/depreciations/test_api.py (permission, separation, JSON and CSV)",
    "assetsvc.api.views.SchemaView": "the OpenAPI document, not a resource: tests/api/test_openapi.py",
    "assetsvc.api.views.VersionView": "one constant, no resource: tests/api/test_version.py",
    "assetsvc.api.views.EndpointNotFoundView": "the 404 envelope of unknown paths: tests/api/test_envelope.py",
    "accounts.api.twofactor.TwoFactorResetView": "clears a user's two-factor devices, one POST, no resource: "
    "tests/accounts/test_two_factor_api.py (super users only, separation, action log)",
    "accounts.api.twofactor.LoginAttemptsView": "axes' sign-in logs, no model of ours: "
    "tests/accounts/test_two_factor_api.py",
    "inventory.api.assets.labels.AssetLabelsView": "label PDFs of assets, not a resource (one POST answering a "
    "file): tests/inventory/assets/test_api_label_pdfs.py (permission, separation, templates)",
    "inventory.api.assets.labels.LabelTemplateListView": "the fixed label templates, no model: "
    "tests/inventory/assets/test_api_label_pdfs.py",
    "inventory.api.assets.labels.LabelTemplateDetailView": "one fixed label template: "
    "tests/inventory/assets/test_api_label_pdfs.py",
    **{f"accounts.api.ldap.{name}": "the directory's sync and tests (issue 30), no resource: tests/ldap/test_api.py "
       "against a real slapd; without LDAP, tests/accounts/test_api_unavailable.py"
       for name in ("UserLdapSyncView", "LdapTestView", "LdapTestLoginView")},
    "notifications.api.MailTestView": "sends a test mail, no resource: tests/mail/test_api.py",
    "notifications.api.UserEmailView": "mails a user their inventory, no resource: tests/mail/test_api.py",
}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def routed_views(patterns=None, prefix: str = "") -> dict[type, set[str]]:
    """Every DRF view class routed under ``/api/v1/`` → its route patterns."""
    found: dict[type, set[str]] = {}
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            for cls, routes in routed_views(entry.url_patterns, route).items():
                found.setdefault(cls, set()).update(routes)
        elif isinstance(entry, URLPattern):
            cls = getattr(entry.callback, "cls", None)
            if cls is not None and issubclass(cls, APIView) and route.lstrip("^").startswith(API_PREFIX):
                found.setdefault(cls, set()).add(route)
    return found


def covering_classes() -> dict[type, list[str]]:
    """View class → the test classes that cover it (by ``viewset``, or by ``url`` resolving to it)."""
    covered: dict[type, list[str]] = {}
    for test_class in all_resource_classes():
        views = set()
        if getattr(test_class, "viewset", None) is not None:
            views.add(test_class.viewset)
        match = resolve(urlparse(test_class.url).path)
        views.add(getattr(match.func, "cls", None))
        for view in views - {None}:
            covered.setdefault(view, []).append(_name(test_class))
    return covered


def test_the_walk_finds_the_api_views():
    """Guard against a walk that silently finds nothing."""
    found = {_name(cls) for cls in routed_views()}
    assert {"inventory.api.assets.views.AssetViewSet", "inventory.api.catalogue.views.StatusLabelViewSet",
            "accounts.api.users.UserViewSet", "companies.api.views.CompanyViewSet",
            "inventory.api.reports.ActivityReportViewSet", "accounts.api.views.CurrentUserView"} <= found


def uncovered() -> list[str]:
    covered = covering_classes()
    return sorted(f"{_name(cls)} ({', '.join(sorted(routes))})" for cls, routes in routed_views().items()
                  if cls not in covered and _name(cls) not in EXEMPT)


def test_every_api_view_has_a_test_class_or_an_exemption():
    missing = uncovered()
    assert not missing, ("API views without a test class on tests/api_mixins.py (declare viewset = <class> or its "
                         f"url) or an entry in EXEMPT with a reason: {missing}")


def test_every_viewset_is_covered_by_a_test_class_not_an_exemption():
    """Exemptions are for the plain views (tokens, profile, schema); a viewset serves a resource."""
    exempt_viewsets = [_name(cls) for cls in routed_views() if issubclass(cls, ViewSetMixin)
                       and _name(cls) in EXEMPT]
    assert not exempt_viewsets


def test_exemptions_are_still_routed_and_have_reasons():
    routed = {_name(cls) for cls in routed_views()}
    assert set(EXEMPT) <= routed, set(EXEMPT) - routed
    assert all(reason.strip() for reason in EXEMPT.values())


class DummyViewSet(ViewSet):
    """A viewset nobody tests, routed only by the URLconf of the test below."""

    def list(self, request):  # pragma: no cover - never called
        raise NotImplementedError


def test_the_audit_fails_for_a_new_untested_viewset(settings):
    """The audit has teeth: route a dummy viewset under /api/v1 beside the real routes, and it is reported."""
    import assetsvc.urls

    settings.ROOT_URLCONF = type("URLConfWithADummy", (), {"urlpatterns": [
        path("api/v1/", include([path("dummies", DummyViewSet.as_view({"get": "list"}))])),
        *assetsvc.urls.urlpatterns,
    ]})
    missing = uncovered()
    assert missing == [f"{__name__}.DummyViewSet (api/v1/dummies)"]
