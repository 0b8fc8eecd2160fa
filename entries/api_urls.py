from django.urls import path, register_converter

from config import converters  # noqa: F401 (the <id:...> converter)
from entries import api, api_messages, exports


class EntriesExportName:
    # Its own converter, not scoring's <export:...>: each app's names match only its own files,
    # so .../exports/entries.csv never reaches scoring's view, nor players.csv this one.
    regex = "(?:" + "|".join(exports.EXPORTS) + ")"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(EntriesExportName, "entries-export")

urlpatterns = [
    path("tournaments/<slug:slug>/entries/", api.EntryListApi.as_view(), name="entry-list"),
    path(
        "tournaments/<slug:slug>/entries/<id:entry_id>/",
        api.OrganiserEntryApi.as_view(),
        name="entry-detail",
    ),
    path(
        "tournaments/<slug:slug>/messages/",
        api_messages.MessageListApi.as_view(),
        name="message-list",
    ),
    path(
        "tournaments/<slug:slug>/messages/<id:message_id>/retry/",
        api_messages.RetryFailedApi.as_view(),
        name="message-retry",
    ),
    path(
        "tournaments/<slug:slug>/entries/<id:entry_id>/payments/",
        api.PaymentListApi.as_view(),
        name="entry-payments",
    ),
    path(
        "tournaments/<slug:slug>/entries/<id:entry_id>/payments/<id:payment_id>/",
        api.PaymentApi.as_view(),
        name="entry-payment",
    ),
    path(
        "tournaments/<slug:slug>/exports/<entries-export:name>.csv",
        api.EntriesExportApi.as_view(),
        name="entries-export",
    ),
    path("tournaments/<slug:slug>/check-in/", api.SelfCheckInApi.as_view(), name="self-check-in"),
    path("entries/<str:key>/", api.EntryApi.as_view(), name="api-entry"),
    path("entries/<str:key>/accept/", api.AcceptOfferApi.as_view(), name="api-entry-accept"),
    path("entries/<str:key>/data/", api.EntryDataApi.as_view(), name="api-entry-data"),
    path("entries/<str:key>/erase/", api.EraseEntryApi.as_view(), name="api-entry-erase"),
]
