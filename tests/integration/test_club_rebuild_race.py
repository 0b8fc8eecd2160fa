"""An organiser's edits of a club (players imported with member numbers, the season saved with
them, a club tournament's details saved, a result corrected after the close) while the workers
rebuild the season's ladder and rate the club, on PostgreSQL with a connection per thread (issue
#52): nobody's transaction dies of a deadlock, and the ladder and ratings left are those of the
club as it ends."""

import random
import threading
import time
from datetime import date

import pytest
from django.db import connection

from clubs import ladder_services, rating_store
from clubs.models import ClubTournament, LadderRow, PlayerLink, Season
from clubs.rating import rate
from scoring import services as scoring_services
from scoring.models import RoundResult
from scoring.services import closing
from tests import factories
from tests.scoring.helpers import play_stage, qualifying_with_tables
from tournaments.models import Stage, Tournament
from tournaments.services import players as player_services
from tournaments.services import tournaments as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)

POINTS = [10, 8, 6, 5]
NIGHTS = 4  # decided, a table of four members each: the ladder has every member on it
IMPORTS = 6  # later club nights, their players imported with every member's number


def deadlocks() -> int:
    """The deadlocks PostgreSQL has detected in this database (its own count, flushed by each
    connection as it goes idle or closes)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


@pytest.fixture
def club_with_a_ladder(require_postgres):
    club = factories.ClubFactory(name="Pine Valley", slug="pine-valley")
    organiser = factories.ClubOrganiserFactory(club=club).user
    members = [
        factories.MemberFactory(club=club, name=f"Member {n:02d}", member_number=f"PV-{n}")
        for n in range(1, NIGHTS * 4 + 1)
    ]
    season = Season.objects.create(
        club=club, name="Autumn", slug="autumn", rule="points", points_table=POINTS
    )
    for night in range(NIGHTS):
        tournament = factories.TournamentFactory(starts_on=date(2026, 10, 1 + 7 * night))
        factories.StaffFactory(tournament=tournament, user=organiser, role="organiser")
        ClubTournament.objects.create(club=club, tournament=tournament, season=season)
        stage = qualifying_with_tables(tournament, [4])
        seated = members[night * 4 : night * 4 + 4]
        for player, member in zip(tournament.players.order_by("number"), seated, strict=True):
            PlayerLink.objects.create(player=player, member=member, how="name")
        play_stage(stage)  # seat k scores 5 (k - 1) a round: the seats' order is the places
        closing.close_stage(stage=stage, by=organiser)  # the placings, the ladder, the ratings
    assert LadderRow.objects.filter(season=season).count() == NIGHTS * 4
    return club, season, members, organiser


def looping(action, stop: threading.Event, errors: list) -> threading.Thread:
    """A worker: `action` again and again until `stop`, each time in its own transaction."""

    def run() -> None:
        try:
            while not stop.is_set():
                try:
                    action()
                except Exception as error:  # a deadlock, for the test to report
                    errors.append(error)
        finally:
            connection.close()

    return threading.Thread(target=run)


def correct_the_first_night(tournament_id: int, organiser) -> None:
    """Its second place counted a 5 for a 4 in round 2: corrected after the close (the placings
    go, and the night with them from the ladder), confirmed, and closed again."""
    stage = Stage.objects.get(tournament_id=tournament_id)
    result = RoundResult.objects.get(stage=stage, round_no=2)
    seated = [seat.player for seat in result.table.seats.order_by("position")]
    data = {
        "blocked": False,
        "scores": [
            {"player": player.pk, "pips": pips, "went_out": pips == 0}
            for player, pips in zip(seated, (0, 4, 10, 15), strict=True)
        ],
        "reason": "Seat 2 counted a 5 for a 4",
    }
    scoring_services.submit_round_result(
        table=result.table, round_no=2, data=data, by=organiser, if_match=result.etag
    )
    scoring_services.confirm_round_result(
        result=RoundResult.objects.get(pk=result.pk), by=organiser
    )
    closing.close_stage(stage=Stage.objects.get(pk=stage.pk), by=organiser)


def test_an_organisers_edits_and_the_rebuilds_of_the_ladder_and_ratings_never_deadlock(
    club_with_a_ladder,
):
    club, season, members, organiser = club_with_a_ladder
    before = deadlocks()
    stop, worker_errors, organiser_errors = threading.Event(), [], []
    workers = [
        looping(lambda: ladder_services.build_ladder(season=season), stop, worker_errors),
        looping(lambda: rating_store.rate_club(club_id=club.pk), stop, worker_errors),
    ]
    # In the order they were played: the correction below is of the first night's 2nd place.
    nights = list(
        Season.objects.get(pk=season.pk)
        .events.order_by("tournament__starts_on")
        .values_list("tournament_id", flat=True)
    )
    rng = random.Random(52)

    def organise() -> None:
        events = list(nights)
        try:
            for n in range(IMPORTS):
                tournament = factories.TournamentFactory(
                    name=f"Club night {NIGHTS + n + 1}", starts_on=date(2026, 11, 1 + n)
                )
                factories.StaffFactory(tournament=tournament, user=organiser, role="organiser")
                ClubTournament.objects.create(club=club, tournament=tournament)
                # Everyone came: the sheet lists them in the order they arrived.
                arrived = rng.sample(members, len(members))
                sheet = "number,name,member_number\n" + "".join(
                    f"{i},{m.name},{m.member_number}\n" for i, m in enumerate(arrived, start=1)
                )
                try:
                    player_services.import_players(
                        tournament=tournament, content=sheet.encode(), by=organiser
                    )
                    events.append(tournament.pk)
                    ladder_services.save_season(
                        club=club, season=season, name="Autumn", rule="points",
                        points_table=POINTS, best_n=None, min_rounds=0, events=events,
                    )  # fmt: skip
                    if n == 1:
                        correct_the_first_night(nights[0], organiser)
                    # A decided night's details: its club is rated and its ladder rebuilt again.
                    decided = Tournament.objects.get(pk=nights[n % NIGHTS])
                    tournament_services.update_details(
                        tournament=decided, by=organiser, venue=f"Hall {n + 1}"
                    )
                except Exception as error:  # a deadlock, for the test to report
                    organiser_errors.append(error)
        finally:
            connection.close()

    organiser_thread = threading.Thread(target=organise)
    for thread in workers:
        thread.start()
    begun = time.monotonic()
    organiser_thread.start()
    organiser_thread.join(120)
    stop.set()
    for thread in workers:
        thread.join(30)
    assert not organiser_thread.is_alive() and not any(t.is_alive() for t in workers)
    assert organiser_errors == [], organiser_errors
    assert worker_errors == [], worker_errors[:3]
    time.sleep(0.6)  # the connections' statistics, flushed as they closed
    assert deadlocks() == before, f"deadlocks in {time.monotonic() - begun:.1f} s"

    # The ladder the workers left counts the season as it ends: the four decided nights (the
    # imported ones are not decided: nobody played there), each table's 1st, 2nd, 3rd and 4th
    # sharing their places, but for the first night's 2nd, one pip better since the correction.
    rows = LadderRow.objects.filter(season=season).select_related("member")
    assert [
        (row.place, row.shared, row.member.name, int(row.value))
        for row in rows.order_by("place", "member__name")
    ] == [
        *[(1, True, f"Member {n:02d}", 10) for n in (1, 5, 9, 13)],
        (5, False, "Member 02", 8),
        *[(6, True, f"Member {n:02d}", 8) for n in (6, 10, 14)],
        *[(9, True, f"Member {n:02d}", 6) for n in (3, 7, 11, 15)],
        *[(13, True, f"Member {n:02d}", 5) for n in (4, 8, 12, 16)],
    ]
    saved = Season.objects.get(pk=season.pk)
    assert saved.events.count() == NIGHTS + IMPORTS
    assert PlayerLink.objects.filter(member__club=club).count() == NIGHTS * 4 + IMPORTS * 16
    # The stored ratings are the club's rated from the start, point for point.
    events = rating_store.club_events(club.pk)
    expected = rate(rating_store.load_history(club.pk, events))
    assert rating_store.load_state(club.pk).series == expected.series
