"""Time called: a stage's clock started, paused, resumed and called, with a frozen clock (never a
sleeping test); each table's last round fixed at the call; what the API refuses."""

from datetime import timedelta

import pytest

from scoring import standings, time_called
from scoring.models import RoundResult, StageStandings, StandingRow
from scoring.services import clock, closing
from tables.models import Table
from tests import factories
from tests.scoring.conftest import NOON, round_body
from tests.scoring.helpers import close, play, playoff
from tournaments.models import Stage, StageClock

pytestmark = pytest.mark.django_db


def players_at(stage, number):
    table = Table.objects.get(stage=stage, number=number)
    return [seat.player for seat in table.seats.order_by("position")]


def clock_url(stage):
    return f"/api/v1/tournaments/{stage.tournament.slug}/stages/{stage.pk}/clock/"


def act(client, stage, action):
    return client.post(clock_url(stage), {"action": action}, format="json")


def state(stage):
    return clock.clock_state(Stage.objects.get(pk=stage.pk))


def clock_row(stage):
    return StageClock.objects.filter(stage=stage).values().first()


# ---- start, pause, resume ----------------------------------------------------------------------


def test_a_clock_counts_down_from_the_limit_once_started(frozen, timed):
    assert state(timed)["remaining_seconds"] == 3600
    assert not state(timed)["started"]
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=10))
    now = state(timed)
    assert (now["running"], now["remaining_seconds"]) == (True, 50 * 60)


def test_pausing_stops_the_time_and_resuming_goes_on_from_there(frozen, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=10))
    clock.pause_clock(timed)
    frozen.shift(timedelta(minutes=30))  # a long pause: no time is used
    assert (state(timed)["running"], state(timed)["remaining_seconds"]) == (False, 50 * 60)
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=5, seconds=30))
    assert state(timed)["remaining_seconds"] == 44 * 60 + 30


def test_a_clock_paused_within_its_first_second_has_started(frozen, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(milliseconds=300))
    clock.pause_clock(timed)
    now = state(timed)  # paused, not "the clock has not started"
    assert (now["started"], now["running"], now["remaining_seconds"]) == (True, False, 3599)


def test_the_time_left_never_goes_below_zero_and_says_time_is_up(frozen, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=75))
    now = state(timed)
    assert (now["remaining_seconds"], now["time_up"], now["called"]) == (0, True, False)


def test_a_late_tablet_reads_the_time_the_clock_ran_while_it_was_away(frozen, anon, timed):
    """A tablet that loaded the time left and went offline for 20 minutes gets the server's time
    left when it asks again, not what its own countdown (or its wrong wall clock) says."""
    clock.start_clock(timed)
    first = anon.get(clock_url(timed)).json()
    assert (first["remaining_seconds"], first["running"]) == (3600, True)
    frozen.shift(timedelta(minutes=20, seconds=5))
    back = anon.get(clock_url(timed))
    assert back.status_code == 200
    assert back.json()["remaining_seconds"] == 40 * 60 - 5
    assert back.json()["running"] is True


def test_the_api_starts_pauses_and_calls_for_organisers(frozen, as_organiser, timed):
    response = act(as_organiser, timed, "start")
    assert response.status_code == 200, response.json()
    assert response.json()["running"] is True
    frozen.shift(timedelta(minutes=1))
    response = act(as_organiser, timed, "pause")
    assert (response.json()["running"], response.json()["remaining_seconds"]) == (False, 59 * 60)
    response = act(as_organiser, timed, "call")
    assert response.status_code == 200
    assert response.json()["called"] is True
    assert response.json()["rounds_at_call"] == {"1": 1, "2": 1}


# ---- calling time ------------------------------------------------------------------------------


