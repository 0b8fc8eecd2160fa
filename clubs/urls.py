from django.urls import path

from clubs import club_views, season_views, views
from config import converters  # noqa: F401 (the <id:...> converter)

urlpatterns = [
    path("clubs/", club_views.my_clubs, name="my-clubs"),
    path("clubs/<slug:slug>/", views.roster, name="club"),
    path(
        "clubs/<slug:slug>/tournaments/add/", club_views.add_tournament, name="club-add-tournament"
    ),
    path(
        "clubs/<slug:slug>/tournaments/<slug:tournament_slug>/remove/",
        club_views.remove_tournament,
        name="club-remove-tournament",
    ),
    path("clubs/<slug:slug>/seasons/", season_views.seasons, name="club-seasons"),
    path("clubs/<slug:slug>/seasons/new/", season_views.new_season, name="club-season-new"),
    path(
        "clubs/<slug:slug>/seasons/<slug:season_slug>/",
        season_views.season_page,
        name="club-season",
    ),
    path(
        "clubs/<slug:slug>/seasons/<slug:season_slug>/build/",
        season_views.build_ladder,
        name="club-season-build",
    ),
    path("clubs/<slug:slug>/members/add/", views.add_member, name="club-add-member"),
    path("clubs/<slug:slug>/members/import/", views.import_members, name="club-import-members"),
    path("clubs/<slug:slug>/members/<id:member_id>/", views.member_page, name="club-member"),
    path(
        "clubs/<slug:slug>/members/<id:member_id>/export/",
        views.export_member,
        name="club-export-member",
    ),
    path(
        "clubs/<slug:slug>/members/<id:member_id>/erase/",
        views.erase_member,
        name="club-erase-member",
    ),
    # A club tournament's players and the roster, beside the tournament's console.
    path("t/<slug:slug>/manage/members/", views.tournament_members, name="tournament-members"),
    path(
        "t/<slug:slug>/manage/members/same-names/",
        views.link_same_names,
        name="tournament-link-same-names",
    ),
    path(
        "t/<slug:slug>/manage/members/unlink/",
        views.unlink_players,
        name="tournament-unlink-players",
    ),
    path(
        "t/<slug:slug>/manage/members/<id:player_id>/",
        views.link_player,
        name="tournament-link-player",
    ),
]
