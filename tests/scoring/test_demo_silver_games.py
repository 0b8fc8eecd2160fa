"""The demo's Silver Games, as `make run` loads them: the demo loaded once for this module's
tests, which only read it (tests/scoring/test_demo.py's load it themselves, to load it again)."""

from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.db.models import Max

from scoring.demo_events import SILVER_SLUG
from scoring.models import RoundResult
from tests.snapshots import demo_command
from tournaments.models import Tournament

# Each test in a transaction of its own, rolled back: the demo, committed before them, stays.
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The demo, committed (its jobs run on commit) once for the module; emptied after it, as
    a transactional test leaves the database."""
    with django_db_blocker.unblock():
        demo_command()  # load_demo's, run once per test process (tests/snapshots.py)
    yield
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)


def test_the_silver_games_are_finished_with_medals_in_three_divisions(demo, anon, client):
    silver = Tournament.objects.get(slug=SILVER_SLUG)
    assert [d.name for d in silver.divisions.order_by("order")] == ["60-69", "70-79", "80+"]
    players = silver.players.all()
    assert 18 <= players.count() <= 24
    assert all(p.division is not None and p.status == "checked_in" for p in players)
    body = anon.get(f"/api/v1/tournaments/{SILVER_SLUG}/placings/").json()
    assert len(body) == players.count()
    medals: dict[str, dict[str, str]] = {}
    for placing in body:
        if placing["medal"]:
            medals.setdefault(placing["division"], {})[placing["medal"]] = placing["player"]["name"]
            assert (
                placing["division_place"]
                == ["gold", "silver", "bronze"].index(placing["medal"]) + 1
            )
    assert {d: sorted(m) for d, m in medals.items()} == {
        d: ["bronze", "gold", "silver"] for d in ("60-69", "70-79", "80+")
    }
    # Each division's medallists are its first three overall.
    for division, won in medals.items():
        mine = sorted((p["place"], p["player"]["name"]) for p in body if p["division"] == division)
        assert [name for _, name in mine[:3]] == [won["gold"], won["silver"], won["bronze"]]
    results = client.get(f"/en/t/{SILVER_SLUG}/results/").content.decode()
    for division, won in medals.items():
        assert f"Division {division}" in results
        assert all(name in results for name in won.values())


def test_the_silver_games_ended_with_time_called_a_round_apart(demo, anon, client):
    game = Tournament.objects.get(slug=SILVER_SLUG).stages.get()
    assert (game.status, game.time_limit_minutes, game.time_rule) == (
        "closed",
        60,
        "finish_round",
    )
    called = anon.get(f"/api/v1/tournaments/{SILVER_SLUG}/stages/{game.pk}/clock/").json()
    assert (called["called"], called["remaining_seconds"]) == (True, 0)  # the hour ran out
    played = dict(
        RoundResult.objects.filter(stage=game, status="confirmed")
        .values("table__number")
        .annotate(last=Max("round_no"))
        .values_list("table__number", "last")
    )
    assert RoundResult.objects.filter(stage=game).exclude(status="confirmed").count() == 0
    # Every table played up to the round time called fixed for it; some one round fewer.
    assert game.clock.rounds_at_call == {str(number): last for number, last in played.items()}
    fewest, most = min(played.values()), max(played.values())
    assert most == fewest + 1 < game.rounds
    results = client.get(f"/en/t/{SILVER_SLUG}/results/").content.decode()
    assert f"Time called: ranked on rounds 1 to {fewest}, which every table played." in results
    for number, last in played.items():
        assert f"Table {number}: time called after round {last}." in results
