"""The pages players and the hall read without signing in, under the language of the address
(config/urls.py puts them in i18n_patterns: /en/t/<slug>/, /es/t/<slug>/; the old /t/<slug>/
redirects by the browser's language). Each is a public page: the same for every visitor who is
not signed in, so a shared cache in front may keep it (config/http_cache.py)."""

from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from config.http_cache import public_page
from scoring import event_calendar, find_your_table, how_it_works, public, views
from scoring.views import results_page

urlpatterns = [
    path("t/<slug:slug>/", public_page(public.standings_page), name="tournament-home"),
    path(
        "t/<slug:slug>/tables/<id:order>/<id:number>/",
        public_page(public.table_sheet),
        name="table-sheet",
    ),
    path("t/<slug:slug>/players/", public_page(views.find_player), name="find-player"),
    path(
        "t/<slug:slug>/players/<id:number>/",
        public_page(views.player_page),
        name="player-page",
    ),
    path(
        "t/<slug:slug>/find-your-table/",
        public_page(find_your_table.find_your_table_page),
        name="find-your-table",
    ),
    path("t/<slug:slug>/event.ics", public_page(event_calendar.event_ics), name="event-ics"),
    path("t/<slug:slug>/screen/", public_page(views.screen), name="screen"),
    path(
        "t/<slug:slug>/how-it-works/",
        public_page(how_it_works.how_it_works_page),
        name="how-it-works",
    ),
    path("t/<slug:slug>/bracket/", public_page(views.bracket), name="bracket"),
    path("t/<slug:slug>/results/", public_page(results_page.results_page), name="results"),
    path(
        "t/<slug:slug>/results.pdf",
        public_page(results_page.results_download),
        name="results-pdf",
    ),
    path(
        "t/<slug:slug>/results/certificates/",
        public_page(results_page.certificates),
        name="results-certificates",
    ),
]
