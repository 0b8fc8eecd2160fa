from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from tournaments import views

urlpatterns = [
    path("new/", views.new_tournament, name="new-tournament"),
    path("t/<slug:slug>/manage/details/", views.tournament_details, name="manage-details"),
]
