from django.urls import path

from clubs import api
from config import converters  # noqa: F401 (the <id:...> converter)

urlpatterns = [
    path("clubs/<slug:slug>/members/", api.RosterApi.as_view(), name="club-roster"),
    path(
        "clubs/<slug:slug>/members/<id:member_id>/rating/",
        api.RatingOfMemberApi.as_view(),
        name="club-member-rating",
    ),
    path(
        "clubs/<slug:slug>/seasons/<slug:season_slug>/ladder/",
        api.LadderApi.as_view(),
        name="club-season-ladder",
    ),
]
