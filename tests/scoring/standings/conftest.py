"""The standings tests' own stage (it stands in for tests/scoring/conftest.py's) and the helpers
they share."""

import pytest

from tests import factories
from tests.scoring.helpers import play


def rows(client, stage) -> list[dict]:
    return client.get(f"/api/v1/stages/{stage.pk}/standings/").json()["rows"]


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(tournament=tournament, rounds=4, status="seated")


# A stage of one table is the final: it sends nobody on. The tests of advancement seat a second
# table beside the one they look at, which plays the same rounds with scores above theirs.
OTHERS = ["Xu", "Yo", "Zed"]


def play_beside(stage, other, round_no, status="confirmed"):
    play(stage, other, round_no, [70, 80, 90], status=status, blocked=True)


def at_table(rows, number=1) -> list[dict]:
    return [r for r in rows if r["table"] == number]
