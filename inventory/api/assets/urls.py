"""Hardware routes (reference §1.2, API-CONTRACT.md §6) and the activity report. The trailing slash is stripped
before routing; tags and serials may contain ``/``, so by-tag and by-serial routes take the rest of the path."""

from django.urls import path, re_path

from inventory.api.assets.labels import AssetLabelsView, LabelTemplateDetailView, LabelTemplateListView
from inventory.api.assets.views import AssetViewSet
from inventory.api.reports import ActivityReportViewSet, DepreciationReportView, UserHistoryViewSet


def _view(**actions):
    return AssetViewSet.as_view(actions)


urlpatterns = [
    path("hardware", _view(get="list", post="create"), name="hardware-list"),
    re_path(r"^hardware/bytag/(?P<tag>.+)/(?P<verb>(?:checkout|checkin))$",
            _view(get="bytag_suffixed", post="bytag_action"), name="hardware-bytag-action"),
    re_path(r"^hardware/bytag/(?P<tag>.+)$", _view(get="bytag"), name="hardware-bytag"),
    re_path(r"^hardware/byserial/(?P<serial>.+)$", _view(get="byserial"), name="hardware-byserial"),
    path("hardware/checkinbytag", _view(post="checkin_by_tag"), name="hardware-checkinbytag"),
    re_path(r"^hardware/(?P<kind>(?:audit|audits|checkins))/(?P<when>(?:due|overdue|due-or-overdue))$",
            _view(get="upcoming"), name="hardware-upcoming"),
    path("hardware/audit", _view(post="audit_by_tag"), name="hardware-audit-legacy"),
    # before hardware/<pk>: none is ever read as an asset id (API-CONTRACT.md §12)
    path("hardware/selectlist", _view(get="selectlist"), name="hardware-selectlist"),
    path("hardware/labels", AssetLabelsView.as_view(), name="hardware-labels"),
    path("hardware/bulk", _view(patch="bulk_partial_update", put="bulk_update"), name="hardware-bulk"),
    path("hardware/audit/bulk", _view(post="bulk_audit"), name="hardware-audit-bulk"),
    path("hardware/<str:pk>", _view(get="retrieve", patch="partial_update", put="update", delete="destroy"),
         name="hardware-detail"),
    path("hardware/<str:pk>/checkout", _view(post="checkout"), name="hardware-checkout"),
    path("hardware/<str:pk>/checkin", _view(post="checkin"), name="hardware-checkin"),
    path("hardware/<str:pk>/audit", _view(post="audit"), name="hardware-audit"),
    path("hardware/<str:pk>/restore", _view(post="restore"), name="hardware-restore"),
    path("hardware/<str:pk>/history", _view(get="history"), name="hardware-history"),
    path("hardware/<str:pk>/qr", _view(get="qr"), name="hardware-qr"),
    path("hardware/<str:pk>/assigned/assets", _view(get="assigned_assets"), name="hardware-assigned-assets"),
    # asset lists under catalogue records (the record's view key and assets.view); inventory/api/urls.py includes this
    # module before the catalogue's, so models/assets is never read as a model id
    path("statuslabels/<str:pk>/assetlist", _view(get="status_label_assets"), name="statuslabels-assetlist"),
    path("locations/<str:pk>/assets", _view(get="location_assets"), name="locations-assets"),
    path("locations/<str:pk>/assigned/assets", _view(get="location_assigned_assets"),
         name="locations-assigned-assets"),
    path("models/assets", _view(get="model_assets"), name="models-assets"),
    # notes on an asset (Snipe-IT v8: action-log rows of type "note added")
    path("notes/<str:pk>/store", _view(post="note_store"), name="notes-store"),
    path("notes/<str:pk>/index", _view(get="note_index"), name="notes-index"),
    path("users/<str:user_pk>/assets", _view(get="user_assets"), name="user-assets"),
    path("users/<str:pk>/history", UserHistoryViewSet.as_view({"get": "history"}), name="user-history"),
    # label templates of POST hardware/labels (Snipe-IT names hold backslashes: a "/" in the path stands for one)
    path("labels", LabelTemplateListView.as_view(), name="labels-list"),
    path("labels/<path:name>", LabelTemplateDetailView.as_view(), name="labels-detail"),
    path("reports/activity", ActivityReportViewSet.as_view({"get": "list"}), name="reports-activity"),
    path("reports/depreciation", DepreciationReportView.as_view(), name="reports-depreciation"),
]
