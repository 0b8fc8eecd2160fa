"""Request-wide wiring that spans the apps: the tournament's time zone for every page and answer,
and the API's body size limit."""

import time
import zoneinfo
from collections.abc import Callable

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from tables.models import Table
from tournaments.models import Stage, Tournament

# Zones change rarely (an organiser's edit); each process keeps what it looked up this long, so
# that the public pages, served from memory, pay no query for it.
ZONE_SECONDS = 30.0
_zones: dict[tuple[str, object], tuple[float, str | None]] = {}


def _lookup(kind: str, key: object) -> str | None:
    if kind == "slug":
        rows = Tournament.objects.filter(slug=key)
        field = "time_zone"
    elif kind == "stage_id":
        rows, field = Stage.objects.filter(pk=key), "tournament__time_zone"
    else:
        rows, field = Table.objects.filter(pk=key), "stage__tournament__time_zone"
    return rows.values_list(field, flat=True).first()


def zone_name_for(kind: str, key: object) -> str | None:
    """The time zone of the tournament that a URL's `slug`, `stage_id` or `table_id` names."""
    now = time.monotonic()
    cached = _zones.get((kind, key))
    if cached is not None and now - cached[0] < ZONE_SECONDS:
        return cached[1]
    name = _lookup(kind, key)
    if len(_zones) > 4096:  # scanners' made-up slugs never grow it without bound
        _zones.clear()
    _zones[(kind, key)] = (now, name)
    return name


@receiver(post_save, sender=Tournament)
def forget_zones(**kwargs: object) -> None:
    """A tournament saved (its zone changed, maybe): this process shows the new one at once."""
    _zones.clear()


class TournamentTimeZoneMiddleware:
    """Activates the zone of the tournament a URL is about (by its slug, stage or table), so
    that pages, API answers, exports and cards show its local time; the site's zone elsewhere."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

    def process_view(self, request: HttpRequest, view, args, kwargs) -> None:
        for kind in ("slug", "stage_id", "table_id"):
            if kind in kwargs:
                name = zone_name_for(kind, kwargs[kind])
                if name:
                    timezone.activate(zoneinfo.ZoneInfo(name))
                return


class ApiBodyLimitMiddleware:
    """A body over the size limit sent to the API is answered 413 in the API's error shape
    ({"detail": ...}), before anything reads it. Django would answer a page's "Bad Request
    (400)" in HTML, and a proxy in front may simply close the connection. A CSV import
    (multipart) is streamed to a file and refused by the import itself, naming the file's size."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        multipart = request.content_type.startswith("multipart/")
        if request.path.startswith("/api/") and limit is not None and not multipart:
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > limit:
                detail = _("The body is %(size)s bytes: the API takes at most %(limit)s.") % {
                    "size": length,
                    "limit": limit,
                }
                return JsonResponse({"detail": detail}, status=413)
        return self.get_response(request)
