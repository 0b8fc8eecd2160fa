"""Closing a stage: what refuses or holds a close, and the next playoff level the job seats."""

import threading
import time
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connection

from scoring import standings, tasks
from scoring.services import closing
from tables.models import Seat, Table
from tests import factories
from tests.scoring.helpers import (
    close,
    play,
    play_stage,
    playoff,
    qualifying_with_tables,
    seat_tables,
)
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def table_of(stage, player) -> int:
    return Seat.objects.get(stage=stage, player=player).table.number


def test_close_is_refused_while_results_are_missing_or_unconfirmed(as_organiser, tournament):
    stage = qualifying_with_tables(tournament, [3, 3])
    first = Table.objects.get(stage=stage, number=1)
    players = [s.player for s in first.seats.order_by("position")]
    play(stage, players, 1, [0, 5, 10])
    play(stage, players, 2, [0, 5, 10], status="submitted")
    response = close(as_organiser, stage)
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert "table 1 round 2 is not confirmed" in detail
    assert "table 2 round 1 is missing; table 2 round 2 is missing" in detail
    assert {"table": 2, "round": 1, "status": "missing"} in response.json()["problems"]
    stage.refresh_from_db()
    assert stage.status == "seated"


def tied_for_first_at_table_one(tournament):
    """Two tables of three played out; at table 1, the first two tied for the place that
    decides who advances. The stage and table 1's players."""
    stage = qualifying_with_tables(tournament, [3, 3])
    (a, b, c), other = (
        [s.player for s in table.seats.order_by("position")]
        for table in Table.objects.filter(stage=stage).order_by("number")
    )
    for round_no in (1, 2):
        play(stage, [a, b, c], round_no, [0, 0, 9], blocked=True)
        play(stage, other, round_no, [0, 5, 10])
    return stage, (a, b, c)


def test_close_is_refused_while_a_tie_decides_who_advances(as_organiser, as_official, tournament):
    stage, (a, b, _c) = tied_for_first_at_table_one(tournament)
    response = close(as_organiser, stage)
    assert response.status_code == 409
    assert (
        f"Table 1: {a.name} and {b.name} are tied for place 1, which decides who advances"
        in response.json()["detail"]
    )
    decided = as_official.post(
        f"/api/v1/stages/{stage.pk}/tiebreaks/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [b.pk, a.pk],
            "method": "draw",
        },
        format="json",
    )
    assert decided.status_code == 201
    assert close(as_organiser, stage).status_code == 202


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_close_needs_an_organiser(request, tournament, client, status):
    stage = qualifying_with_tables(tournament, [3])
    play_stage(stage)
    assert close(request.getfixturevalue(client), stage).status_code == status
    stage.refresh_from_db()
    assert stage.status == "seated"


def test_close_a_pending_stage_is_409(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament)
    response = close(as_organiser, stage)
    assert response.status_code == 409 and "not seated" in response.json()["detail"]


@contextmanager
def rebuild_in_progress(stage, seconds: float):
    """Another connection holds the stage's rebuild lock for `seconds`, as a worker's rebuild
    does while it runs."""
    db = connection.settings_dict
    worker = psycopg.connect(
        host=db["HOST"] or None,
        port=db["PORT"] or None,
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
    )
    worker.execute("SELECT pg_advisory_xact_lock(%s, %s)", [standings.REBUILD_LOCK, stage.pk])
    done = threading.Timer(seconds, worker.commit)
    done.start()
    try:
        yield
    finally:
        done.join()
        worker.close()


def test_closing_waits_for_a_rebuild_in_progress_instead_of_refusing(
    as_organiser, tournament, require_postgres
):
    stage = qualifying_with_tables(tournament, [3, 3])
    play_stage(stage)
    with rebuild_in_progress(stage, seconds=0.5):
        started = time.monotonic()
        response = close(as_organiser, stage)
        waited = time.monotonic() - started
    assert response.status_code == 202, response.json()
    assert waited >= 0.4  # it did wait for the rebuild
    stage.refresh_from_db()
    assert stage.status == "closed"


