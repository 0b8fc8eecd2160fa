from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from scoring import how_it_works, public, views
from scoring.views import results_page

urlpatterns = [
    path("t/<slug:slug>/manage/stages/<id:order>/progress/", views.progress, name="progress"),
    path("t/<slug:slug>/manage/stages/<id:order>/clock/", views.clock_page, name="manage-clock"),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/tiebreak/",
        views.record_tiebreak_page,
        name="manage-tiebreak",
    ),
    path(
        "t/<slug:slug>/enter/<id:table_id>/<id:round_no>/history/",
        views.history_page,
        name="round-history",
    ),
    path("t/<slug:slug>/", public.standings_page, name="tournament-home"),
    path("t/<slug:slug>/tables/<id:order>/<id:number>/", public.table_sheet, name="table-sheet"),
    path("t/<slug:slug>/players/", public.find_player, name="find-player"),
    path("t/<slug:slug>/players/<id:number>/", views.player_page, name="player-page"),
    path("t/<slug:slug>/screen/", public.screen, name="screen"),
    path("t/<slug:slug>/how-it-works/", how_it_works.how_it_works_page, name="how-it-works"),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/close/",
        views.close_stage_page,
        name="manage-close",
    ),
    path("t/<slug:slug>/bracket/", views.bracket, name="bracket"),
    path("t/<slug:slug>/results/", results_page.results_page, name="results"),
    path("t/<slug:slug>/results.pdf", results_page.results_download, name="results-pdf"),
    path(
        "t/<slug:slug>/results/certificates/",
        results_page.certificates,
        name="results-certificates",
    ),
    path(
        "t/<slug:slug>/manage/scores/import/", views.import_scores_page, name="manage-import-scores"
    ),
    path("t/<slug:slug>/enter/", views.enter_home, name="enter"),
    path("t/<slug:slug>/enter/<id:table_id>/", views.enter_table, name="enter-table"),
    path("t/<slug:slug>/enter/<id:table_id>/<id:round_no>/", views.enter_round, name="enter-round"),
    path(
        "t/<slug:slug>/enter/<id:table_id>/<id:round_no>/check/",
        views.check_round,
        name="check-round",
    ),
]
