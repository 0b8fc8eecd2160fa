"""A club's pages for everyone, without signing in, under the language of the address
(config/urls.py puts them in i18n_patterns: /en/c/<club>/...): public pages that a shared cache
in front may keep (config/http_cache.py). The organisers' pages are in clubs/urls.py."""

from django.urls import path  # noqa: F401

from config import converters  # noqa: F401 (the <id:...> converter)
from config.http_cache import public_page  # noqa: F401

urlpatterns: list = []