def test_closing_during_a_rebuild_that_does_not_end_asks_to_try_again_and_changes_nothing(
    as_organiser, tournament, require_postgres, monkeypatch
):
    monkeypatch.setattr(standings.locks, "REBUILD_WAIT_SECONDS", 0.3)
    stage = qualifying_with_tables(tournament, [3, 3])
    play_stage(stage)
    with rebuild_in_progress(stage, seconds=1.5):
        response = close(as_organiser, stage)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"The standings of {stage.name} are being updated right now: try again in a moment."
    )
    stage.refresh_from_db()
    assert stage.status == "seated"
    assert close(as_organiser, stage).status_code == 202  # once it has ended


def test_closing_seats_the_next_playoff_stage_with_table_winners_snake_seeded(
    as_organiser, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 8)
    nxt = playoff(tournament, size_min=3, size_max=4)
    # table t's seat 1 always goes out; seat 2 scores t each round, so the winners rank by table
    play_stage(
        stage, lambda seat, n: 0 if seat.position == 1 else seat.table.number + seat.position
    )
    response = close(as_organiser, stage)
    assert response.status_code == 202, response.json()
    assert "next playoff level is being seated" in response.json()["detail"]
    nxt.refresh_from_db()
    stage.refresh_from_db()
    assert stage.status == "closed" and nxt.status == "seated" and nxt.source_stage == stage
    tables = {t.number: [s for s in t.seats.order_by("position")] for t in nxt.tables.all()}
    assert sorted(len(seats) for seats in tables.values()) == [4, 4]
    winners = {s.player.name for seats in tables.values() for s in seats}
    assert winners == {f"Q{3 * t + 1}" for t in range(8)}  # every table's seat 1
    for seats in tables.values():
        for seat in seats:  # who came from which table
            assert seat.from_table == table_of(stage, seat.player)


def test_a_close_whose_next_level_cannot_be_seated_is_refused_with_the_reason(
    as_organiser, tournament
):
    # Nine winners cannot sit at tables of 5 to 8 whose sizes differ by at most one. Closing
    # is refused now, saying why, rather than left to fail in the worker where nobody sees it.
    stage = qualifying_with_tables(tournament, [3] * 9)
    nxt = playoff(tournament, size_min=5, size_max=8)
    play_stage(stage)
    refused = close(as_organiser, stage)
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "cannot close yet: the players who advance cannot be seated at the next level" in detail
    assert "9 players cannot be split into tables of 5 to 8 players" in detail
    assert "Change the table sizes of Playoff 2 on its page in the console" in detail
    stage.refresh_from_db()
    nxt.refresh_from_db()
    assert (stage.status, nxt.status) == ("seated", "pending")  # nothing changed
    assert not Seat.objects.filter(stage=nxt).exists()
    assert Stage.objects.filter(tournament=tournament).count() == 2
    # With the next level's tables made smaller, the same close goes through.
    fixed = as_organiser.patch(f"/api/v1/stages/{nxt.pk}/", {"table_size_min": 4}, format="json")
    assert fixed.status_code == 200, fixed.json()
    assert close(as_organiser, stage).status_code == 202
    nxt.refresh_from_db()
    assert nxt.status == "seated"
    assert sorted(t.seats.count() for t in nxt.tables.all()) == [4, 5]


def test_a_refused_close_whose_next_level_would_be_made_says_to_add_it_in_the_console(
    client, organiser, tournament
):
    # A playoff level of three tables of 6 sends three from each table on: 9 players cannot sit
    # at tables of exactly 6, the size a level made on the fly would copy. The organiser adds
    # the next level in the console with sizes that fit, and the same close goes through.
    stage = qualifying_with_tables(tournament, [6] * 3, kind="playoff", advance_per_table=3)
    play_stage(stage)
    client.force_login(organiser)
    console = f"/t/{tournament.slug}/manage/"
    refused = client.post(f"{console}stages/1/close/", follow=True).content.decode()
    assert "9 players cannot be split into tables of 6 to 6 players" in refused
    assert "Add the next level under Stages in the console (Add a stage)" in refused
    stage.refresh_from_db()
    assert stage.status == "seated" and list(tournament.stages.all()) == [stage]
    body = {
        "name": "Final four and five", "kind": "playoff", "starting_double": "12",
        "rounds": "2", "table_size_min": "4", "table_size_max": "5",
        "advance_per_table": "1", "wildcards": "0", "late_entry_rule": "table_high",
    }  # fmt: skip
    assert client.post(f"{console}stages/add/", body).status_code == 302
    client.post(f"{console}stages/1/close/")
    nxt = Stage.objects.get(tournament=tournament, order=2)
    assert nxt.status == "seated" and nxt.source_stage == stage
    assert sorted(t.seats.count() for t in nxt.tables.all()) == [4, 5]


