from django.urls import path, register_converter

from config import converters  # noqa: F401 (the <id:...> converter)
from scoring import api, api_flights, api_practice, exports


class ExportName:
    # Grouped, so that the anchors Django and the OpenAPI schema put around it hold for every name.
    regex = "(?:" + "|".join(exports.EXPORTS) + ")"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ExportName, "export")

urlpatterns = [
    path("tournaments/<slug:slug>/flights/", api_flights.FlightsApi.as_view(), name="flight-list"),
    path(
        "tournaments/<slug:slug>/reset/",
        api_practice.ResetPracticeApi.as_view(),
        name="tournament-reset",
    ),
    path("stages/<id:stage_id>/close/", api.CloseStageApi.as_view(), name="stage-close"),
    path("stages/<id:stage_id>/reopen/", api.ReopenStageApi.as_view(), name="stage-reopen"),
    path(
        "tournaments/<slug:slug>/stages/<id:stage_id>/clock/",
        api.StageClockApi.as_view(),
        name="stage-clock",
    ),
    path(
        "tournaments/<slug:slug>/placings/", api.PlacingsApi.as_view(), name="tournament-placings"
    ),
    path("stages/<id:stage_id>/standings/", api.StandingsApi.as_view(), name="stage-standings"),
    path("stages/<id:stage_id>/tiebreaks/", api.TiebreakApi.as_view(), name="stage-tiebreaks"),
    path(
        "tournaments/<slug:slug>/standings/",
        api.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<slug:slug>/scores/import/",
        api.ImportScoresApi.as_view(),
        name="scores-import",
    ),
    path(
        "tables/<id:table_id>/rounds/<id:round_no>/",
        api.RoundResultApi.as_view(),
        name="round-result",
    ),
    path(
        "tables/<id:table_id>/rounds/<id:round_no>/confirm/",
        api.ConfirmRoundResultApi.as_view(),
        name="round-result-confirm",
    ),
    path(
        "tables/<id:table_id>/rounds/<id:round_no>/dispute/",
        api.DisputeRoundResultApi.as_view(),
        name="round-result-dispute",
    ),
    path(
        "tables/<id:table_id>/rounds/<id:round_no>/history/",
        api.RoundResultHistoryApi.as_view(),
        name="round-result-history",
    ),
    path(
        "tournaments/<slug:slug>/exports/<export:name>.csv",
        api.ExportCsvApi.as_view(),
        name="tournament-export",
    ),
]
