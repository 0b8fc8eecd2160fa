from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from tournaments import console, console_divisions, views

urlpatterns = [
    path("new/", views.new_tournament, name="new-tournament"),
    path("t/<slug:slug>/manage/details/", views.tournament_details, name="manage-details"),
    path("t/<slug:slug>/manage/delete/", views.delete_tournament, name="manage-delete"),
    path("t/<slug:slug>/manage/practice/end/", views.end_practice, name="manage-end-practice"),
    # The organiser's console: its stages and players.
    path("t/<slug:slug>/manage/", console.console, name="manage"),
    # Its sections past the first (players and check-in), in the order of the day's work.
    *(
        path(
            f"t/<slug:slug>/manage/{section}/",
            console.console,
            {"section": section},
            name=f"manage-{section}",
        )
        for section in console.SECTIONS[1:]
    ),
    path("t/<slug:slug>/manage/divisions/", console_divisions.divisions, name="manage-divisions"),
    path(
        "t/<slug:slug>/manage/divisions/add/",
        console_divisions.add_division,
        name="manage-add-division",
    ),
    path(
        "t/<slug:slug>/manage/divisions/flights/list/",
        console_divisions.list_flights,
        name="manage-list-flights",
    ),
    path(
        "t/<slug:slug>/manage/divisions/flights/remove/",
        console_divisions.remove_flights,
        name="manage-remove-flights",
    ),
    path(
        "t/<slug:slug>/manage/divisions/playoffs/",
        console_divisions.division_playoffs,
        name="manage-division-playoffs",
    ),
    path(
        "t/<slug:slug>/manage/divisions/<id:division_id>/",
        console_divisions.change_division,
        name="manage-change-division",
    ),
    path(
        "t/<slug:slug>/manage/divisions/<id:division_id>/move/",
        console_divisions.move_division,
        name="manage-move-division",
    ),
    path(
        "t/<slug:slug>/manage/divisions/<id:division_id>/remove/",
        console_divisions.remove_division,
        name="manage-remove-division",
    ),
    path("t/<slug:slug>/manage/players/add/", console.add_player, name="manage-add-player"),
    path("t/<slug:slug>/manage/players/import/", console.import_players, name="manage-import"),
    path(
        "t/<slug:slug>/manage/players/import/preview/",
        console.import_preview,
        name="manage-import-preview",
    ),
    path(
        "t/<slug:slug>/manage/players/import/apply/",
        console.apply_import,
        name="manage-import-apply",
    ),
    path("t/<slug:slug>/manage/stages/add/", console.add_stage, name="manage-add-stage"),
    path(
        "t/<slug:slug>/manage/stages/<id:order>/remove/",
        console.remove_stage,
        name="manage-remove-stage",
    ),
    path(
        "t/<slug:slug>/manage/players/<id:player_id>/delete/",
        console.delete_player,
        name="manage-delete-player",
    ),
    path(
        "t/<slug:slug>/manage/players/<id:player_id>/edit/",
        console.edit_player,
        name="manage-edit-player",
    ),
]
