"""The organisers' rally pages (signed in); the public ones are in rallies/public_urls.py.

The rally's address is `rally_slug`, never `slug`: config/middleware.py takes a URL's `slug` for
a tournament's and activates its time zone."""

from django.urls import path

from rallies import manage_views

urlpatterns = [
    path("rallies/", manage_views.my_rallies, name="my-rallies"),
    path("rallies/<slug:rally_slug>/manage/", manage_views.manage, name="rally-manage"),
]
