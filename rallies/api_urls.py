from django.urls import path

from rallies import api

urlpatterns = [
    path(
        "rallies/<slug:rally_slug>/standings/",
        api.RallyStandingsApi.as_view(),
        name="rally-standings",
    ),
]
