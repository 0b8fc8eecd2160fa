"""A club's ratings kept in the database: its history of table-rounds read from the confirmed
results, the stored state (RatingPoint rows, one per member per event) read back as a Ratings,
and a run that rates again from one event on and replaces the points from it.

The engine is clubs.rating (pure). Here: an *event* is one of the club's tournaments, dated by
its first day (else the day it was created, in its own time zone) and ordered by (date, id);
only confirmed results count, only players linked to a member of the club, and a table-round
with fewer than two such members is not a game between members, so it is skipped.

A run from an event equals, float for float, a full recompute: the points before the event are
the exact ratings at its start (recompute_from). When the stored points do not fit the club's
events as they are now (a tournament's date changed, a tournament left the club), the run is a
full recompute instead.
"""

from __future__ import annotations

import datetime
import logging
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import OuterRef, Q, Subquery

from clubs.models import RatingPoint
from clubs.rating import (
    EMPTY,
    MemberRating,
    Ratings,
    RoundKey,
    TableRound,
    rate,
    recompute_from,
)
from config import redis_keys, task_names
from scoring import queue
from scoring.models import RoundResult, Score
from tournaments.models import Tournament

logger = logging.getLogger(__name__)

Event = tuple[datetime.date, int]  # (event date, tournament id): the order events are rated in

# One rating run of a club at a time: PostgreSQL advisory lock (first key; the club's id is the
# second), released at the commit. Not a row lock on the club: that would hold up adding members.
RATING_LOCK = 7_312_026

PENDING_SECONDS = 30


# ---- reading ------------------------------------------------------------------------------------


def event_date(
    starts_on: datetime.date | None, created_at: datetime.datetime, zone: str
) -> datetime.date:
    """The day a tournament is rated at: its first day, else the day it was created there."""
    if starts_on is not None:
        return starts_on
    try:
        tz = zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = datetime.UTC
    return created_at.astimezone(tz).date()


def club_events(club_id: int) -> dict[int, datetime.date]:
    """The club's tournaments now: tournament id -> event date."""
    rows = Tournament.objects.filter(club_ownership__club_id=club_id).values_list(
        "pk", "starts_on", "created_at", "time_zone"
    )
    return {pk: event_date(starts, created, zone) for pk, starts, created, zone in rows}


def tournament_event(tournament_id: int) -> Event | None:
    """The event a tournament is (whichever club owns it now, or none); None if it is gone."""
    row = (
        Tournament.objects.filter(pk=tournament_id)
        .values_list("starts_on", "created_at", "time_zone")
        .first()
    )
    return None if row is None else (event_date(*row), tournament_id)


def load_history(
    club_id: int, events: Mapping[int, datetime.date], since: Event | None = None
) -> list[TableRound]:
    """The club's table-rounds of `events` (those at or after `since`), in one query: confirmed
    results, scores of players linked to the club's members, two members at a table or more."""
    ids = [pk for pk, day in events.items() if since is None or (day, pk) >= since]
    if not ids:
        return []
    rows = (
        Score.objects.filter(
            result__status=RoundResult.Status.CONFIRMED,
            result__stage__tournament_id__in=ids,
            player__member_link__member__club_id=club_id,
        )
        .order_by("result_id", "player__member_link__member_id")
        .values_list(
            "result_id",
            "result__stage__tournament_id",
            "result__stage__order",
            "result__round_no",
            "result__table__number",
            "player__member_link__member_id",
            "pips",
        )
    )
    tables: dict[int, tuple[RoundKey, list[tuple[int, int]]]] = {}
    for result_id, tournament_id, order, round_no, table_no, member_id, pips in rows.iterator(
        chunk_size=5000
    ):
        if result_id not in tables:
            key = RoundKey(events[tournament_id], tournament_id, order, round_no, table_no)
            tables[result_id] = (key, [])
        tables[result_id][1].append((member_id, pips))
    history = []
    for key, results in tables.values():
        members = [member_id for member_id, _ in results]
        if len(results) < 2:
            continue  # not a game between members
        if len(set(members)) != len(members):
            # Two players at one table linked to one member: the services refuse it, so only a
            # hand-made link does it; the table-round cannot be rated, the rest can.
            logger.warning("ratings: a member sits twice at %s; the round is not rated", key)
            continue
        history.append(TableRound(key=key, results=tuple(results)))
    history.sort(key=lambda table_round: table_round.key)
    return history


# A stored point as _as_ratings reads it.
POINT_FIELDS = ("member_id", "event_date", "tournament_id", "stage_order", "round_no", "table_no",
                "mu", "sigma", "rounds")  # fmt: skip


def _point_rows(club_id: int, member_id: int | None = None):
    points = RatingPoint.objects.filter(member__club_id=club_id)
    if member_id is not None:
        points = points.filter(member_id=member_id)
    return points.order_by("member_id", "event_date", "tournament_id").values_list(*POINT_FIELDS)


