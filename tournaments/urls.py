from django.urls import path

from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.new_tournament, name="new-tournament"),
    path("t/<slug:slug>/manage/staff/", views.staff_page, name="manage-staff"),
]
