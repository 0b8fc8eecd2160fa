"""Absolute links to the site: on its public address (settings.PUBLIC_URL) when one is set, so
that no client's Host header ever reaches a page, a mail, a QR code or a PDF; on the request's
own scheme and host otherwise (make run, tests)."""

from urllib.parse import urljoin, urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpRequest


def site_origin(request: HttpRequest) -> str:
    """The scheme and host that links name: https://roundhouse.example.org."""
    return settings.PUBLIC_URL or f"{request.scheme}://{request.get_host()}"


def site_host(request: HttpRequest) -> str:
    """The host (and port) that links name, as a person types it: roundhouse.example.org."""
    return urlsplit(site_origin(request)).netloc


def absolute_url(request: HttpRequest, location: str) -> str:
    """`location` (a path, or an absolute URL of this site) whole, on the site's origin."""
    if not settings.PUBLIC_URL:
        return request.build_absolute_uri(location)
    parts = urlsplit(urljoin(request.path, location))
    return settings.PUBLIC_URL + urlunsplit(("", "", parts.path, parts.query, parts.fragment))
