from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from tables import checkin, views

urlpatterns = [
    path("t/<slug:slug>/manage/stages/<id:order>/", views.stage_tables, name="manage-stage"),
    path("t/<slug:slug>/manage/stages/<id:order>/seat/", views.seat_stage, name="manage-seat"),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/unseat/", views.unseat_stage, name="manage-unseat"
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/day-of-play/",
        views.day_of_play,
        name="manage-day-of-play",
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/table-sizes/",
        views.table_sizes,
        name="manage-table-sizes",
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/movement/",
        views.movement,
        name="manage-movement",
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/rating/",
        views.rating_options,
        name="manage-rating-options",
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/reporting/",
        views.reporting_settings,
        name="manage-reporting",
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/tables/<id:number>/reporting/",
        views.table_reporting,
        name="manage-table-reporting",
    ),
    path("t/<slug:slug>/manage/stages/<id:order>/late/", views.add_late_player, name="manage-late"),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/late-table/",
        views.add_late_table,
        name="manage-late-table",
    ),
    path(
        "t/<slug:slug>/manage/players/<id:player_id>/withdraw/",
        views.player_action,
        {"action": "withdraw"},
        name="manage-withdraw",
    ),
    path(
        "t/<slug:slug>/manage/players/<id:player_id>/reinstate/",
        views.player_action,
        {"action": "reinstate"},
        name="manage-reinstate",
    ),
    path(
        "t/<slug:slug>/manage/players/check-in/",
        checkin.check_in_found,
        name="manage-check-in-find",
    ),
    path(
        "t/<slug:slug>/manage/players/check-in-everyone/",
        views.check_in_everyone,
        name="manage-check-in-everyone",
    ),
    path(
        "t/<slug:slug>/manage/players/<id:player_id>/check-in/",
        views.player_action,
        {"action": "check-in"},
        name="manage-check-in",
    ),
]
