"""The address a request came from: the client's, not nginx's or a CDN's.

Behind a proxy (DJANGO_BEHIND_PROXY) X-Forwarded-For is read from its right with python-ipware:
the address nginx appended, or with DJANGO_PROXY_COUNT more proxies in front of nginx (a CDN,
caddy) the one just before theirs. What a client wrote further left is its own claim and never
read. django-axes (AXES_CLIENT_IP_CALLABLE) and the histories of results both use it, so the
sign-in throttle locks one phone, not everyone behind the proxy."""

import functools

from django.conf import settings
from django.http import HttpRequest
from python_ipware import IpWare


@functools.cache
def _reader(proxy_count: int) -> IpWare:
    return IpWare(precedence=("HTTP_X_FORWARDED_FOR",), proxy_count=proxy_count)


def client_ip(request: HttpRequest) -> str | None:
    direct = request.META.get("REMOTE_ADDR") or None
    if not settings.BEHIND_PROXY:
        return direct
    address, _trusted = _reader(settings.PROXY_COUNT).get_client_ip(request.META)
    return str(address) if address is not None else direct
