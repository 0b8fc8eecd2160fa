from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from entries import api, api_messages

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
    path("entries/<str:key>/", api.EntryApi.as_view(), name="api-entry"),
    path("entries/<str:key>/accept/", api.AcceptOfferApi.as_view(), name="api-entry-accept"),
    path("entries/<str:key>/data/", api.EntryDataApi.as_view(), name="api-entry-data"),
    path("entries/<str:key>/erase/", api.EraseEntryApi.as_view(), name="api-entry-erase"),
]
