"""Reads about clubs that other pages share."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from clubs.models import Club


def clubs_of(user: AbstractBaseUser | AnonymousUser) -> list[Club]:
    """The clubs the user organises (every club for a superuser)."""
    if not user.is_authenticated:
        return []
    if user.is_superuser:
        return list(Club.objects.all())
    return list(Club.objects.filter(organisers__user=user))
