from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from tables import api

urlpatterns = [
    path("stages/<id:stage_id>/seat/", api.SeatStageApi.as_view(), name="stage-seat"),
    path("stages/<id:stage_id>/unseat/", api.UnseatStageApi.as_view(), name="stage-unseat"),
    path("stages/<id:stage_id>/tables/", api.StageTablesApi.as_view(), name="stage-tables"),
    path(
        "stages/<id:stage_id>/late-players/", api.LatePlayerApi.as_view(), name="stage-late-player"
    ),
    path("stages/<id:stage_id>/late-tables/", api.LateTableApi.as_view(), name="stage-late-table"),
    path("stages/<id:stage_id>/cards.pdf", api.TableCardsApi.as_view(), name="stage-cards"),
    path("table-codes/<str:code>/seats/", api.ClaimSeatApi.as_view(), name="table-code-seats"),
    path(
        "tables/<id:table_id>/reporting/", api.TableReportingApi.as_view(), name="table-reporting"
    ),
    path(
        "tournaments/<slug:slug>/players/<id:player_id>/withdraw/",
        api.WithdrawPlayerApi.as_view(),
        name="player-withdraw",
    ),
    path(
        "tournaments/<slug:slug>/players/<id:player_id>/reinstate/",
        api.ReinstatePlayerApi.as_view(),
        name="player-reinstate",
    ),
    path(
        "tournaments/<slug:slug>/players/<id:player_id>/check-in/",
        api.CheckInPlayerApi.as_view(),
        name="player-check-in",
    ),
]
