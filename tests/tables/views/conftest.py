"""The organiser's console tests: their stage (the qualifying stage, order 1), an organiser's
client, and the helpers they share."""

import pytest

from tests import factories


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(tournament=tournament, order=1, name="Qualifying")


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


def add_players(tournament, count):
    return [factories.PlayerFactory(tournament=tournament, number=n) for n in range(1, count + 1)]


def new_stage(**changes: str) -> dict[str, str]:
    """What the console's Add a stage form sends: a playoff Final, with `changes`."""
    return {
        "name": "Final", "kind": "playoff", "starting_double": "9", "rounds": "2",
        "table_size_min": "2", "table_size_max": "8", "advance_per_table": "1",
        "wildcards": "0", "late_entry_rule": "table_high", **changes,
    }  # fmt: skip
