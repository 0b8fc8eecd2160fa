"""The pages for those who run the event (the console, score entry): their language is the
person's (a cookie, else the browser's). The public pages, with the language in the address, are
in public_urls.py."""

from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from scoring import views

urlpatterns = [
    path(
        "t/<slug:slug>/manage/practice/reset/",
        views.reset_practice_page,
        name="manage-reset-practice",
    ),
    path(
        "t/<slug:slug>/manage/divisions/flights/split/",
        views.split_flights,
        name="manage-split-flights",
    ),
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
    path(
        "t/<slug:slug>/manage/stages/<id:order>/close/",
        views.close_stage_page,
        name="manage-close",
    ),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/reopen/",
        views.reopen_stage_page,
        name="manage-reopen",
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
