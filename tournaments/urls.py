from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.new_tournament, name="new-tournament"),
    path("t/<slug:slug>/manage/staff/", views.staff_page, name="manage-staff"),
]
