"""Answers a shared cache may keep (nginx in front, a CDN, a venue's proxy): public data with a
strong ETag, fresh for PUBLIC_MAX_AGE seconds, then served stale for up to PUBLIC_STALE_SECONDS
while the cache revalidates it (If-None-Match: a 304 while the ETag is the same)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control


def not_modified(request: HttpRequest, etag: str) -> HttpResponse | None:
    """A 304 when the request already holds this version (its If-None-Match names the ETag)."""
    held = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
    if etag in held or "*" in held:
        response = HttpResponseNotModified()
        return shared(response, etag)
    return None


def shared(response: HttpResponse, etag: str) -> HttpResponse:
    """Mark `response` (or a 304 of it) as one version of public data that anyone may keep."""
    response["ETag"] = etag
    patch_cache_control(
        response,
        public=True,
        max_age=settings.PUBLIC_MAX_AGE,
        stale_while_revalidate=settings.PUBLIC_STALE_SECONDS,
    )
    return response