def test_what_stops_the_next_level_after_the_close_is_shown_in_the_console_until_put_right(
    client, organiser, as_organiser, tournament
):
    # The close found that the nine winners fit the next level's tables of 4 to 5; before the
    # worker seated them (a broker outage, say), the next level was changed to tables of 5 to
    # 8, where nine players cannot sit. The worker's attempt is refused, and the console says
    # why, instead of a line in a worker's log.
    stage = qualifying_with_tables(tournament, [3] * 9)
    nxt = playoff(tournament, size_min=4, size_max=5)
    play_stage(stage)
    Stage.objects.filter(pk=stage.pk).update(status="closed")  # closed; the worker not yet run
    stage_api = f"/api/v1/stages/{nxt.pk}/"
    changed = as_organiser.patch(stage_api, {"table_size_min": 5, "table_size_max": 8})
    assert changed.status_code == 200, changed.json()
    tasks.advance_from_stage(stage_id=stage.pk)  # what the worker runs
    nxt.refresh_from_db()
    stage.refresh_from_db()
    assert nxt.status == "pending" and not Seat.objects.filter(stage=nxt).exists()
    assert "9 players cannot be split into tables of 5 to 8 players" in stage.advance_problem
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert (
        f"{stage.name} is closed, but the players who advance could not be seated yet: "
        "9 players cannot be split"
    ) in console
    assert "Change the table sizes of Playoff 2 on its page in the console." in console
    assert "Roundhouse retries every 30 seconds and finishes once this is fixed." in console
    # That level is where the closed stage's players are to go: it cannot be removed instead.
    refused = client.post(f"/t/{tournament.slug}/manage/stages/2/remove/", {"confirm": "on"},
                          follow=True).content.decode()  # fmt: skip
    assert (
        f"Playoff 2 is where the players who advance from {stage.name} are to be seated" in refused
    )
    assert Stage.objects.filter(pk=nxt.pk).exists()
    # A further level after it is not where they go: that one can be removed.
    playoff(tournament, order=3)
    removed = client.post(f"/t/{tournament.slug}/manage/stages/3/remove/", {"confirm": "on"},
                          follow=True).content.decode()  # fmt: skip
    assert "Removed Playoff 3." in removed
    shown = as_organiser.get(f"/api/v1/stages/{stage.pk}/").json()
    assert shown["advance_problem"] == stage.advance_problem
    # Put right, the sweeper's next pass seats the level, and the console says nothing more.
    as_organiser.patch(stage_api, {"table_size_min": 4, "table_size_max": 5})
    tasks.sweep_stale_standings()
    nxt.refresh_from_db()
    stage.refresh_from_db()
    assert nxt.status == "seated" and nxt.source_stage == stage
    assert stage.advance_problem == ""
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "could not be seated yet" not in console


def test_a_refusal_is_not_kept_once_a_run_of_the_task_sent_twice_has_seated_the_level(
    tournament,
):
    stage = qualifying_with_tables(tournament, [3] * 4)
    nxt = playoff(tournament)
    Stage.objects.filter(pk=stage.pk).update(status="closed")
    closing.record_advance_problem(stage, "Tables of 5 to 8 cannot take 4 players.")
    stage.refresh_from_db()
    assert stage.advance_problem == "Tables of 5 to 8 cannot take 4 players."
    # Another run seats the level; this run's refusal, written after, must not show again.
    Stage.objects.filter(pk=nxt.pk).update(source_stage=stage, status="seated")
    closing.record_advance_problem(stage, "")
    closing.record_advance_problem(stage, "Tables of 5 to 8 cannot take 4 players.")
    stage.refresh_from_db()
    assert stage.advance_problem == ""


