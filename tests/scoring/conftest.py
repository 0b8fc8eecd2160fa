from datetime import UTC, datetime

import pytest
import time_machine

from tests import factories
from tests.scoring.helpers import seat_tables

NOON = datetime(2026, 5, 9, 12, 0, tzinfo=UTC)  # where a frozen clock stands


@pytest.fixture
def frozen():
    """The clock frozen at NOON, moved only by the test (traveller.shift): never a sleep."""
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def timed(tournament):
    """A seated stage of four rounds with an hour's limit, two tables of four, two advancing
    from each."""
    stage = factories.StageFactory(
        tournament=tournament,
        order=1,
        rounds=4,
        status="seated",
        time_limit_minutes=60,
        advance_per_table=2,
    )
    seat_tables(stage, [["Ann", "Bob", "Cy", "Di"], ["Eve", "Fay", "Gus", "Hal"]])
    return stage


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(
        tournament=tournament, order=1, rounds=4, starting_double=12, status="seated"
    )


@pytest.fixture
def table(stage):
    """Table 1 of the stage: Ann, Bob, Cy and Di in seats 1 to 4."""
    table = factories.TableFactory(stage=stage, number=1)
    for position, name in enumerate(["Ann", "Bob", "Cy", "Di"], start=1):
        player = factories.PlayerFactory(tournament=stage.tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    return table


@pytest.fixture
def players(table):
    return [seat.player for seat in table.seats.order_by("position")]


def round_body(players, pips=(0, 12, 30, 7), went_out=0, blocked=False, **extra):
    return {
        "blocked": blocked,
        "scores": [
            {"player": p.pk, "pips": pip, "went_out": (i == went_out and not blocked)}
            for i, (p, pip) in enumerate(zip(players, pips, strict=True))
        ],
        **extra,
    }
