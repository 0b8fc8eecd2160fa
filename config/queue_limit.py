"""A public request that waited too long for the origin is turned away at once, not served late.

nginx stamps each anonymous GET it passes to the public pool with the moment it sent it
(`X-Request-Start: t=<seconds since the epoch, with milliseconds>`; deploy/nginx.conf), except
the worker's warm fetch of a new version, which fills the cache for every phone. When a gunicorn
thread takes a request that waited longer than PUBLIC_QUEUE_LIMIT_SECONDS, the origin is
behind, and serving it would only make every request after it later still (a hall of phones
opening their pages at once kept a slow machine 35 s behind: docs/PERFORMANCE.md's git
history). It is answered 503 with Retry-After instead, in a millisecond.

Who gets the 503: nginx's background refresh of a page it has a copy of (the phones get that
copy meanwhile and never wait on the origin; turned away, the refresh leaves the copy as it
was: `http_503` in `proxy_cache_use_stale`), or the phones asking for a page nginx has no copy
of: a page opened in full shows a short notice that reloads itself; a part live.js refreshes
asks again after Retry-After. The 503 may be kept for a second (`public, max-age=1`): the
phones waiting on nginx's cache lock for the same page then all get it at once, instead of
going to the origin one after the other, each to wait its turn again.

Only GET and HEAD: what an official or organiser sends is never turned away here (they have
a pool of their own, which nginx does not stamp, and a tablet's entry is never refused for load).

django-request-queue-timeout does the same check, but answers a bare "Busy" that a browser
shows as it is, with no Retry-After and nothing to say how long a cache may keep it, and takes
only whole milliseconds; this is the check with the answer a hall needs.
"""

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.utils.cache import patch_vary_headers

# How long a phone waits before it asks again: its page reloads itself, live.js fetches again.
RETRY_SECONDS = 3
# A stamp further in the future than this is not nginx's on this host: ignored.
CLOCK_SKEW_SECONDS = 5.0


def queued_seconds(stamp: str, now: float) -> float | None:
    """How long ago nginx sent the request, from its X-Request-Start (`t=1700000000.123`, or
    `t=1700000000123` and the bare number as other proxies write it: milliseconds); None when
    it cannot be read or lies in the future."""
    value = stamp.strip().removeprefix("t=")
    try:
        sent = float(value)
    except ValueError:
        return None
    if "." not in value:
        sent /= 1000
    waited = now - sent
    return waited if waited > -CLOCK_SKEW_SECONDS else None


class PublicQueueLimitMiddleware:
    """Right after SecurityMiddleware (its headers on the 503 too): a turned-away request costs
    no session, no query, no view, no rendering (the notice is drawn once, in gunicorn's master
    process, which loads the app before it forks its workers)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.notice = loader.render_to_string("503.html", {"retry_seconds": RETRY_SECONDS})

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.PUBLIC_QUEUE_LIMIT_SECONDS
        stamp = request.headers.get("X-Request-Start")
        if stamp and limit > 0 and request.method in ("GET", "HEAD"):
            waited = queued_seconds(stamp, time.time())
            if waited is not None and waited > limit:
                return self.busy(request)
        return self.get_response(request)

    def busy(self, request: HttpRequest) -> HttpResponse:
        """503. A fragment (HTMX) gets no body: the page keeps what it shows. A page gets the
        notice in both languages, which reloads itself."""
        fragment = bool(request.headers.get("HX-Request"))
        response = HttpResponse("" if fragment else self.notice, status=503)
        response["Retry-After"] = str(RETRY_SECONDS)
        response["Cache-Control"] = "public, max-age=1"
        patch_vary_headers(response, ("HX-Request",))
        return response
