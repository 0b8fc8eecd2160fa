"""bench_rating_db.py's data: bench_rating.py's synthetic ten-year club history (same generator,
same seed) written as real rows, a club's as the app keeps them, or found again from an earlier
run (--reuse).

A club, its 500 members, and for each event a tournament owned by the club (dated by its first
day), one closed qualifying stage, its tables, a player per member who came (linked to the member
by number), the round-1 seats, and every table-round as a CONFIRMED round result with a score per
player (the one who went out 0 pips, went_out). The seats are round 1's only: a Seat is one row
per player and stage, and the generator shuffles the tables every round; the ratings read the
scores, not the seats. Round results and scores go in by COPY (the ids of the results reserved
from their sequence first); the rest by bulk_create. Setup, not measured, and no signals fire.
"""

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from bench_rating import EVENTS, MEMBERS, SEED, TableRound, _event, club_history
from standings_data import delete_tournament

CLUB_SLUG = "bench-ratings"
NEW_EVENT_SLUG = "bench-rating-new"
DOMINO_SET = 18  # the generator plays up to 17 rounds an event: a stage needs a double-16 or more
# The correction (c): an event in year 5 of the history (events 209 to 260 are 2020's).
CORRECTED_EVENT = 235
CORRECTED_PIPS = 151  # above the generator's 150: the player drops to last at the table


def event_slug(event: int) -> str:
    return f"bench-rating-{event:03d}"


@dataclass
class BenchClub:
    """The rows the bench works on, and the maps from the generator's ids to the database's."""

    club_id: int
    member_pk: dict[int, int]  # generator member (1..500) -> Member pk
    tournament_pk: dict[int, int]  # generator event (1..500) -> Tournament pk
    official_id: int


@dataclass(frozen=True)
class Correction:
    """The score the correction changes: the rank-2 player of the event's first table-round."""

    event: int
    round_no: int
    table_no: int
    member: int  # generator id
    pips: int  # as generated


def history() -> tuple[list[TableRound], list[TableRound]]:
    """The generator's 500 events, and the 501st (as bench_rating.py draws it, after them)."""
    rounds, rng, skill = club_history(EVENTS, seed=SEED)
    new_event = _event(EVENTS + 1, rng, skill, [1.0] * (MEMBERS + 1))
    return rounds, new_event


def correction_of(rounds: list[TableRound]) -> Correction:
    first = next(r for r in rounds if r.key.event_id == CORRECTED_EVENT)
    member, pips = first.results[1]  # results are sorted by pips: [0] went out, [1] came second
    return Correction(CORRECTED_EVENT, first.key.round_no, first.key.table_no, member, pips)


def other_data() -> dict[str, int]:
    """What the database holds besides this bench's rows (a non-empty dict: refuse to run)."""
    from clubs.models import Club
    from tournaments.models import Tournament

    counts = {
        "clubs": Club.objects.exclude(slug=CLUB_SLUG).count(),
        "tournaments": Tournament.objects.exclude(slug__startswith="bench-rating-").count(),
    }
    return {name: count for name, count in counts.items() if count}


def find_club(rounds: list[TableRound]) -> BenchClub | None:
    """The club of an earlier run, checked complete; None if there is none. Exits if it is not
    complete: it is built in one transaction, so only a changed generator or hand edits do that."""
    import sys

    from django.contrib.auth import get_user_model

    from clubs.models import Club, Member
    from scoring.models import RoundResult, Score
    from tournaments.models import Tournament

    club = Club.objects.filter(slug=CLUB_SLUG).first()
    if club is None:
        return None
    members = dict(Member.objects.filter(club=club).values_list("member_number", "pk"))
    tournaments = dict(
        Tournament.objects.filter(
            club_ownership__club=club, slug__in=[event_slug(e) for e in range(1, EVENTS + 1)]
        ).values_list("slug", "pk")
    )
    ids = list(tournaments.values())
    found = (
        len(members),
        len(tournaments),
        RoundResult.objects.filter(
            stage__tournament_id__in=ids, status=RoundResult.Status.CONFIRMED
        ).count(),
        Score.objects.filter(result__stage__tournament_id__in=ids).count(),
    )
    expected = (MEMBERS, EVENTS, len(rounds), sum(len(r.results) for r in rounds))
    if found != expected:
        sys.exit(
            f"bench_rating_db: the bench club {CLUB_SLUG!r} holds (members, tournaments, results, "
            f"scores) {found}, not {expected}: drop the database and run again."
        )
    official = get_user_model().objects.get(username="bench-rating-official")
    return BenchClub(
        club_id=club.pk,
        member_pk={int(number): pk for number, pk in members.items()},
        tournament_pk={e: tournaments[event_slug(e)] for e in range(1, EVENTS + 1)},
        official_id=official.pk,
    )


