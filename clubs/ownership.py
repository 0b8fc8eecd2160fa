"""Clubs started by organisers, and the tournaments they own: a club is started by a signed-in
organiser (who becomes its first organiser), and owns the tournaments its organisers add to it
(a tournament belongs to one club at most; only someone who organises both may add it)."""

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from clubs.models import Club, ClubOrganiser, ClubTournament, PlayerLink
from tournaments import permissions
from tournaments.models import Tournament
from tournaments.text import check_printable, free_slug


@transaction.atomic
def start_club(*, name: str, by: AbstractBaseUser, slug: str = "") -> Club:
    """A new club, with `by` as its organiser. Refused for someone who may not create
    tournaments (an official), for an empty name and for a web address another club has."""
    if not permissions.may_create_tournaments(by):
        raise ValidationError(_("Only organisers may start a club."))
    name = name.strip()
    check_printable(name=name)
    if not name:
        raise ValidationError({"name": [_("The name is empty.")]})
    if slug and Club.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": [_("Another club has this web address.")]})
    try:
        with transaction.atomic():
            slug = slug or free_slug(name, Club.objects.all(), fallback="club")
            club = Club.objects.create(name=name, slug=slug)
    except IntegrityError:  # a club with that address was started at the same moment
        raise ValidationError({"slug": [_("Another club has this web address.")]}) from None
    ClubOrganiser.objects.create(club=club, user=by)
    return club


def addable_tournaments(*, club: Club, user: AbstractBaseUser) -> list[Tournament]:
    """The tournaments `user` organises that no club owns yet."""
    owned = ClubTournament.objects.values("tournament_id")
    tournaments = Tournament.objects.exclude(pk__in=owned).order_by("-created_at", "name")
    if not user.is_superuser:
        tournaments = tournaments.filter(
            staff__user=user, staff__role=permissions.ORGANISER
        ).distinct()
    return list(tournaments)


@transaction.atomic
def add_tournament(*, club: Club, tournament: Tournament, by: AbstractBaseUser) -> ClubTournament:
    """The club owns the tournament from now on: its players may be linked to the members."""
    if not permissions.is_organiser(by, tournament):
        raise ValidationError(
            _("Only an organiser of %(tournament)s may add it to a club.")
            % {"tournament": tournament.name}
        )
    owner = ClubTournament.objects.select_related("club").filter(tournament=tournament).first()
    if owner is not None:
        if owner.club_id == club.pk:
            return owner
        raise ValidationError(
            _("%(tournament)s already belongs to %(club)s.")
            % {"tournament": tournament.name, "club": owner.club.name}
        )
    return ClubTournament.objects.create(club=club, tournament=tournament)


@transaction.atomic
def remove_tournament(*, club: Club, tournament: Tournament) -> int:
    """The club no longer owns the tournament: its players' links to members go (the number is
    returned, for the organiser to be told), and no season counts it."""
    ownership = ClubTournament.objects.filter(club=club, tournament=tournament).first()
    if ownership is None:
        raise ValidationError(
            _("%(tournament)s does not belong to %(club)s.")
            % {"tournament": tournament.name, "club": club.name}
        )
    links, _kinds = PlayerLink.objects.filter(player__tournament=tournament).delete()
    ownership.delete()  # the ratings and the season's ladder follow (receivers.forget_tournament)
    return links
