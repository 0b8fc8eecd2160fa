"""A stage's close against a correction of one of its results, on PostgreSQL with two
connections: whichever commits first, the other sees it. A close waits for a correction in
flight (and then refuses: the round is no longer confirmed); a correction waits for a close in
flight (and then refuses: the stage is closed). A closed stage never holds an unconfirmed round,
and no decision is taken on a stage that closed meanwhile."""

import threading
import time

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from scoring import services as scoring_services
from scoring import standings
from scoring.models import RoundResult
from scoring.services import closing
from tests import factories
from tests.scoring.helpers import play, seat_tables
from tournaments.exceptions import StateConflict
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)

HOLD = 1.0  # seconds the first transaction stays open before it commits


@pytest.fixture
def ready_to_close(require_postgres):
    """A stage of one table, every round confirmed: ready to close."""
    tournament = factories.TournamentFactory()
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    official = factories.StaffFactory(tournament=tournament, role="official").user
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    play(stage, players, 2, [4, 0, 8])
    standings.rebuild_standings(stage=stage)
    return stage, players, organiser, official


def correction(stage, players, official):
    result = RoundResult.objects.get(stage=stage, round_no=2)
    data = {
        "blocked": False,
        "scores": [
            {"player": p.pk, "pips": pips, "went_out": pips == 0}
            for p, pips in zip(players, (0, 4, 8), strict=True)
        ],
        "reason": "Ann went out, not Bob",
    }
    return lambda: scoring_services.submit_round_result(
        table=result.table, round_no=2, data=data, by=official, if_match=result.etag
    )


def held(action, started: threading.Event, release: threading.Event, outcome: dict):
    """Run `action` in a transaction of its own connection, kept open until `release`."""

    def run() -> None:
        try:
            with transaction.atomic():
                outcome["value"] = action()
                started.set()
                release.wait(10)
        except Exception as error:  # what the action refused, for the test to read
            outcome["error"] = error
            started.set()
        finally:
            connection.close()

    return threading.Thread(target=run)


def timed(action, outcome: dict):
    def run() -> None:
        begun = time.monotonic()
        try:
            outcome["value"] = action()
        except Exception as error:
            outcome["error"] = error
        finally:
            outcome["seconds"] = time.monotonic() - begun
            connection.close()

    return threading.Thread(target=run)


def test_a_close_waits_for_a_correction_in_flight_and_then_refuses(ready_to_close):
    stage, players, organiser, official = ready_to_close
    started, release, first, second = threading.Event(), threading.Event(), {}, {}
    correcting = held(correction(stage, players, official), started, release, first)
    correcting.start()
    assert started.wait(10) and "error" not in first, first
    closer = timed(lambda: closing.close_stage(stage=stage, by=organiser), second)
    closer.start()
    time.sleep(HOLD)
    assert closer.is_alive(), f"the close did not wait for the correction: {second}"
    release.set()
    correcting.join(10)
    closer.join(10)
    assert isinstance(second.get("error"), StateConflict), second
    assert "round 2 is not confirmed" in str(second["error"])
    stage.refresh_from_db()
    assert stage.status == Stage.Status.SEATED
    assert RoundResult.objects.get(stage=stage, round_no=2).status == "submitted"


def test_a_correction_waits_for_a_close_in_flight_and_then_refuses(ready_to_close):
    stage, players, organiser, official = ready_to_close
    started, release, first, second = threading.Event(), threading.Event(), {}, {}
    closer = held(lambda: closing.close_stage(stage=stage, by=organiser), started, release, first)
    closer.start()
    assert started.wait(10) and "error" not in first, first
    correcting = timed(correction(stage, players, official), second)
    correcting.start()
    time.sleep(HOLD)
    assert correcting.is_alive(), f"the correction did not wait for the close: {second}"
    release.set()
    closer.join(10)
    correcting.join(10)
    assert isinstance(second.get("error"), StateConflict), second
    assert "is closed" in str(second["error"])
    stage.refresh_from_db()
    assert stage.status == Stage.Status.CLOSED
    assert RoundResult.objects.get(stage=stage, round_no=2).status == "confirmed"


def test_a_confirmation_and_a_close_wait_for_each_other(ready_to_close):
    """A round corrected (submitted again) is confirmed while the stage closes: the close
    waits, then closes with the confirmed round; never closed with a round still submitted."""
    stage, players, organiser, official = ready_to_close
    outcome = correction(stage, players, official)()
    started, release, first, second = threading.Event(), threading.Event(), {}, {}
    confirming = held(
        lambda: scoring_services.confirm_round_result(result=outcome.result, by=organiser),
        started,
        release,
        first,
    )
    confirming.start()
    assert started.wait(10) and "error" not in first, first
    closer = timed(lambda: closing.close_stage(stage=stage, by=organiser), second)
    closer.start()
    time.sleep(HOLD)
    assert closer.is_alive(), f"the close did not wait for the confirmation: {second}"
    release.set()
    confirming.join(10)
    closer.join(10)
    assert "error" not in second, second
    stage.refresh_from_db()
    assert stage.status == Stage.Status.CLOSED
    assert set(RoundResult.objects.filter(stage=stage).values_list("status", flat=True)) == {
        "confirmed"
    }


def test_no_decision_is_taken_on_a_stage_that_closed_meanwhile(ready_to_close):
    """record_tiebreak was handed the stage as it was read before the close committed."""
    stage, players, organiser, official = ready_to_close
    read_before = Stage.objects.get(pk=stage.pk)
    closing.close_stage(stage=stage, by=organiser)
    with pytest.raises((StateConflict, ValidationError)) as refused:
        scoring_services.record_tiebreak(
            stage=read_before,
            table_id=None,
            order=[players[1].pk, players[2].pk],
            method="draw",
            note="",
            by=official,
        )
    assert "is closed" in str(refused.value)
    assert not read_before.tiebreaks.exists()
