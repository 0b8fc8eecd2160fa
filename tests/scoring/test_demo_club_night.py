"""The demo's club night, as `make run` loads it: a stage whose players enter their own rounds,
with a round waiting for a second player, one disputed and one table still playing."""

from collections.abc import Iterator

import pytest
from django.core.management import call_command

from scoring.demo_club_night import CLUB_NIGHT_SLUG, DISPUTE_NOTE
from scoring.models import RoundResult
from tables import reporting
from tables.models import SeatClaim
from tests.snapshots import demo_command
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker) -> Iterator[None]:
    with django_db_blocker.unblock():
        demo_command()
    yield
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)


def test_the_club_night_is_reported_by_its_players_at_three_tables_of_five(demo):
    night = Tournament.objects.get(slug=CLUB_NIGHT_SLUG)
    game = night.stages.get(order=1)
    assert (game.reporting, game.status) == ("players", "seated")
    assert [t.seats.count() for t in game.tables.order_by("number")] == [5, 5, 5]
    assert len({t.code for t in game.tables.all()}) == 3


def test_its_rounds_were_entered_and_confirmed_by_different_seats(demo):
    results = RoundResult.objects.filter(stage__tournament__slug=CLUB_NIGHT_SLUG)
    state = {(r.table.number, r.round_no): r.status for r in results.select_related("table")}
    assert state == {
        (1, 1): "confirmed", (1, 2): "confirmed", (1, 3): "submitted",
        (2, 1): "confirmed", (2, 2): "confirmed", (2, 3): "disputed",
        (3, 1): "confirmed", (3, 2): "confirmed",
    }  # fmt: skip
    for result in results.filter(status="confirmed"):
        confirmed = result.versions.get(action="confirmed")
        entered, by = reporting.seat_of(result.submitted_by_id), reporting.seat_of(confirmed.by_id)
        assert entered is not None and by is not None and entered != by
    disputed = results.get(status="disputed").versions.get(action="disputed")
    assert disputed.reason == DISPUTE_NOTE
    assert SeatClaim.objects.filter(seat__stage__tournament__slug=CLUB_NIGHT_SLUG).count() == 7


def test_make_run_prints_where_a_player_claims_a_seat(demo):
    from io import StringIO

    out = StringIO()
    call_command("load_demo", stdout=out)
    night = Tournament.objects.get(slug=CLUB_NIGHT_SLUG)
    table = night.stages.get(order=1).tables.get(number=3)
    badge = table.seats.order_by("position").last().player.number
    assert f"/seat/{table.code}/ with badge {badge}" in out.getvalue()
