from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from tournaments import api, api_divisions, api_presets

urlpatterns = [
    path("presets/", api_presets.PresetListApi.as_view(), name="preset-list"),
    path("tournaments/", api.TournamentListApi.as_view(), name="tournament-list"),
    path("tournaments/<slug:slug>/", api.TournamentDetailApi.as_view(), name="tournament-detail"),
    path("tournaments/<slug:slug>/players/", api.PlayerListApi.as_view(), name="player-list"),
    path(
        "tournaments/<slug:slug>/players/<id:player_id>/",
        api.PlayerDetailApi.as_view(),
        name="player-detail",
    ),
    path(
        "tournaments/<slug:slug>/players/import/",
        api.ImportPlayersApi.as_view(),
        name="player-import",
    ),
    path(
        "tournaments/<slug:slug>/divisions/",
        api_divisions.DivisionListApi.as_view(),
        name="division-list",
    ),
    path(
        "tournaments/<slug:slug>/divisions/<id:division_id>/",
        api_divisions.DivisionDetailApi.as_view(),
        name="division-detail",
    ),
    path("tournaments/<slug:slug>/stages/", api.StageListApi.as_view(), name="stage-list"),
    path("stages/<id:stage_id>/", api.StageDetailApi.as_view(), name="stage-detail"),
]
