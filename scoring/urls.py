from django.urls import path

from scoring import views

urlpatterns = [
    path(
        "t/<slug:slug>/manage/stages/<int:order>/close/",
        views.close_stage_page,
        name="manage-close",
    ),
    path("t/<slug:slug>/bracket/", views.bracket, name="bracket"),
    path(
        "t/<slug:slug>/manage/scores/import/", views.import_scores_page, name="manage-import-scores"
    ),
    path("t/<slug:slug>/enter/", views.enter_home, name="enter"),
    path("t/<slug:slug>/enter/<int:table_id>/", views.enter_table, name="enter-table"),
    path(
        "t/<slug:slug>/enter/<int:table_id>/<int:round_no>/", views.enter_round, name="enter-round"
    ),
    path(
        "t/<slug:slug>/enter/<int:table_id>/<int:round_no>/check/",
        views.check_round,
        name="check-round",
    ),
]