def build_club() -> BenchClub:
    """The club, its members and the official who confirmed the results (no events yet)."""
    from django.contrib.auth import get_user_model

    from clubs.models import Club, Member

    official, _ = get_user_model().objects.get_or_create(username="bench-rating-official")
    club = Club.objects.create(name="Bench ratings club", slug=CLUB_SLUG)
    members = Member.objects.bulk_create(
        [Member(club=club, name=f"Member {m}", member_number=str(m)) for m in range(1, MEMBERS + 1)]
    )
    return BenchClub(
        club_id=club.pk,
        member_pk={m: member.pk for m, member in zip(range(1, MEMBERS + 1), members, strict=True)},
        tournament_pk={},
        official_id=official.pk,
    )


def build_events(bench: BenchClub, rounds: list[TableRound], slugs: dict[int, str]) -> None:
    """The events of `rounds` as rows (bench.tournament_pk gains them), in the caller's
    transaction."""
    from clubs.models import ClubTournament, PlayerLink
    from tables.models import Seat, Table
    from tournaments.models import Player, Stage, Tournament

    by_event: dict[int, list[TableRound]] = defaultdict(list)
    for table_round in rounds:
        by_event[table_round.key.event_id].append(table_round)
    events = sorted(by_event)
    batch = 5_000

    tournaments = Tournament.objects.bulk_create(
        [
            Tournament(
                name=f"Club night {event}",
                slug=slugs[event],
                domino_set=DOMINO_SET,
                starts_on=by_event[event][0].key.event_date,
                ends_on=by_event[event][0].key.event_date,
            )
            for event in events
        ],
        batch_size=batch,
    )
    bench.tournament_pk.update({e: t.pk for e, t in zip(events, tournaments, strict=True)})
    ClubTournament.objects.bulk_create(
        [ClubTournament(club_id=bench.club_id, tournament=t) for t in tournaments],
        batch_size=batch,
    )
    stages = Stage.objects.bulk_create(
        [
            Stage(
                tournament=t,
                order=1,
                name="Club night",
                kind=Stage.Kind.QUALIFYING,
                status=Stage.Status.CLOSED,
                domino_set=DOMINO_SET,
                rounds=max(r.key.round_no for r in by_event[e]),
                starting_double=DOMINO_SET,
                table_size_min=3,
                table_size_max=8,
            )
            for e, t in zip(events, tournaments, strict=True)
        ],
        batch_size=batch,
    )
    stage_of = {e: s for e, s in zip(events, stages, strict=True)}
    tables = Table.objects.bulk_create(
        [
            Table(stage=stage_of[e], number=n)
            for e in events
            for n in range(1, max(r.key.table_no for r in by_event[e]) + 1)
        ],
        batch_size=batch,
    )
    table_pk = {(t.stage_id, t.number): t.pk for t in tables}
    came = {e: sorted({m for r in by_event[e] for m, _ in r.results}) for e in events}
    players = Player.objects.bulk_create(
        [
            Player(
                tournament_id=bench.tournament_pk[e],
                number=m,
                name=f"Member {m}",
                status=Player.Status.CHECKED_IN,
            )
            for e in events
            for m in came[e]
        ],
        batch_size=batch,
    )
    player_pk = {(p.tournament_id, p.number): p.pk for p in players}
    PlayerLink.objects.bulk_create(
        [
            PlayerLink(player_id=p.pk, member_id=bench.member_pk[p.number], how="number")
            for p in players
        ],
        batch_size=batch,
    )
    Seat.objects.bulk_create(
        [
            Seat(
                stage=stage_of[e],
                table_id=table_pk[stage_of[e].pk, r.key.table_no],
                player_id=player_pk[bench.tournament_pk[e], m],
                position=position,
                from_round=1,
            )
            for e in events
            for r in by_event[e]
            if r.key.round_no == 1
            for position, (m, _) in enumerate(r.results, start=1)
        ],
        batch_size=batch,
    )
    _copy_results(bench, rounds, stage_of, table_pk, player_pk)


