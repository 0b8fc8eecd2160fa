from django.urls import path

from accounts import api
from config import converters  # noqa: F401 (the <id:...> converter)

urlpatterns = [
    path("tournaments/<slug:slug>/staff/", api.StaffListApi.as_view(), name="tournament-staff"),
    path(
        "tournaments/<slug:slug>/staff/<id:staff_id>/",
        api.StaffDetailApi.as_view(),
        name="tournament-staff-detail",
    ),
    path(
        "tournaments/<slug:slug>/invitations/",
        api.InvitationListApi.as_view(),
        name="tournament-invitations",
    ),
    path(
        "tournaments/<slug:slug>/invitations/<id:invitation_id>/",
        api.InvitationDetailApi.as_view(),
        name="tournament-invitation",
    ),
]
