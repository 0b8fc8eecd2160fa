"""The entrants' pages, under the language of the address as the other public pages are
(config/urls.py). None is wrapped in public_page: a form, or an entry's own."""

from django.urls import path

from entries import desk, views

urlpatterns = [
    path("t/<slug:slug>/register/", views.register, name="register"),
    path("t/<slug:slug>/check-in/", desk.kiosk, name="kiosk"),
    path("t/<slug:slug>/entry/<str:key>/", views.manage, name="entry-manage"),
    path("t/<slug:slug>/entry/<str:key>/withdraw/", views.withdraw, name="entry-withdraw"),
    path("t/<slug:slug>/entry/<str:key>/stop-mail/", views.unsubscribe, name="entry-unsubscribe"),
    path("t/<slug:slug>/entry/<str:key>/mail-again/", views.resubscribe, name="entry-resubscribe"),
    path("t/<slug:slug>/entry/<str:key>/my-data.json", views.download, name="entry-download"),
    path("t/<slug:slug>/entry/<str:key>/erase/", views.erase, name="entry-erase"),
]