def test_an_earlier_stage_of_one_table_does_not_end_a_tournament_that_went_on(
    as_organiser, tournament
):
    # A first stage played at one table decided placings when it closed; the organiser then
    # seated a second stage at three tables. Its close makes the next level as usual.
    first = qualifying_with_tables(tournament, [3])
    play_stage(first)
    assert close(as_organiser, first).status_code == 202
    second = factories.StageFactory(
        tournament=tournament, order=2, name="Second", rounds=2, status="seated",
        table_size_min=3, table_size_max=3,
    )  # fmt: skip
    seat_tables(second, [["S1", "S2", "S3"], ["S4", "S5", "S6"], ["S7", "S8", "S9"]],
                first_number=100)  # fmt: skip
    play_stage(second)
    response = close(as_organiser, second)
    assert response.status_code == 202, response.json()
    level = Stage.objects.get(source_stage=second)
    assert level.kind == "playoff" and level.status == "seated"


def test_the_close_job_run_twice_seats_once(as_organiser, tournament):
    stage = qualifying_with_tables(tournament, [3] * 4)
    nxt = playoff(tournament)
    play_stage(stage)
    assert close(as_organiser, stage).status_code == 202
    assert close(as_organiser, stage).status_code == 202  # closing twice is harmless
    assert closing.advance_from_stage(stage=stage) is None  # and so is the job
    assert Seat.objects.filter(stage=nxt).count() == 4
    assert Stage.objects.filter(tournament=tournament).count() == 2


def test_a_level_the_worker_makes_takes_a_free_name(as_organiser, tournament):
    # The organiser named the only playoff stage "Final", but it is seated at two tables: the
    # level the worker makes after it is a final too, and "Final" is taken.
    stage = qualifying_with_tables(tournament, [3] * 8)
    named = playoff(tournament)
    Stage.objects.filter(pk=named.pk).update(name="Final")
    play_stage(stage)
    assert close(as_organiser, stage).status_code == 202
    named.refresh_from_db()
    assert named.tables.count() == 2
    play_stage(named)
    assert close(as_organiser, named).status_code == 202
    made = Stage.objects.get(source_stage=named)
    assert made.name == "Final (2)" and made.tables.count() == 1


def test_duplicate_names_from_before_block_no_other_change(as_organiser, tournament):
    first = playoff(tournament, order=2)
    twin = playoff(tournament, order=3)
    Stage.objects.filter(pk=twin.pk).update(name=first.name)  # made before names were unique
    changed = as_organiser.patch(f"/api/v1/stages/{twin.pk}/", {"rounds": 3}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["rounds"] == 3


def test_the_public_standings_name_a_deciding_tie_in_each_language(client, tournament):
    _stage, (a, b, _c) = tied_for_first_at_table_one(tournament)
    english = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert f"Table 1: {a.name} &amp; {b.name}" not in english
    assert f"Table 1: {a.name} and {b.name} are tied for place 1; an official" in english
    spanish = client.get(f"/es/t/{tournament.slug}/").content.decode()
    assert f"Mesa 1: {a.name} y {b.name} empatan en el puesto 1; un árbitro" in spanish


def test_closing_on_the_page_says_what_follows_in_each_language(client, organiser, tournament):
    """The organiser's page says what the close set going, as the API does: the placings of a
    stage that places by total; the next playoff level of a qualifying stage."""
    client.force_login(organiser)
    placed = qualifying_with_tables(tournament, [3, 3], decides_placings=True)
    play_stage(placed)
    page = client.post(f"/t/{tournament.slug}/manage/stages/{placed.order}/close/", follow=True)
    text = page.content.decode()
    assert f"{placed.display_name} is closed. The placings are decided now." in text
    assert "See the Playoffs page" not in text

    other = factories.TournamentFactory()
    factories.StaffFactory(tournament=other, user=organiser, role="organiser")
    stage = qualifying_with_tables(other, [3, 3])
    play_stage(stage)
    page = client.post(
        f"/t/{other.slug}/manage/stages/{stage.order}/close/",
        follow=True,
        headers={"Accept-Language": "es"},
    )
    text = " ".join(page.content.decode().split())
    assert "está cerrada. Ahora se reparten las mesas de la siguiente eliminatoria." in text
