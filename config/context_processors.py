"""What every page's header and footer show: the language switch, Roundhouse's version."""

from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url
from django.utils.translation import get_language, get_language_from_path, get_language_info

from config import release


def language_links(request: HttpRequest) -> dict:
    """On a page whose address carries its language (the public pages), for a visitor who is not
    signed in: a plain link to the same page in each other language, so that the page sets no
    cookie and a shared cache may keep it. Elsewhere (None), the header's form, which keeps a
    signed-in person's choice in a cookie for the pages without a language in their address."""
    user = getattr(request, "user", None)
    if get_language_from_path(request.path_info) is None or (user and user.is_authenticated):
        return {"language_links": None}
    here = request.get_full_path()
    return {
        "language_links": [
            {
                "code": code,
                "name": get_language_info(code)["name_local"].capitalize(),
                "url": translate_url(here, code),
            }
            for code, _ in settings.LANGUAGES
            if code != get_language()
        ]
    }


def version(request: HttpRequest) -> dict:
    """Roundhouse's version, for the footer of the signed-in pages (config/release.py)."""
    return {"roundhouse_version": release.version()}
