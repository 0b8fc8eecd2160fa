from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import ObtainAuthToken

from config import health

api_v1 = [
    path("auth/token/", ObtainAuthToken.as_view(), name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("tournaments.api_urls")),
    path("", include("tables.api_urls")),
    path("", include("scoring.api_urls")),
]

urlpatterns = [
    path("health/live/", health.live, name="health-live"),
    path("health/ready/", health.ready, name="health-ready"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("tournaments.urls")),
    path("", include("tables.urls")),
    path("", include("scoring.urls")),
]
