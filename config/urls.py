from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import health
from tournaments import help as organiser_help
from tournaments.api import ObtainTokenApi

api_v1 = [
    path("auth/token/", ObtainTokenApi.as_view(), name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its script as a file, so the docs keep working under the CSP.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema",
            http_method_names=["get", "head"],  # its page renderer has nothing for OPTIONS
        ),
        name="api-docs",
    ),
    path("", include("accounts.api_urls")),
    path("", include("tournaments.api_urls")),
    path("", include("tables.api_urls")),
    path("", include("scoring.api_urls")),
    path("", include("entries.api_urls")),
    path("", include("prizes.api_urls")),
    path("", include("clubs.api_urls")),
    path("", include("rallies.api_urls")),
]

urlpatterns = [
    path("health/live/", health.live, name="health-live"),
    path("health/ready/", health.ready, name="health-ready"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("tournaments.urls")),
    path("", include("entries.console_urls")),
    path("", include("tables.urls")),
    path("", include("scoring.urls")),
    path("", include("entries.message_urls")),
    path("", include("entries.urls")),
    path("", include("prizes.urls")),
    path("", include("clubs.urls")),
    path("", include("rallies.urls")),
]
# The public pages carry their language in the address (/en/t/<slug>/, /es/t/<slug>/), so that
# they vary on nothing personal and a shared cache may keep them; the old /t/<slug>/ addresses
# redirect to the browser's language (LocaleMiddleware, as a prefixed address exists).
urlpatterns += i18n_patterns(
    path("", include("scoring.public_urls")),
    path("", include("entries.public_urls")),
    path("", include("clubs.public_urls")),
    path("", include("rallies.public_urls")),
    # A player's phone at a table whose players report: the seat's pages, then the claim.
    path("", include("scoring.seat_urls")),
    path("", include("tables.public_urls")),
    # The organisers' help, which each section of the console links to.
    path("help/", organiser_help.help_page, name="help"),
)


def not_found(request, exception=None):
    """404: JSON under /api/ (docs/API.md: JSON in and out), the site's page elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found
    from rest_framework.exceptions import NotFound

    if request.path.startswith("/api/"):
        return JsonResponse({"detail": str(NotFound.default_detail)}, status=404)
    return page_not_found(request, exception)


def server_error(request):
    """500, or 503 when the database did not answer in time (config/api.py: JSON under /api/,
    the site's 503 page elsewhere): a request that failed outside the API's own handler."""
    import sys

    from django.views.defaults import server_error as site_error

    from config.api import database_unavailable

    return database_unavailable(request, sys.exc_info()[1]) or site_error(request)


handler404 = not_found
handler500 = server_error
