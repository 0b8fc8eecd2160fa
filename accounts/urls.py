from django.urls import path

from accounts import views
from config import converters  # noqa: F401 (the <id:...> converter)

urlpatterns = [
    path("", views.home, name="home"),
    path("join/<str:key>/", views.join, name="join"),
    path("t/<slug:slug>/manage/staff/", views.staff_page, name="manage-staff"),
    path(
        "t/<slug:slug>/manage/staff/invitations/<id:invitation_id>/",
        views.invitation_page,
        name="manage-invitation",
    ),
]
