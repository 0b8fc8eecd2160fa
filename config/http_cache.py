"""Answers a shared cache may keep (nginx in front, a CDN, a venue's proxy): public data with a
strong ETag, fresh for PUBLIC_MAX_AGE seconds, then served stale for up to PUBLIC_STALE_SECONDS
while the cache revalidates it (If-None-Match: a 304 while the ETag is the same).

The public pages (scoring/public_urls.py) are marked with public_page; SharedCacheMiddleware
gives them these headers when they are the same for everyone: asked by a visitor with no
session, answered with no cookie. Anything else (a signed-in person's view of the page, an answer
that sets a cookie) is private."""

import functools
import hashlib
import re
from collections.abc import Callable
from types import SimpleNamespace

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import cc_delim_re, patch_cache_control, patch_vary_headers
from django.utils.text import compress_string

# A query parameter that names a version for the cache in front (a page fetching the version that
# nginx announced: ?v=...; scoring/announce.py, live.js); the origin serves the current one, as
# without it. Such an answer is kept longer (PUBLIC_VERSIONED_MAX_AGE): its address is asked
# only once the version exists, and a later version has an address of its own.
VERSION_PARAMETER = "v"

# A public page this big or bigger goes compressed to a visitor whose browser takes gzip: once
# at the origin, so that nginx keeps the compressed copy and serves it without compressing
# again (a standings fragment of 100 rows: about 6 KB compressed; of 500: 30 KB). No secret is in
# these pages (no CSRF token, nothing of a session), so compression reveals nothing (BREACH).
GZIP_MIN_BYTES = 1024
GZIP_SUFFIX = "+gzip"
# One coding of Accept-Encoding naming gzip, with its weight if any (RFC 9110, 12.5.3).
_GZIP_CODING = re.compile(r"\s*(?:x-)?gzip\s*(?:;\s*q\s*=\s*(?P<q>[0-9.]*)\s*)?", re.IGNORECASE)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether a browser sending this Accept-Encoding takes gzip: it names gzip with no weight,
    or a weight above 0 ("gzip", "gzip, deflate, br", "GZIP;q=0.5"); never "gzip;q=0", which
    refuses it. (Django's GZipMiddleware looks for the word alone.)"""
    for coding in accept_encoding.split(","):
        named = _GZIP_CODING.fullmatch(coding)
        if named is not None:
            weight = named["q"]
            if weight is None:
                return True
            try:
                return float(weight) > 0
            except ValueError:  # a weight that is no number: not a yes
                return False
    return False


# What a public page may vary on: the HTMX fragment and the whole page share an address (and a
# big page is compressed or not, below). Cookie (the session) and Accept-Language (the language
# is in the address) are not.
SHARED_VARY = ("HX-Request", "Accept-Encoding")


def gzip_etag(etag: str) -> str:
    """The strong ETag of the gzip-compressed copy of a version: another representation, so
    another tag, from which the version is still read."""
    return etag[:-1] + GZIP_SUFFIX + '"'


def not_modified(request: HttpRequest, etag: str) -> HttpResponse | None:
    """A 304 when the request already holds this version, as it is or compressed (its
    If-None-Match names the ETag or its gzip_etag); the 304 names the copy held. Never for a
    public page drawn for a signed-in visitor (public_page)."""
    if getattr(request, "drawn_for_visitor", False):
        return None
    held = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
    for candidate in (etag, gzip_etag(etag)):
        if candidate in held or "*" in held:
            return shared(HttpResponseNotModified(), candidate)
    return None


def shared(response: HttpResponse, etag: str | None, *, versioned: bool = False) -> HttpResponse:
    """Mark `response` (or a 304 of it) as one version of public data that anyone may keep."""
    if etag is not None:
        response["ETag"] = etag
    patch_cache_control(
        response,
        public=True,
        max_age=settings.PUBLIC_VERSIONED_MAX_AGE if versioned else settings.PUBLIC_MAX_AGE,
        stale_while_revalidate=settings.PUBLIC_STALE_SECONDS,
    )
    return response


def public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a view's answers as a public page, for SharedCacheMiddleware. A visitor with a
    session (signed in) gets the page drawn for them, never a 304: the copy their browser holds
    may be the one drawn before they signed in (its ETag names the data, not the visitor)."""

    @functools.wraps(view)
    def marked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        request.drawn_for_visitor = _has_session(request)  # (not_modified: never a 304)
        response = view(request, *args, **kwargs)
        response.public_page = True
        return response

    return marked


def _has_session(request: HttpRequest) -> bool:
    return settings.SESSION_COOKIE_NAME in request.COOKIES


def _personal(request: HttpRequest, response: HttpResponse) -> bool:
    return bool(response.cookies) or _has_session(request)


def _content_etag(response: HttpResponse) -> str | None:
    """A strong ETag from the page's bytes, for a page whose view names no version of its own."""
    if response.streaming:
        return None
    return '"' + hashlib.blake2b(response.content, digest_size=12).hexdigest() + '"'


class SharedCacheMiddleware:
    """Public pages, for a visitor with no session and answered with no cookie: public, with a
    strong ETag (the view's, else the content's; a 304 when the visitor holds it), compressed
    for a browser that takes gzip, and Vary on HX-Request and Accept-Encoding alone. The same
    pages for a signed-in person, or setting a cookie: private. Sits outside the session, CSRF
    and locale middleware, so it sees the Vary and cookies they add."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not getattr(response, "public_page", False) or request.method not in ("GET", "HEAD"):
            return response
        if _personal(request, response):
            # No validator either: signed out again, the browser must not revalidate this copy
            # (their name, their links) as the public page of the same data.
            response["Cache-Control"] = "private, no-cache"
            if response.has_header("ETag"):
                del response["ETag"]
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
        if response.status_code == 304 or (
            not response.streaming and len(response.content) >= GZIP_MIN_BYTES
        ):
            patch_vary_headers(response, ("Accept-Encoding",))  # (a 304 as its page)
        unchanged = not_modified(request, etag) if response.status_code == 200 and etag else None
        if unchanged is not None:
            if "Vary" in response:
                unchanged["Vary"] = response["Vary"]
            etag, response = unchanged["ETag"], unchanged
        elif response.status_code == 304:
            etag = response["ETag"]  # the view's, naming the copy held
        elif "Accept-Encoding" in response.get("Vary", "") and accepts_gzip(
            request.headers.get("Accept-Encoding", "")
        ):
            response.content = compress_string(response.content)
            response["Content-Encoding"] = "gzip"
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
            etag = gzip_etag(etag) if etag else etag
        if "Cache-Control" in response:  # a view's 304 (not_modified): this says how long
            del response["Cache-Control"]
        return shared(response, etag, versioned=VERSION_PARAMETER in request.GET)


# The API's addresses: no language in them, and every answer there either public data or private.
API_PREFIX = "/api/"


class ApiLanguageMiddleware:
    """The API's language for a client without a session: its Accept-Language alone, never the
    django_language cookie. The API's addresses carry no language, so a public answer there (the
    standings) is kept by nginx under Accept-Language (its cache key) and says Vary:
    Accept-Language; had the cookie chosen the language, the copy kept for one reader's cookie
    would be served to every reader of that Accept-Language. A signed-in person (a session) keeps
    the language they chose: their answers are never shared. Sits right after LocaleMiddleware,
    which chose from the cookie first."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(API_PREFIX) and not _has_session(request):
            # Django's own choice from the headers, as if no cookie had been sent.
            headers_only = SimpleNamespace(COOKIES={}, META=request.META)
            language = translation.get_language_from_request(headers_only)
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


class PrivateApiMiddleware:
    """Every API answer that is not public data (shared() above: the standings) says
    `private, no-store`: a club's roster with its contact details, an invitation's live link, a
    round not confirmed yet is kept by no cache in front and by no browser's disk. Its ETag
    stays: a tablet sends it back in If-Match, which needs nothing stored."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(API_PREFIX) and "public" not in cc_delim_re.split(
            response.get("Cache-Control", "").lower()
        ):
            response["Cache-Control"] = "private, no-store"
        return response
