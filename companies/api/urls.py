from rest_framework.routers import SimpleRouter

from companies.api.views import CompanyViewSet

router = SimpleRouter()
router.trailing_slash = "/?"  # trailing slash optional (API-CONTRACT.md §1)
router.register("companies", CompanyViewSet, basename="companies")

urlpatterns = router.urls
