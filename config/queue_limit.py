"""A public request that waited too long for the origin is turned away at once, not served late.

nginx stamps each anonymous GET it passes to the public pool with the moment it sent it
(`X-Request-Start: t=<ms since the epoch>`; deploy/nginx.conf), except the worker's warm fetch of a
new version, which fills the cache for every phone. When gunicorn's threads take a request
that waited longer than PUBLIC_QUEUE_LIMIT_SECONDS, the origin is behind, and serving it would
only make every request after it later still (a hall of phones opening their pages at once
kept a slow machine 35 s behind: docs/PERFORMANCE.md). It is answered 503 with Retry-After
instead, in a millisecond: nginx answers it from the copy it has, however old
(`proxy_cache_use_stale ... http_503`); a page live.js refreshes asks again after Retry-After;
a page opened in full shows a short notice that reloads itself.

Only GET and HEAD: what an official or organiser sends is never turned away here (they have
a pool of their own, and a tablet's entry is never refused for load).

django-request-queue-timeout does the same check, but answers a bare "Busy" that a browser
shows as it is, with no Retry-After and nothing to keep a cache from storing it, and takes
only whole milliseconds; this is the check with the answer a hall needs.
"""

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template import loader

# How long a phone waits before it asks again: its page reloads itself, live.js fetches again.
RETRY_SECONDS = 3
# A stamp further in the future than this is not nginx's on this host: ignored.
CLOCK_SKEW_SECONDS = 5.0

_busy_page: str | None = None


def queued_seconds(stamp: str, now: float) -> float | None:
    """How long ago nginx sent the request, from its X-Request-Start (`t=1700000000123`, or the
    bare number: milliseconds, or seconds with a fraction); None when it cannot be read or lies
    in the future."""
    value = stamp.strip().removeprefix("t=")
    try:
        sent = float(value)
    except ValueError:
        return None
    if "." not in value:
        sent /= 1000
    waited = now - sent
    return waited if waited > -CLOCK_SKEW_SECONDS else None


def busy(request: HttpRequest) -> HttpResponse:
    """503, nothing kept by any cache. A fragment (HTMX) gets no body: the page keeps what it
    shows. A page gets a notice in both languages that reloads itself."""
    global _busy_page
    if request.headers.get("HX-Request") or request.method == "HEAD":
        body = ""
    else:
        if _busy_page is None:
            _busy_page = loader.render_to_string("503.html", {"retry_seconds": RETRY_SECONDS})
        body = _busy_page
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class PublicQueueLimitMiddleware:
    """First in MIDDLEWARE: a turned-away request costs no session, no query, no view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.PUBLIC_QUEUE_LIMIT_SECONDS
        stamp = request.headers.get("X-Request-Start")
        if stamp and limit > 0 and request.method in ("GET", "HEAD"):
            waited = queued_seconds(stamp, time.time())
            if waited is not None and waited > limit:
                return busy(request)
        return self.get_response(request)
