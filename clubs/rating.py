"""Club ratings, no ORM: each table-round is a multi-player game ranked by pips (lowest best),
rated with openskill's Weng-Lin Plackett-Luce model, reproducibly from the stored results.

Vocabulary: a *table-round* is one round at one table (`TableRound`), ordered by its `RoundKey`;
a member's *series* holds one `MemberRating` per event they played (their rating after their last
round of that event): the chart's points, and the checkpoints a correction replays from. The
*ordinal* is the conservative skill mu - 3 sigma, scaled for display.
"""

from __future__ import annotations

import datetime
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

from django.utils.translation import gettext
from openskill.models import PlackettLuce

# openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): one model for every club, so
# a rating means the same everywhere. Never pass `limit_sigma` to rate(): it mutates the model.
MODEL = PlackettLuce()

# Fewer rounds than this and a rating is provisional. A Mexican Train game is 13 rounds (the
# double-12 down to the blank), so 20 rounds is more than one full game, and by then a
# newcomer's sigma has halved, from 8.3 to 4.0 (4-player tables, docs/PERFORMANCE.md): the
# ordinal, mu - 3 sigma, is no longer mostly the prior's uncertainty.
PROVISIONAL_ROUNDS = 20

# Display transform of the ordinal: 40 * (mu - 3 sigma), so a new member shows 0 and a settled
# average member (mu 25, sigma about 2) about 750; openskill's ordinal(alpha=40, target=0).
ORDINAL_Z = 3.0
ORDINAL_SCALE = 40.0


class RoundKey(NamedTuple):
    """Where a table-round sits in a club's history: tuples sort in playing order."""

    event_date: datetime.date
    event_id: int
    stage_order: int
    round_no: int
    table_no: int

    @property
    def event(self) -> tuple[datetime.date, int]:
        return (self.event_date, self.event_id)


class MemberRating(NamedTuple):
    """A member's rating after their round `last_key` (the last of its event, in a series)."""

    last_key: RoundKey
    mu: float
    sigma: float
    rounds: int  # table-rounds rated so far

    @property
    def ordinal(self) -> float:
        return ORDINAL_SCALE * (self.mu - ORDINAL_Z * self.sigma)

    @property
    def provisional(self) -> bool:
        return self.rounds < PROVISIONAL_ROUNDS

    @property
    def event(self) -> tuple[datetime.date, int]:
        return self.last_key.event


class NoRatingYet(ValueError):
    """A rating was asked for a member who has no rated round."""

    def __init__(self, member_id: int) -> None:
        super().__init__(
            gettext("Member %(member)s has no rated rounds yet, so they have no rating.")
            % {"member": member_id}
        )
        self.member_id = member_id


class RoundOutOfOrder(ValueError):
    """update() was given a round at or before the last one rated: that is a correction, which
    needs recompute_from() (the ratings after it all change)."""

    def __init__(self, key: RoundKey, last_key: RoundKey) -> None:
        super().__init__(
            f"Round {tuple(key)} is at or before the last rated round {tuple(last_key)}: "
            "a correction or a late result; recompute from it with recompute_from()."
        )
        self.key = key
        self.last_key = last_key


@dataclass(frozen=True, slots=True)
class TableRound:
    """One round at one table: (member id, pips) for each player, at least two players.

    The results are kept sorted by (pips, member id), so the seat order given never changes a
    rating (tied players' changes are averaged by openskill, a float sum in this order)."""

    key: RoundKey
    results: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        results = tuple(sorted(((int(m), int(p)) for m, p in self.results), key=_by_pips))
        if len(results) < 2:
            raise ValueError(f"Round {tuple(self.key)}: a table-round needs two players or more.")
        if len({m for m, _ in results}) != len(results):
            raise ValueError(f"Round {tuple(self.key)}: a member is entered more than once.")
        if results[0][1] < 0:
            raise ValueError(f"Round {tuple(self.key)}: pips cannot be negative.")
        object.__setattr__(self, "results", results)

    @property
    def ranks(self) -> list[int]:
        """Competition ranks in the order of `results`: fewest pips 1, equal pips share a rank."""
        ranks: list[int] = []
        for i, (_, pips) in enumerate(self.results):
            ranks.append(ranks[-1] if i and pips == self.results[i - 1][1] else i + 1)
        return ranks


def _by_pips(result: tuple[int, int]) -> tuple[int, int]:
    return (result[1], result[0])


