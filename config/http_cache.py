"""Answers a shared cache may keep (nginx in front, a CDN, a venue's proxy): public data with a
strong ETag, fresh for PUBLIC_MAX_AGE seconds, then served stale for up to PUBLIC_STALE_SECONDS
while the cache revalidates it (If-None-Match: a 304 while the ETag is the same).

The public pages (scoring/public_urls.py) are marked with public_page; SharedCacheMiddleware
gives them these headers when they are the same for everyone: asked by a visitor with no
session, answered with no cookie. Anything else (a signed-in person's view of the page, an answer
that sets a cookie) is private."""

import functools
import hashlib
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import cc_delim_re, patch_cache_control

# What a public page may vary on: the HTMX fragment and the whole page share an address.
# Cookie (the session) and Accept-Language (the language is in the address) are not.
SHARED_VARY = ("HX-Request",)


def not_modified(request: HttpRequest, etag: str) -> HttpResponse | None:
    """A 304 when the request already holds this version (its If-None-Match names the ETag)."""
    held = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
    if etag in held or "*" in held:
        response = HttpResponseNotModified()
        return shared(response, etag)
    return None


def shared(response: HttpResponse, etag: str | None) -> HttpResponse:
    """Mark `response` (or a 304 of it) as one version of public data that anyone may keep."""
    if etag is not None:
        response["ETag"] = etag
    patch_cache_control(
        response,
        public=True,
        max_age=settings.PUBLIC_MAX_AGE,
        stale_while_revalidate=settings.PUBLIC_STALE_SECONDS,
    )
    return response


def public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a view's answers as a public page, for SharedCacheMiddleware."""

    @functools.wraps(view)
    def marked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response.public_page = True
        return response

    return marked


def _personal(request: HttpRequest, response: HttpResponse) -> bool:
    return bool(response.cookies) or settings.SESSION_COOKIE_NAME in request.COOKIES


def _content_etag(response: HttpResponse) -> str | None:
    """A strong ETag from the page's bytes, for a page whose view names no version of its own."""
    if response.streaming:
        return None
    return '"' + hashlib.blake2b(response.content, digest_size=12).hexdigest() + '"'


class SharedCacheMiddleware:
    """Public pages, for a visitor with no session and answered with no cookie: public, with a
    strong ETag (the view's, else the content's; a 304 when the visitor holds it) and Vary on
    HX-Request alone. The same pages for a signed-in person, or setting a cookie: private. Sits
    outside the session, CSRF and locale middleware, so it sees the Vary and cookies they add."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not getattr(response, "public_page", False) or request.method not in ("GET", "HEAD"):
            return response
        if _personal(request, response):
            response["Cache-Control"] = "private, no-cache"
            return response
        if response.status_code not in (200, 304):
            return response  # redirects and errors: as Django leaves them
        vary = cc_delim_re.split(response.get("Vary", ""))
        kept = [field for field in vary if field.lower() in {v.lower() for v in SHARED_VARY}]
        if kept:
            response["Vary"] = ", ".join(kept)
        elif "Vary" in response:
            del response["Vary"]
        etag = response.get("ETag") or _content_etag(response)
        unchanged = not_modified(request, etag) if response.status_code == 200 and etag else None
        if unchanged is not None:
            if kept:
                unchanged["Vary"] = response["Vary"]
            return unchanged
        return shared(response, etag)
