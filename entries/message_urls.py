"""The console's Messages page (entries/console_messages.py), beside the console's other
sections (tournaments/urls.py)."""

from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from entries import console_messages

urlpatterns = [
    path("t/<slug:slug>/manage/messages/", console_messages.messages_page, name="manage-messages"),
    path(
        "t/<slug:slug>/manage/messages/<id:message_id>/retry/",
        console_messages.retry_message,
        name="manage-retry-message",
    ),
]
