from django.urls import path

from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("t/<slug:slug>/", views.tournament_home, name="tournament-home"),
]