def _as_ratings(rows: Iterable[tuple]) -> Ratings:
    series: dict[int, list[MemberRating]] = defaultdict(list)
    last_key: RoundKey | None = None
    for member_id, day, tournament_id, order, round_no, table_no, mu, sigma, rounds in rows:
        key = RoundKey(day, tournament_id, order, round_no, table_no)
        series[member_id].append(MemberRating(key, mu, sigma, rounds))
        if last_key is None or key > last_key:
            last_key = key
    return Ratings(series={m: tuple(points) for m, points in series.items()}, last_key=last_key)


def load_state(club_id: int) -> Ratings:
    """The stored ratings of the club's members, as the engine keeps them (one query)."""
    return _as_ratings(_point_rows(club_id))


def member_series(member) -> tuple[MemberRating, ...]:
    """The member's rating after each event they played, oldest first (empty if none)."""
    return _as_ratings(_point_rows(member.club_id, member.pk)).series.get(member.pk, ())


def current_ratings(club_id: int) -> dict[int, MemberRating]:
    """Each rated member's latest rating, by member id (one query)."""
    latest = (
        RatingPoint.objects.filter(member_id=OuterRef("member_id"))
        .order_by("-event_date", "-tournament_id")
        .values("pk")[:1]
    )
    rows = (
        RatingPoint.objects.filter(member__club_id=club_id, pk=Subquery(latest))
        .order_by("member_id")
        .values_list(*POINT_FIELDS)
    )
    return {member_id: points[-1] for member_id, points in _as_ratings(rows).series.items()}


# ---- a run --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingRun:
    """What a run did: from which event (None: everything), and how many points it wrote."""

    since: Event | None
    points: int
    ratings: Ratings


def _lock(club_id: int) -> None:
    if connection.vendor == "postgresql":  # SQLite runs one writing transaction at a time
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [RATING_LOCK, club_id])


def _fits(state: Ratings, events: Mapping[int, datetime.date]) -> bool:
    """Every stored point is at an event of the club as it is now."""
    return all(
        events.get(point.last_key.event_id) == point.last_key.event_date
        for points in state.series.values()
        for point in points
    )


@transaction.atomic
def rate_club(*, club_id: int, tournament_id: int | None = None) -> RatingRun:
    """Rate the club's members again from `tournament_id`'s event on (its results or links
    changed), or from the start (None); the points from that event on are replaced, the earlier
    ones kept. Safe to run twice and in parallel (one run of a club at a time)."""
    _lock(club_id)
    events = club_events(club_id)
    since = tournament_event(tournament_id) if tournament_id is not None else None
    state = load_state(club_id) if since is not None else EMPTY
    if since is not None and (not state.series or not _fits(state, events)):
        since = None  # nothing stored yet, or stored for events that have changed: all again
    if since is None:
        ratings = rate(load_history(club_id, events))
    else:
        key = RoundKey(since[0], since[1], 0, 0, 0)  # the start of the event
        ratings = recompute_from(state, load_history(club_id, events, since), key)
    return RatingRun(since=since, points=_save(club_id, ratings, since), ratings=ratings)


def _save(club_id: int, ratings: Ratings, since: Event | None) -> int:
    """Replace the club's points at `since` and after (all of them for None)."""
    stale = RatingPoint.objects.filter(member__club_id=club_id)
    if since is not None:
        day, tournament_id = since
        stale = stale.filter(
            Q(event_date__gt=day) | Q(event_date=day, tournament_id__gte=tournament_id)
        )
    stale.delete()
    points = [
        RatingPoint(
            member_id=member_id,
            tournament_id=point.last_key.event_id,
            event_date=point.last_key.event_date,
            stage_order=point.last_key.stage_order,
            round_no=point.last_key.round_no,
            table_no=point.last_key.table_no,
            mu=point.mu,
            sigma=point.sigma,
            rounds=point.rounds,
        )
        for member_id, series in ratings.series.items()
        for point in series
        if since is None or point.event >= since
    ]
    RatingPoint.objects.bulk_create(points, batch_size=2000)
    return len(points)


# ---- asking for a run ---------------------------------------------------------------------------


def pending_key(club_id: int, tournament_id: int | None) -> str:
    return redis_keys.club_rating_pending(club_id, tournament_id)


def request_rating(*, club_id: int, tournament_id: int | None) -> None:
    """Rate the club again from the tournament's event once this transaction commits (at once
    outside one). Never fails the caller: a broker that is down loses the run, and the next
    change of the club's results or links rates from its event."""
    transaction.on_commit(lambda: send_rating(club_id, tournament_id))


def send_rating(club_id: int, tournament_id: int | None) -> None:
    """One run for a burst of changes from the same event (a players' import links many)."""
    queue.send_once(
        pending_key(club_id, tournament_id), task_names.RATE_CLUB,
        pending=PENDING_SECONDS, countdown=0.5, club_id=club_id, tournament_id=tournament_id,
    )  # fmt: skip
