import pytest

from tests import factories


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
