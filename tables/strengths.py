"""How seating asks for the players' strengths (a club's ratings) without importing the app that
keeps them: that app registers one provider at start-up (clubs.apps); with none registered, or
for a tournament the provider cannot rate (it belongs to no club), there are no strengths."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from tournaments.models import Tournament


@dataclass(frozen=True)
class Strengths:
    """Every asked player's strength (higher is stronger) and those with no rating of their own,
    who were given a newcomer's (counted on the seating report)."""

    of: dict[int, float]
    unrated: frozenset[int]


# Given a tournament and player ids, their Strengths; None when the tournament cannot be rated.
Provider = Callable[[Tournament, Collection[int]], Strengths | None]

_provider: list[Provider] = []  # at most one


def register(provider: Provider) -> None:
    """Make `provider` the one seating asks; registering again (a second ready()) replaces it."""
    _provider[:] = [provider]


def unregister() -> None:
    """No provider: seating by rating is unavailable everywhere."""
    _provider.clear()


def strengths_for(tournament: Tournament, player_ids: Collection[int]) -> Strengths | None:
    """The players' strengths, or None when no provider can rate this tournament."""
    if not _provider:
        return None
    return _provider[0](tournament, player_ids)


def rated(tournament: Tournament) -> bool:
    """Whether seating by rating is available for the tournament (it belongs to a club)."""
    return strengths_for(tournament, ()) is not None