def _copy_results(
    bench: BenchClub,
    rounds: list[TableRound],
    stage_of: dict[int, Any],
    table_pk: dict[tuple[int, int], int],
    player_pk: dict[tuple[int, int], int],
) -> None:
    from django.db import connection
    from django.utils import timezone

    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('scoring_roundresult', 'id')) "
            "FROM generate_series(1, %s)",
            [len(rounds)],
        )
        result_ids = [row[0] for row in cursor.fetchall()]
    raw = connection.connection  # psycopg 3, in Django's transaction
    with raw.cursor() as cursor:
        with cursor.copy(
            "COPY scoring_roundresult (id, stage_id, table_id, round_no, engine, blocked, status,"
            " version, submitted_by_id, confirmed_by_id, created_at, updated_at) FROM STDIN"
        ) as copy:
            for result_id, r in zip(result_ids, rounds, strict=True):
                stage = stage_of[r.key.event_id]
                copy.write_row(
                    (
                        result_id,
                        stage.pk,
                        table_pk[stage.pk, r.key.table_no],
                        r.key.round_no,
                        DOMINO_SET - (r.key.round_no - 1),
                        False,
                        "confirmed",
                        1,
                        bench.official_id,
                        bench.official_id,
                        now,
                        now,
                    )
                )
        with cursor.copy(
            "COPY scoring_score (result_id, player_id, pips, went_out) FROM STDIN"
        ) as copy:
            for result_id, r in zip(result_ids, rounds, strict=True):
                tournament = bench.tournament_pk[r.key.event_id]
                for m, pips in r.results:
                    copy.write_row((result_id, player_pk[tournament, m], pips, pips == 0))


def prepare(rounds: list[TableRound], reuse: bool) -> BenchClub:
    """The bench club: found (--reuse) or built, then vacuumed and analysed."""
    from django.db import transaction

    bench = find_club(rounds) if reuse else None
    if bench is not None:
        print("data: reusing the club of an earlier run (--reuse)")
        return bench
    start = time.perf_counter()
    with transaction.atomic():
        bench = build_club()
        build_events(bench, rounds, {e: event_slug(e) for e in range(1, EVENTS + 1)})
    built = time.perf_counter() - start
    start = time.perf_counter()
    vacuum()
    print(
        f"data: built in {built:.1f} s (not measured; COPY for the results and scores), "
        f"VACUUM ANALYZE {time.perf_counter() - start:.1f} s"
    )
    return bench


def restore(bench: BenchClub, correction: Correction) -> None:
    """Undo a run's changes (the 501st event, the corrected score), so that --reuse finds the
    history as built; their stored points are stale until the next run rates from nothing."""
    from tournaments.models import Tournament

    new = Tournament.objects.filter(slug=NEW_EVENT_SLUG).first()
    if new is not None:
        delete_tournament(new)
    score(bench, correction).update(pips=correction.pips)


def score(bench: BenchClub, correction: Correction) -> Any:
    """The corrected score, as a queryset of one row."""
    from scoring.models import Score

    return Score.objects.filter(
        result__stage__tournament_id=bench.tournament_pk[correction.event],
        result__round_no=correction.round_no,
        result__table__number=correction.table_no,
        player__member_link__member_id=bench.member_pk[correction.member],
    )


def in_database_ids(rounds: list[TableRound], bench: BenchClub) -> list[TableRound]:
    """The generator's history with the database's member and tournament ids."""
    return [
        TableRound(
            key=r.key._replace(event_id=bench.tournament_pk[r.key.event_id]),
            results=tuple((bench.member_pk[m], pips) for m, pips in r.results),
        )
        for r in rounds
    ]


def vacuum(*tables: str) -> None:
    """Fresh statistics, no dead rows: this machine's PostgreSQL runs with autovacuum off."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in tables or (
            "clubs_member",
            "clubs_playerlink",
            "clubs_clubtournament",
            "clubs_ratingpoint",
            "tournaments_tournament",
            "tournaments_stage",
            "tournaments_player",
            "tables_table",
            "tables_seat",
            "scoring_roundresult",
            "scoring_score",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