def test_calling_time_fixes_each_tables_last_round(frozen, timed):
    """The round in play: one more than the highest round with any result (entered or
    confirmed), at most the stage's rounds."""
    first, second = players_at(timed, 1), players_at(timed, 2)
    for round_no in (1, 2, 3, 4):
        play(timed, first, round_no, [0, 5, 10, 15])
    play(timed, second, 1, [0, 5, 10, 15])
    play(timed, second, 2, [0, 5, 10, 15], status="submitted")
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=61))
    called = clock.call_time(timed)
    assert called.rounds_at_call == {"1": 4, "2": 3}
    assert called.called_at == NOON + timedelta(minutes=61)
    assert not called.running
    assert time_called.called_after(timed) == {2: 3}


def test_a_table_opened_for_late_players_plays_at_least_its_first_round_at_the_call(
    frozen, timed, organiser
):
    """A table that joined at round 3 and has reported nothing plays round 3 (not round 1, which
    it never had); the close and the results expected count its rounds 3 only."""
    from tables import services as table_services

    for number in (1, 2):
        for round_no in (1, 2):
            play(timed, players_at(timed, number), round_no, [0, 5, 10, 15])
    waiting = [factories.PlayerFactory(tournament=timed.tournament, number=n) for n in (21, 22, 23)]
    table_services.add_late_table(stage=timed, players=waiting, by=organiser, from_round=3)
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=61))
    called = clock.call_time(timed)
    assert called.rounds_at_call == {"1": 3, "2": 3, "3": 3}
    assert time_called.results_expected(timed) == 3 + 3 + 1
    assert [(m["table"], m["round"]) for m in closing.missing_results(timed)] == [
        (1, 3),
        (2, 3),
        (3, 3),
    ]


def test_time_may_be_called_before_the_limit_runs_out(frozen, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=20))
    clock.call_time(timed)
    now = state(timed)
    assert (now["called"], now["running"], now["remaining_seconds"]) == (True, False, 40 * 60)
    frozen.shift(timedelta(minutes=60))  # the clock stays stopped
    assert state(timed)["remaining_seconds"] == 40 * 60


def test_a_round_after_the_last_is_refused_and_the_last_is_entered(as_official, timed):
    second = players_at(timed, 2)
    play(timed, second, 1, [0, 5, 10, 15])
    clock.start_clock(timed)
    clock.call_time(timed)  # table 2 plays round 2 (in play), table 1 round 1
    table = Table.objects.get(stage=timed, number=2)
    response = as_official.put(
        f"/api/v1/tables/{table.pk}/rounds/3/", round_body(second), format="json"
    )
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Time was called after round 2 at table 2: round 3 is not played."
    )
    assert not RoundResult.objects.filter(table=table, round_no=3).exists()
    response = as_official.put(
        f"/api/v1/tables/{table.pk}/rounds/2/", round_body(second), format="json"
    )
    assert response.status_code == 201, response.json()


