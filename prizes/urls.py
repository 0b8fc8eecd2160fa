"""The console's Prizes section (prizes/views.py), beside the console's other sections
(/t/<slug>/manage/...), and the scope converter the API shares (prizes/api_urls.py)."""

from django.urls import path, register_converter

from prizes import views


class PrizeScope:
    """A prize table's scope in an address: 'event', or 'division-<id>'."""

    regex = r"(?:event|division-[1-9][0-9]{0,9})"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PrizeScope, "prize-scope")

urlpatterns = [
    path("t/<slug:slug>/manage/prizes/", views.prizes_section, name="manage-prizes"),
    path(
        "t/<slug:slug>/manage/prizes/<prize-scope:scope>/",
        views.scope_page,
        name="manage-prizes-scope",
    ),
    path(
        "t/<slug:slug>/manage/prizes/<prize-scope:scope>/announce/",
        views.announce,
        name="manage-prizes-announce",
    ),
    path(
        "t/<slug:slug>/manage/prizes/<prize-scope:scope>/unlock/",
        views.unlock,
        name="manage-prizes-unlock",
    ),
]
