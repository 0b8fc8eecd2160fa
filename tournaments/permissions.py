"""Who may do what in a tournament: the tournament is the boundary of every permission."""

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.exceptions import NotAuthenticated, PermissionDenied

from tournaments.models import Staff, Tournament

ORGANISER = Staff.Role.ORGANISER
OFFICIAL = Staff.Role.OFFICIAL
# Everyone who signed up, accepted an organiser's invitation or was made an organiser is in it;
# its permission to add tournaments is what "may create a tournament" means.
ORGANISERS_GROUP = "Organisers"
CREATE_TOURNAMENT = "tournaments.add_tournament"


def create_refused() -> str:
    """What someone who may not create a tournament is told, on the page and by the API."""
    return _(
        "Only organisers may create a tournament: ask an organiser for an invitation as organiser."
    )


def may_create_tournaments(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Organisers (by sign-up, invitation or an organiser's role anywhere) and the admin; an
    official may not."""
    if not user.is_authenticated:
        return False
    return user.has_perm(CREATE_TOURNAMENT) or (
        Staff.objects.filter(user=user, role=ORGANISER).exists()
    )


def role_in(user: AbstractBaseUser | AnonymousUser, tournament: Tournament) -> str | None:
    """The user's role in the tournament ("organiser" for a superuser), or None."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return ORGANISER
    return (
        Staff.objects.filter(tournament=tournament, user=user)
        .values_list("role", flat=True)
        .first()
    )


def is_organiser(user: AbstractBaseUser | AnonymousUser, tournament: Tournament) -> bool:
    return role_in(user, tournament) == ORGANISER


def is_staff_of(user: AbstractBaseUser | AnonymousUser, tournament: Tournament) -> bool:
    return role_in(user, tournament) in (ORGANISER, OFFICIAL)


def require_organiser(user: AbstractBaseUser | AnonymousUser, tournament: Tournament) -> None:
    if not user.is_authenticated:
        raise NotAuthenticated()
    if not is_organiser(user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may do this.") % {"tournament": tournament.name}
        )


def require_staff(user: AbstractBaseUser | AnonymousUser, tournament: Tournament) -> None:
    """Officials and organisers of this tournament (officials enter and confirm results)."""
    if not user.is_authenticated:
        raise NotAuthenticated()
    if not is_staff_of(user, tournament):
        raise PermissionDenied(
            _("Only an official or organiser of %(tournament)s may do this.")
            % {"tournament": tournament.name}
        )


def require_may_create_tournaments(user: AbstractBaseUser | AnonymousUser) -> None:
    if not user.is_authenticated:
        raise NotAuthenticated()
    if not may_create_tournaments(user):
        raise PermissionDenied(create_refused())


def lockout_message() -> str:
    """What a locked-out sign-in is told (django-axes), on the page and by the API."""
    minutes = round(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    message = ngettext(
        "Too many failed sign-ins for this username from this address. "
        "Try again in %(minutes)s minute.",
        "Too many failed sign-ins for this username from this address. "
        "Try again in %(minutes)s minutes.",
        minutes,
    )
    return message % {"minutes": minutes}