def test_as_it_stands_the_round_in_play_is_entered_as_blocked(as_official, timed):
    timed.time_rule = Stage.TimeRule.AS_STANDS
    timed.save()
    first = players_at(timed, 1)
    play(timed, first, 1, [0, 5, 10, 15])
    clock.start_clock(timed)
    clock.call_time(timed)
    table = Table.objects.get(stage=timed, number=1)
    url = f"/api/v1/tables/{table.pk}/rounds/2/"
    response = as_official.put(url, round_body(first), format="json")
    assert response.status_code == 400
    assert "scored as it stands, as a blocked round" in str(response.json()["blocked"])
    assert not RoundResult.objects.filter(table=table, round_no=2).exists()
    blocked = round_body(first, pips=(3, 12, 30, 7), blocked=True)
    response = as_official.put(url, blocked, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["blocked"] is True


def test_finish_round_enters_the_round_in_play_normally(as_official, timed):
    first = players_at(timed, 1)
    clock.start_clock(timed)
    clock.call_time(timed)
    table = Table.objects.get(stage=timed, number=1)
    response = as_official.put(
        f"/api/v1/tables/{table.pk}/rounds/1/", round_body(first), format="json"
    )
    assert response.status_code == 201, response.json()


def test_the_stage_closes_with_each_table_to_its_last_round(as_organiser, tournament, timed):
    playoff(tournament, order=2, size_min=4, size_max=4)
    first, second = players_at(timed, 1), players_at(timed, 2)
    for round_no in (1, 2, 3):
        play(timed, first, round_no, [0, 5, 10, 15])
    play(timed, second, 1, [0, 6, 11, 16])
    clock.start_clock(timed)
    clock.call_time(timed)  # table 1: 4 rounds (3 played, 4 in play); table 2: rounds 1 and 2
    assert closing.missing_results(timed) == [
        {"table": 1, "round": 4, "status": "missing"},
        {"table": 2, "round": 2, "status": "missing"},
    ]
    play(timed, first, 4, [0, 5, 10, 15])
    play(timed, second, 2, [0, 6, 11, 16])
    response = close(as_organiser, timed)
    assert response.status_code == 202, response.json()
    assert Stage.objects.get(pk=timed.pk).status == Stage.Status.CLOSED


def test_standings_compare_like_with_like_after_the_call(timed, anon):
    """The overall ranking counts the rounds every table played (table 2's two); each table's
    own ranking counts all of its rounds, so table 1's winner is decided by its four."""
    first, second = players_at(timed, 1), players_at(timed, 2)
    # Table 1: Ann leads after two rounds, Bob wins over four.
    play(timed, first, 1, [0, 5, 10, 15])
    play(timed, first, 2, [0, 5, 10, 15])
    play(timed, first, 3, [40, 0, 10, 15])
    play(timed, first, 4, [40, 0, 10, 15])
    play(timed, second, 1, [0, 6, 11, 16])
    clock.start_clock(timed)
    clock.call_time(timed)
    play(timed, second, 2, [0, 6, 11, 16])
    meta = standings.rebuild_standings(stage=timed)
    assert meta.ranked_through == 2
    assert (meta.results_counted, meta.results_expected) == (6, 6)
    rows = {row.player.name: row for row in StandingRow.objects.filter(stage=timed)}
    assert rows["Ann"].total == 0 and rows["Ann"].rank == 1  # over rounds 1 and 2
    assert rows["Bob"].table_rank == 1  # table 1 over its four rounds: Bob 10, Ann 80
    assert rows["Ann"].table_rank == 4  # Cy 40, Di 60, then Ann 80
    assert time_called.decided(
        timed, meta.ranked_through, counted=meta.results_counted, expected=meta.results_expected
    )
    body = anon.get(f"/api/v1/stages/{timed.pk}/standings/").json()
    assert body["time_called"] == {
        "ranked_through_round": 2,
        "tables": [{"table": 2, "after_round": 2}],  # table 1 played all four
    }


def test_the_standings_api_says_nothing_of_time_called_before_the_call(frozen, timed, anon):
    clock.start_clock(timed)
    play(timed, players_at(timed, 1), 1, [0, 5, 10, 15])
    standings.rebuild_standings(stage=timed)
    assert anon.get(f"/api/v1/stages/{timed.pk}/standings/").json()["time_called"] is None


# ---- what is refused, changing nothing ---------------------------------------------------------


def test_a_stage_without_a_time_limit_has_no_clock_to_start(as_organiser, timed):
    timed.time_limit_minutes = None
    timed.save()
    response = act(as_organiser, timed, "start")
    assert response.status_code == 409
    assert "has no time limit" in response.json()["detail"]
    assert clock_row(timed) is None or clock_row(timed)["running_since"] is None


def test_calling_time_on_a_clock_that_never_started_is_409(as_organiser, timed):
    response = act(as_organiser, timed, "call")
    assert response.status_code == 409
    assert response.json()["detail"].endswith("never started: start the clock first.")
    assert clock_row(timed) is None or clock_row(timed)["called_at"] is None


def test_calling_time_twice_is_409_and_keeps_the_first_call(frozen, as_organiser, timed):
    clock.start_clock(timed)
    act(as_organiser, timed, "call")
    before = clock_row(timed)
    frozen.shift(timedelta(minutes=5))
    play(timed, players_at(timed, 1), 1, [0, 5, 10, 15])
    response = act(as_organiser, timed, "call")
    assert response.status_code == 409
    assert "Time was called already" in response.json()["detail"]
    assert clock_row(timed) == before


@pytest.mark.parametrize(
    ("steps", "action", "says"),
    [
        (["start"], "start", "already running"),
        ([], "pause", "not running"),
        (["start", "pause"], "pause", "not running"),
        (["start", "call"], "start", "called already"),
    ],
)
def test_refused_clock_actions_are_409_and_change_nothing(
    frozen, as_organiser, timed, steps, action, says
):
    for step in steps:
        assert act(as_organiser, timed, step).status_code == 200
    before = clock_row(timed)
    frozen.shift(timedelta(minutes=3))
    response = act(as_organiser, timed, action)
    assert response.status_code == 409
    assert says in response.json()["detail"]
    assert clock_row(timed) == before


def test_a_pending_stage_clock_does_not_start(as_organiser, tournament):
    pending = factories.StageFactory(tournament=tournament, order=1, time_limit_minutes=30)
    response = act(as_organiser, pending, "start")
    assert response.status_code == 409
    assert "not seated yet" in response.json()["detail"]


@pytest.mark.parametrize("body", [{"action": "stop"}, {}, {"action": "start", "extra": 1}])
def test_an_unknown_action_is_400(as_organiser, timed, body):
    response = as_organiser.post(clock_url(timed), body, format="json")
    assert response.status_code == 400
    assert clock_row(timed) is None


def test_only_organisers_control_the_clock(as_official, anon, timed):
    assert act(as_official, timed, "start").status_code == 403
    assert act(anon, timed, "start").status_code in (401, 403)
    assert clock_row(timed) is None


def test_a_clock_of_another_tournaments_stage_is_404(as_organiser, anon, timed):
    other = factories.StageFactory(order=1, status="seated", time_limit_minutes=10)
    url = f"/api/v1/tournaments/{timed.tournament.slug}/stages/{other.pk}/clock/"
    assert anon.get(url).status_code == 404
    assert as_organiser.post(url, {"action": "start"}, format="json").status_code == 404


@pytest.mark.parametrize("limit", [0, -5])
def test_a_time_limit_of_zero_or_less_is_400(as_organiser, tournament, limit):
    pending = factories.StageFactory(tournament=tournament, order=1, time_limit_minutes=60)
    response = as_organiser.patch(
        f"/api/v1/stages/{pending.pk}/", {"time_limit_minutes": limit}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["time_limit_minutes"] == [
        "A time limit is at least one minute: leave it empty for no time limit."
    ]
    assert Stage.objects.get(pk=pending.pk).time_limit_minutes == 60


def test_a_time_limit_and_rule_are_set_through_the_api(as_organiser, tournament):
    pending = factories.StageFactory(tournament=tournament, order=1)
    response = as_organiser.patch(
        f"/api/v1/stages/{pending.pk}/",
        {"time_limit_minutes": 45, "time_rule": "as_stands"},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert (response.json()["time_limit_minutes"], response.json()["time_rule"]) == (
        45,
        "as_stands",
    )


def test_the_standings_snapshot_expects_each_tables_rounds_to_its_last(timed):
    play(timed, players_at(timed, 1), 1, [0, 5, 10, 15])
    clock.start_clock(timed)
    clock.call_time(timed)
    meta = standings.rebuild_standings(stage=timed)
    assert (
        StageStandings.objects.get(stage=timed).results_expected == 2 + 1 == (meta.results_expected)
    )
