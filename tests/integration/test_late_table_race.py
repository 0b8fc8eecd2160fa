"""Two organisers seat the same waiting late players at a new table at once, on PostgreSQL with
two connections: the second waits for the first (the stage's lock), then is told they are
seated; one new table, each player seated once, nothing doubled."""

import threading
import time

import pytest
from django.core.exceptions import ValidationError

from tables import services
from tables.models import Seat, Table
from tests import factories
from tests.integration.test_stage_race import HOLD, held, timed
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def full_stage(require_postgres):
    tournament = factories.TournamentFactory()
    first = factories.StaffFactory(tournament=tournament, role="organiser").user
    second = factories.StaffFactory(tournament=tournament, role="organiser").user
    stage = factories.StageFactory(tournament=tournament, status="seated")
    tables = seat_tables(stage, [["A1", "A2", "A3", "A4"], ["B1", "B2", "B3", "B4"]])
    for players in tables:
        play(stage, players, 1, [0, 3, 5, 7])
    waiting = [
        factories.PlayerFactory(tournament=tournament, number=n, name=f"Late {n}")
        for n in (21, 22, 23, 24)
    ]
    return stage, waiting, first, second


@pytest.mark.parametrize(
    ("theirs", "named"),
    [(slice(0, 3), "Late 21"), (slice(1, 4), "Late 22")],
    ids=["the same players", "two of the same players"],
)
def test_of_two_organisers_seating_the_same_late_players_one_wins(full_stage, theirs, named):
    stage, waiting, first, second = full_stage
    started, release, won, lost = threading.Event(), threading.Event(), {}, {}
    seating = held(
        lambda: services.add_late_table(stage=stage, players=waiting[:3], by=first),
        started,
        release,
        won,
    )
    seating.start()
    assert started.wait(10) and "error" not in won, won
    other = timed(
        lambda: services.add_late_table(stage=stage, players=waiting[theirs], by=second), lost
    )
    other.start()
    time.sleep(HOLD)
    assert other.is_alive(), f"the second did not wait for the first: {lost}"
    release.set()
    seating.join(10)
    other.join(10)
    assert isinstance(lost.get("error"), ValidationError), lost
    assert lost["error"].messages == [f"{named} already has a seat in Qualifying."]
    assert Table.objects.filter(stage=stage).count() == 3  # one new table, not two
    new = Table.objects.get(stage=stage, number=3)
    assert [s.player.name for s in new.seats.order_by("position")] == [
        "Late 21",
        "Late 22",
        "Late 23",
    ]
    assert {s.from_round for s in new.seats.all()} == {2}
    assert Seat.objects.filter(stage=stage, player__in=waiting).count() == 3
    assert not Seat.objects.filter(player=waiting[3]).exists()
