"""Checks of our own: `check --deploy` refuses the development secret and a production without
its public address; the database checks (migrate, `check --database default`) warn of usernames
that clash."""

from django.conf import settings
from django.core import checks
from django.core.checks import Error, Tags, register
from django.db import DatabaseError

from tournaments import usernames


@register(Tags.security, deploy=True)
def development_secret_key(app_configs, **kwargs) -> list[Error]:
    if settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        return [
            Error(
                "DJANGO_SECRET_KEY is the development key.",
                hint="Set DJANGO_SECRET_KEY to a long random value (see deploy/env.example).",
                id="roundhouse.E001",
            )
        ]
    return []


@register(Tags.security, deploy=True)
def public_url_set(app_configs, **kwargs) -> list[checks.Warning]:
    if not settings.PUBLIC_URL:
        return [
            checks.Warning(
                "ROUNDHOUSE_PUBLIC_URL is not set: links in pages and mails would name whatever "
                "host a request says, and a shared cache would keep them.",
                hint="Set ROUNDHOUSE_PUBLIC_URL to the site's address, e.g. "
                "https://roundhouse.example.org (see deploy/env.example).",
                id="roundhouse.W001",
            )
        ]
    return []


@register(Tags.database)
def clashing_usernames(app_configs, databases=None, **kwargs) -> list[checks.Warning]:
    """While accounts made before sign-up refused clashes share a normal form, say so at every
    migrate and `check --database default` (the migration that found them said it once)."""
    if not databases:
        return []
    try:
        lines = usernames.clash_report(usernames.clashing_usernames())
    except DatabaseError:  # not migrated yet, or no database: nothing to compare
        return []
    return [checks.Warning(line, id="roundhouse.W002") for line in lines]
