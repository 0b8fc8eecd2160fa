"""Reads about clubs that other pages share."""

from collections.abc import Collection

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from clubs import rating_store
from clubs.models import Club, ClubTournament, PlayerLink
from clubs.rating import MODEL, ORDINAL_SCALE, ORDINAL_Z
from tables.strengths import Strengths
from tournaments import permissions
from tournaments.models import Tournament

# A newcomer's rating (openskill's prior, mu 25, sigma 25/3): ordinal 0 (+ 0.0 makes -0.0 0.0).
NEWCOMER_ORDINAL = round(ORDINAL_SCALE * (MODEL.mu - ORDINAL_Z * MODEL.sigma), 6) + 0.0


def clubs_of(user: AbstractBaseUser | AnonymousUser) -> list[Club]:
    """The clubs the user organises (every club for a superuser)."""
    if not user.is_authenticated:
        return []
    if user.is_superuser:
        return list(Club.objects.all())
    return list(Club.objects.filter(organisers__user=user))


def player_strengths(tournament: Tournament, player_ids: Collection[int]) -> Strengths | None:
    """Seating's strengths (tables.strengths): each player's linked member's current rating
    ordinal (their latest RatingPoint); a player with no link or no rating yet a newcomer's,
    counted as unrated. None for a tournament no club owns: it has no ratings to seat by."""
    owner = ClubTournament.objects.filter(tournament=tournament).first()
    if owner is None:
        return None
    if not player_ids:  # asked whether the tournament can be rated at all
        return Strengths(of={}, unrated=frozenset())
    member_of = dict(
        PlayerLink.objects.filter(
            player_id__in=player_ids, player__tournament=tournament
        ).values_list("player_id", "member_id")
    )
    ratings = rating_store.current_ratings(owner.club_id)
    latest = {member_id: ratings[member_id].ordinal for member_id in member_of.values()
              if member_id in ratings}  # fmt: skip
    of: dict[int, float] = {}
    unrated: set[int] = set()
    for player_id in player_ids:
        rating = latest.get(member_of.get(player_id, -1))
        if rating is None:
            unrated.add(player_id)
        of[player_id] = NEWCOMER_ORDINAL if rating is None else rating
    return Strengths(of=of, unrated=frozenset(unrated))


def addable_tournaments(*, club: Club, user: AbstractBaseUser) -> list[Tournament]:
    """The tournaments `user` organises that no club owns yet."""
    owned = ClubTournament.objects.values("tournament_id")
    tournaments = Tournament.objects.exclude(pk__in=owned).order_by("-created_at", "name")
    if not user.is_superuser:
        tournaments = tournaments.filter(
            staff__user=user, staff__role=permissions.ORGANISER
        ).distinct()
    return list(tournaments)
