"""A rally's pages for everyone, under the language of the address (config/urls.py puts them in
i18n_patterns: /en/rallies/<slug>/). The standings and the projector are public pages that a
shared cache may keep (config/http_cache.py); the entry form and the schedule are not."""

from django.urls import path

from config.http_cache import public_page
from rallies import views

urlpatterns = [
    path("rallies/<slug:rally_slug>/", public_page(views.rally_page), name="rally"),
    path("rallies/<slug:rally_slug>/screen/", public_page(views.rally_screen), name="rally-screen"),
    path("rallies/<slug:rally_slug>/enter/", views.register, name="rally-register"),
    path("rallies/<slug:rally_slug>/schedule/<str:key>/", views.schedule, name="rally-schedule"),
]