@dataclass(frozen=True)
class Ratings:
    """Every member's series (never mutated: update() returns a new Ratings sharing the
    untouched series) and the key of the last round rated. Equal states compare equal, float
    for float."""

    series: Mapping[int, tuple[MemberRating, ...]]
    last_key: RoundKey | None = None

    def __contains__(self, member_id: object) -> bool:
        return member_id in self.series

    def __len__(self) -> int:
        return len(self.series)

    def current(self) -> dict[int, MemberRating]:
        """Each rated member's latest rating, by member id."""
        return {m: self.series[m][-1] for m in sorted(self.series)}


EMPTY = Ratings(series={})


def rating_of(state: Ratings, member_id: int) -> MemberRating:
    """The member's latest rating; NoRatingYet if they have no rated round."""
    series = state.series.get(member_id)
    if not series:
        raise NoRatingYet(member_id)
    return series[-1]


def series_of(state: Ratings, member_id: int) -> tuple[MemberRating, ...]:
    """The member's rating after each event they played, oldest first (empty if none)."""
    return state.series.get(member_id, ())


def rate(history: Iterable[TableRound]) -> Ratings:
    """Rate a whole history from nothing."""
    return update(EMPTY, history)


def update(state: Ratings, new_rounds: Iterable[TableRound]) -> Ratings:
    """The state after `new_rounds`, which must all come after its last round (else
    RoundOutOfOrder, the state unchanged). The rounds are rated in key order, one at a time from
    the members' current (mu, sigma), so any batching of a history gives the same floats."""
    rounds = sorted(new_rounds, key=_round_key)
    for earlier, later in pairwise(rounds):
        if earlier.key == later.key:
            raise ValueError(f"Round {tuple(later.key)} is given twice.")
    if not rounds:
        return state
    if state.last_key is not None and rounds[0].key <= state.last_key:
        raise RoundOutOfOrder(rounds[0].key, state.last_key)

    work: dict[int, list[MemberRating]] = {}  # copies of the series this batch touches
    for table_round in rounds:
        _rate_round(table_round, state.series, work)
    series = dict(state.series)
    for member_id, points in work.items():
        series[member_id] = tuple(points)
    return Ratings(series=series, last_key=rounds[-1].key)


def recompute_from(state: Ratings, history: Iterable[TableRound], key: RoundKey) -> Ratings:
    """The ratings of `history` (the corrected, whole history) after a change to its round at
    `key`: equal, float for float, to rate(history).

    The checkpoints are the series themselves: each member's point before the event of `key`
    is their exact rating at its start, untouched by the correction. So the state at that
    event's start is cut from `state`, and only that event's rounds and the later ones are
    rated again."""
    event = key.event
    series: dict[int, tuple[MemberRating, ...]] = {}
    last_key: RoundKey | None = None
    for member_id, points in state.series.items():
        kept = points[: bisect_left(points, event, key=_point_event)]
        if kept:
            series[member_id] = kept
            if last_key is None or kept[-1].last_key > last_key:
                last_key = kept[-1].last_key
    start = Ratings(series=series, last_key=last_key)
    return update(start, (r for r in history if r.key.event >= event))


def _round_key(table_round: TableRound) -> RoundKey:
    return table_round.key


def _point_event(point: MemberRating) -> tuple[datetime.date, int]:
    return point.last_key.event


def _rate_round(
    table_round: TableRound,
    before: Mapping[int, tuple[MemberRating, ...]],
    work: dict[int, list[MemberRating]],
) -> None:
    """Rate one table-round: one openskill call, each player a team of one."""
    key = table_round.key
    players: list[list[MemberRating]] = []
    teams = []
    for member_id, _ in table_round.results:
        points = work.get(member_id)
        if points is None:
            points = work[member_id] = list(before.get(member_id, ()))
        players.append(points)
        if points:
            teams.append([MODEL.rating(mu=points[-1].mu, sigma=points[-1].sigma)])
        else:
            teams.append([MODEL.rating()])
    rated = MODEL.rate(teams, ranks=table_round.ranks)
    event = key.event
    for points, (rating,) in zip(players, rated, strict=True):
        rounds = points[-1].rounds + 1 if points else 1
        point = MemberRating(key, rating.mu, rating.sigma, rounds)
        if points and points[-1].last_key.event == event:
            points[-1] = point
        else:
            points.append(point)
