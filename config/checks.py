"""Deployment checks of our own: `check --deploy` refuses the development secret in production."""

from django.conf import settings
from django.core.checks import Error, Tags, register


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
