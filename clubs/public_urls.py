"""A club's pages for everyone, without signing in, under the language of the address
(config/urls.py puts them in i18n_patterns: /en/c/<club>/...): public pages that a shared cache
in front may keep (config/http_cache.py). The organisers' pages are in clubs/urls.py."""

from django.urls import path

from clubs import member_views, public_views
from config import converters  # noqa: F401 (the <id:...> converter)
from config.http_cache import public_page

urlpatterns: list = [
    path("c/<slug:slug>/", public_page(public_views.club_home), name="club-public"),
    path(
        "c/<slug:slug>/seasons/<slug:season_slug>/",
        public_page(public_views.season_ladder),
        name="season-ladder",
    ),
    path(
        "c/<slug:slug>/seasons/<slug:season_slug>/ladder.csv",
        public_page(public_views.ladder_csv),
        name="season-ladder-csv",
    ),
    path(
        "c/<slug:slug>/members/<id:member_id>/",
        public_page(member_views.member_page),
        name="public-member",
    ),
]
