from django.urls import path

from prizes import api, urls  # noqa: F401 (urls registers the <prize-scope:...> converter)

urlpatterns = [
    path(
        "tournaments/<slug:slug>/prizes/<prize-scope:scope>/",
        api.PrizeTableApi.as_view(),
        name="prize-table",
    ),
    path(
        "tournaments/<slug:slug>/prizes/<prize-scope:scope>/announce/",
        api.AnnouncePrizesApi.as_view(),
        name="prize-table-announce",
    ),
    path(
        "tournaments/<slug:slug>/prizes/<prize-scope:scope>/unlock/",
        api.UnlockPrizesApi.as_view(),
        name="prize-table-unlock",
    ),
    path(
        "tournaments/<slug:slug>/exports/prizes.csv",
        api.PrizesExportApi.as_view(),
        name="prizes-export",
    ),
]
