from django.urls import path

from clubs import api, api_writes
from config import converters  # noqa: F401 (the <id:...> converter)

urlpatterns = [
    path("clubs/", api_writes.ClubListApi.as_view(), name="club-list"),
    path("clubs/<slug:slug>/", api_writes.ClubDetailApi.as_view(), name="club-detail"),
    # The roster (GET, clubs.api) and a member added to it (POST).
    path("clubs/<slug:slug>/members/", api_writes.RosterApi.as_view(), name="club-roster"),
    path(
        "clubs/<slug:slug>/members/import/",
        api_writes.MembersImportApi.as_view(),
        name="club-members-import",
    ),
    path(
        "clubs/<slug:slug>/members/<id:member_id>/rating/",
        api.RatingOfMemberApi.as_view(),
        name="club-member-rating",
    ),
    path(
        "clubs/<slug:slug>/tournaments/",
        api_writes.ClubTournamentsApi.as_view(),
        name="club-tournament-add",
    ),
    path("clubs/<slug:slug>/seasons/", api_writes.SeasonListApi.as_view(), name="club-season-list"),
    path(
        "clubs/<slug:slug>/seasons/<slug:season_slug>/",
        api_writes.SeasonDetailApi.as_view(),
        name="club-season-detail",
    ),
    path(
        "clubs/<slug:slug>/seasons/<slug:season_slug>/ladder/",
        api.LadderApi.as_view(),
        name="club-season-ladder",
    ),
]
