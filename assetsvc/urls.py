"""URL map: the web root (``/``), the Django admin, the health endpoints, the acceptance page (``/accept/<token>/``),
single sign-on (``/oidc/``), the API under ``/api/v1`` (trailing slash optional) and its browsable docs (``/api/docs``
Swagger UI, ``/api/redoc`` ReDoc)."""

from django.contrib import admin
from django.urls import include, path, re_path

from assetsvc import health, home
from assetsvc.api.backups import BackupDownloadView, BackupLatestDownloadView, BackupListView
from assetsvc.api.site_settings import PurgeBarcodesView, SiteSettingsRecordView, SiteSettingsView
from assetsvc.api.views import EndpointNotFoundView, RedocDocsView, SchemaView, SwaggerDocsView, VersionView

api_v1 = [
    path("", include("activity.api.urls")),  # files on records: /<kind>/<id>/files (before the kinds' own routes)
    path("", include("accounts.api.urls")),
    path("", include("companies.api.urls")),
    path("", include("inventory.api.urls")),
    path("", include("inventory.transfer.urls")),  # /imports drive the importer, which sits above the API resources
    path("", include("notifications.urls")),  # settings/slacktest: the webhook test message
    path("schema", SchemaView.as_view(), name="schema"),
    re_path(r"^version/?$", VersionView.as_view()),
    path("settings/backups", BackupListView.as_view(), name="settings-backups"),
    path("settings/backups/download/latest", BackupLatestDownloadView.as_view(), name="settings-backups-latest"),
    path("settings/backups/download/<path:file>", BackupDownloadView.as_view(), name="settings-backups-download"),
    re_path(r"^settings/purge_barcodes/?$", PurgeBarcodesView.as_view()),
    re_path(r"^settings/?$", SiteSettingsView.as_view(), name="settings"),
    re_path(r"^settings/(?P<setting>[^/]+)/?$", SiteSettingsRecordView.as_view()),  # last of settings/...
]

urlpatterns = [
    path("admin/two-factor/", include("accounts.twofactor.urls")),  # the code page and enrolment (issue 30)
    path("admin/", include("accounts.password_reset")),  # password reset by mail (issue 30)
    path("admin/", admin.site.urls),
    path("health", health.live, name="health"),
    path("health/ready", health.ready, name="health-ready"),
    path("health/worker", health.worker, name="health-worker"),
    path("api/docs", SwaggerDocsView.as_view(), name="api-docs"),
    path("api/redoc", RedocDocsView.as_view(), name="api-redoc"),
    path("oidc/", include("accounts.sso.urls")),  # single sign-on (issue 30): 404 while OIDC_ISSUER is empty
    path("account/", include("accounts.portal.urls")),  # the employees' own pages (issue 32, docs/portal.md)
    path("", include("inventory.urls")),  # pages outside the API: /accept/<token>/ (issue 29)
    path("api/v1/", include(api_v1)),
    # SCIM provisioning (issue 30, docs/directory.md): outside /api/v1, with SCIM's own error shape; every view
    # answers the ordinary 404 while SCIM_ENABLED is off, so the routes exist but nothing is reachable.
    path("scim/v2/", include("accounts.scim.urls")),
    re_path(r"^api/v1(?:/.*)?$", EndpointNotFoundView.as_view()),
    path("", home.home, name="home"),  # last: the API's requests never try it
]

handler400 = "assetsvc.api.views.handler400"
handler403 = "assetsvc.api.views.handler403"
handler404 = "assetsvc.api.views.handler404"
handler500 = "assetsvc.api.views.handler500"
