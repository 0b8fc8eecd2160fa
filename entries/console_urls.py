"""The console's Entries section (entries/console_views.py), beside the console's other
sections (/t/<slug>/manage/...)."""

from django.urls import path

from config import converters  # noqa: F401 (the <id:...> converter)
from entries import console_views

urlpatterns = [
    path("t/<slug:slug>/manage/entries/", console_views.entries_section, name="manage-entries"),
    path(
        "t/<slug:slug>/manage/entries/settings/",
        console_views.save_settings,
        name="manage-entries-settings",
    ),
    path(
        "t/<slug:slug>/manage/entries/<id:entry_id>/",
        console_views.entry_page,
        name="manage-entry",
    ),
    path(
        "t/<slug:slug>/manage/entries/<id:entry_id>/move/",
        console_views.move_entry,
        name="manage-entry-move",
    ),
    *(
        path(
            f"t/<slug:slug>/manage/entries/<id:entry_id>/{action}/",
            console_views.entry_action,
            {"action": action},
            name=f"manage-entry-{action}",
        )
        for action in console_views.ACTIONS
    ),
]
