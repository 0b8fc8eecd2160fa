"""The row locks of a club's writes, in one order and of one strength (issue #52: the demo's club
night and a worker's ladder or rating run deadlocked, each waiting for the other at its COMMIT).

Every write of a season, of the club's tournaments it counts, of members or of their links takes
its row locks here, in this order:

    the season -> the club's tournaments it counts (ClubTournament, by id) -> members (by id)
    -> the player being linked

each FOR NO KEY UPDATE, never FOR UPDATE. The strength is what keeps the deadlock away. Django
makes PostgreSQL's foreign keys DEFERRABLE INITIALLY DEFERRED, so every row a transaction inserts
or points elsewhere is checked at its COMMIT, by a SELECT ... FOR KEY SHARE of the row it points
to, in the order the rows were written, not in one this code chooses: a ladder build's LadderRows
check their season and members, a rating run's RatingPoints their members and tournaments, a
PlayerLink its member, a tournament put in a season its ClubTournament's season. FOR UPDATE
blocks that check: a club night holding its members FOR UPDATE (the links) and a ladder build
holding the season FOR UPDATE each waited at COMMIT for the other. FOR NO KEY UPDATE (what a
plain UPDATE takes anyway) lets every such check through, and still keeps two writers of one row
apart; the order keeps two writers of several rows (a players' import linking many members, a
season saved with its tournaments) from each holding what the other waits for.

A club's rating run locks no row: one run of a club at a time, by its advisory lock
(clubs.rating_store.RATING_LOCK); its RatingPoints are only checked, at its commit."""

from collections.abc import Iterable

from clubs.models import Club, ClubTournament, Member, Season
from tournaments.models import Player


def lock_season(season_id: int) -> Season:
    """The season's row, first of a club's locks, until the commit: one ladder build or save of
    the season at a time."""
    return Season.objects.select_for_update(no_key=True).get(pk=season_id)


def lock_club_tournaments(
    club: Club, tournament_ids: Iterable[int], season: Season | None = None
) -> list[ClubTournament]:
    """The club's ownership rows of these tournaments, and of those the season counts now, by id:
    after the season's row (lock_season), before any member's."""
    owned = ClubTournament.objects.filter(club=club, tournament_id__in=list(tournament_ids))
    if season is not None:
        owned = owned | ClubTournament.objects.filter(club=club, season=season)
    return list(owned.select_for_update(no_key=True).order_by("pk"))


def lock_members(member_ids: Iterable[int]) -> dict[int, Member]:
    """The members' rows, by id (so that two transactions locking some of the same members never
    each hold one the other waits for), by member id. Locking one again is harmless."""
    members = Member.objects.filter(pk__in=set(member_ids)).order_by("pk")
    return {member.pk: member for member in members.select_for_update(no_key=True)}


def lock_member(member_id: int) -> Member:
    return lock_members([member_id])[member_id]


def lock_player(player_id: int) -> Player:
    """The player being linked, after its member (as erase_member updates a member's players
    after the member); its tournament is read, not locked."""
    players = Player.objects.select_related("tournament").select_for_update(
        no_key=True, of=("self",)
    )
    return players.get(pk=player_id)
