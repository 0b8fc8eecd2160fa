"""Closing stages, the playoff levels the job seats, and the placings."""

import threading
import time
from contextlib import contextmanager

import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from scoring import playoffs, standings, tasks
from scoring.models import Placing
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import play, play_stage, seat_tables
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def names(count: int, prefix: str = "P") -> list[str]:
    return [f"{prefix}{n}" for n in range(1, count + 1)]


def qualifying_with_tables(tournament, sizes: list[int], **fields) -> Stage:
    stage = factories.StageFactory(
        tournament=tournament,
        order=1,
        rounds=2,
        status="seated",
        table_size_min=min(sizes),
        table_size_max=max(sizes),
        **fields,
    )
    counter = iter(range(1, sum(sizes) + 1))
    seat_tables(stage, [[f"Q{next(counter)}" for _ in range(size)] for size in sizes])
    return stage


def playoff(tournament, order=2, size_min=3, size_max=4, **fields) -> Stage:
    return factories.StageFactory(
        tournament=tournament,
        order=order,
        name=f"Playoff {order}",
        kind="playoff",
        rounds=2,
        table_size_min=size_min,
        table_size_max=size_max,
        **fields,
    )


def close(client, stage):
    return client.post(f"/api/v1/stages/{stage.pk}/close/")


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


def test_close_is_refused_while_a_tie_decides_who_advances(as_organiser, as_official, tournament):
    stage = qualifying_with_tables(tournament, [3, 3])
    (a, b, c), other = (
        [s.player for s in table.seats.order_by("position")]
        for table in Table.objects.filter(stage=stage).order_by("number")
    )
    for round_no in (1, 2):
        play(stage, [a, b, c], round_no, [0, 0, 9], blocked=True)
        play(stage, other, round_no, [0, 5, 10])
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
    monkeypatch.setattr(standings, "REBUILD_WAIT_SECONDS", 0.3)
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
    assert "cannot close yet: its advancers cannot be seated at the next level" in detail
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
    assert f"What follows {stage.name} could not be done: 9 players cannot be split" in console
    assert "Change the table sizes of Playoff 2 on its page in the console." in console
    assert "It is tried again every 30 s," in console
    # That level is where the closed stage's players are to go: it cannot be removed instead.
    refused = client.post(f"/t/{tournament.slug}/manage/stages/2/remove/", {"confirm": "on"},
                          follow=True).content.decode()  # fmt: skip
    assert f"Playoff 2 is where the advancers of {stage.name} are to be seated" in refused
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
    assert "could not be done" not in client.get(f"/t/{tournament.slug}/manage/").content.decode()


def test_a_refusal_is_not_kept_once_a_run_of_the_task_sent_twice_has_seated_the_level(
    tournament,
):
    stage = qualifying_with_tables(tournament, [3] * 4)
    nxt = playoff(tournament)
    Stage.objects.filter(pk=stage.pk).update(status="closed")
    playoffs.record_advance_problem(stage, "Tables of 5 to 8 cannot take 4 players.")
    stage.refresh_from_db()
    assert stage.advance_problem == "Tables of 5 to 8 cannot take 4 players."
    # Another run seats the level; this run's refusal, written after, must not show again.
    Stage.objects.filter(pk=nxt.pk).update(source_stage=stage, status="seated")
    playoffs.record_advance_problem(stage, "")
    playoffs.record_advance_problem(stage, "Tables of 5 to 8 cannot take 4 players.")
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
    assert playoffs.advance_from_stage(stage=stage) is None  # and so is the job
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


def test_ten_winners_at_tables_of_four_then_a_final_of_three_then_placings(
    as_organiser, anon, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 10)
    level1 = playoff(tournament, size_min=3, size_max=4)
    play_stage(stage)
    assert anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json() == []
    close(as_organiser, stage)
    level1.refresh_from_db()
    assert sorted(t.seats.count() for t in level1.tables.all()) == [3, 3, 4]
    play_stage(level1)
    close(as_organiser, level1)
    final = Stage.objects.get(source_stage=level1)
    assert (final.name, final.kind, final.table_size_max) == ("Final", "playoff", 4)
    assert [t.seats.count() for t in final.tables.all()] == [3]
    play_stage(final)
    response = close(as_organiser, final)
    assert "placings are decided" in response.json()["detail"]
    placings = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    assert len(placings) == 30
    finalists = [s.player_id for s in Seat.objects.filter(stage=final).order_by("position")]
    assert [p["player"]["id"] for p in placings[:3]] == finalists  # seat 1 won every round
    assert [p["place"] for p in placings[:3]] == [1, 2, 3]
    assert {p["went_out_in"] for p in placings[3:10]} == {level1.name}
    assert {p["went_out_in"] for p in placings[10:]} == {stage.name}
    # those who went out together share places by their rank there (seats 2 and 3 of 10 tables)
    assert [p["place"] for p in placings[10:12]] == [11, 11]


def test_the_standings_page_and_the_projector_name_the_winners_once_the_final_is_closed(
    as_organiser, client, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 3)
    play_stage(stage)
    close(as_organiser, stage)
    final = Stage.objects.get(source_stage=stage)
    play_stage(final)
    before = client.get(f"/t/{tournament.slug}/").content.decode()  # kept for this snapshot
    assert "is decided" not in before
    close(as_organiser, final)
    winner, second, third = (
        s.player for s in Seat.objects.filter(stage=final).order_by("position")
    )  # seat 1 won every round
    for path in (f"/t/{tournament.slug}/", f"/t/{tournament.slug}/screen/"):
        page = client.get(path).content.decode()
        assert f"{tournament.name} is decided" in page
        assert f"<strong>{winner.name}</strong>" in page and "winner" in page
        # In the podium: a name as short as "Q4" can also turn up in the page's random CSRF
        # token, in the header.
        podium = page.split('class="podium"', 1)[1].split("</section>", 1)[0]
        assert podium.index(winner.name) < podium.index(second.name) < podium.index(third.name)
    qualifying = client.get(f"/t/{tournament.slug}/?stage=1").content.decode()
    assert "is decided" not in qualifying  # the podium is the final's page's


def test_the_qualifying_standings_stay_one_tap_away_during_the_playoffs(
    as_organiser, client, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 3)
    play_stage(stage)
    home = f"/t/{tournament.slug}/"
    assert 'class="stage-switch"' not in client.get(home).content.decode()  # one stage: no switch
    close(as_organiser, stage)
    final = Stage.objects.get(source_stage=stage)
    page = client.get(home).content.decode()
    assert f'<h2 id="standings-h">{final.name}</h2>' in page  # the playoff, as it is now
    switch = page.split('class="stage-switch"', 1)[1].split("</nav>", 1)[0]
    assert f'href="{home}?stage=1">{stage.name}</a>' in switch
    assert f'href="{home}" aria-current="page">{final.name}</a>' in switch
    earlier = client.get(f"{home}?stage=1")
    assert earlier.status_code == 200
    earlier = earlier.content.decode()
    assert f'<h2 id="standings-h">{stage.name}</h2>' in earlier
    assert "6 of 6 results in." in earlier and "This stage is over." in earlier
    assert f'hx-get="{home}?stage=1"' in earlier  # it refreshes itself as itself
    assert f'href="{home}?stage=1" aria-current="page">' in earlier
    assert client.get(f"{home}?stage=7").status_code == 404  # no such stage played
    assert (
        f'<h2 id="standings-h">{final.name}</h2>' in client.get(f"{home}?stage=x").content.decode()
    )
    # A stage renamed or played since changes the earlier stage's page (its switch): no 304.
    etag = client.get(f"{home}?stage=1")["ETag"]
    assert client.get(f"{home}?stage=1", HTTP_IF_NONE_MATCH=etag).status_code == 304
    Stage.objects.filter(pk=final.pk).update(name="Grand final")
    assert client.get(f"{home}?stage=1", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_the_podium_of_a_final_of_two_names_the_third_place_from_the_qualifying(
    as_organiser, client, tournament
):
    stage = qualifying_with_tables(tournament, [3, 3])  # a Samboree: the two winners play off
    play_stage(stage)
    close(as_organiser, stage)
    final = Stage.objects.get(source_stage=stage)
    assert final.tables.get().seats.count() == 2
    play_stage(final)
    close(as_organiser, final)
    thirds = list(Placing.objects.filter(tournament=tournament, place=3))
    assert thirds and {p.stage_id for p in thirds} == {stage.pk}  # both tables' runners-up
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    assert f"{tournament.name} is decided" in page
    for third in thirds:
        assert third.player.name in page.split("is decided", 1)[1].split("</section>", 1)[0]


def test_a_second_qualifying_stage_is_played_before_the_playoffs_are_seated(
    as_organiser, tournament
):
    first = qualifying_with_tables(tournament, [3, 3, 3, 3])
    second = factories.StageFactory(
        tournament=tournament, order=2, name="Qualifying 2", rounds=2, carry_forward=True,
        table_size_min=3, table_size_max=4,
    )  # fmt: skip
    semis = playoff(tournament, order=3)
    play_stage(first)
    assert close(as_organiser, first).status_code == 202
    # Everyone plays the second qualifying stage: nobody is sent to the playoff yet, no level is
    # made, and no placings are decided.
    semis.refresh_from_db()
    second.refresh_from_db()
    assert (semis.status, second.status) == ("pending", "pending")
    assert not Seat.objects.filter(stage=semis).exists()
    assert Stage.objects.filter(tournament=tournament).count() == 3
    assert not Stage.objects.awaiting_next_level().filter(pk=first.pk).exists()
    seated = as_organiser.post(f"/api/v1/stages/{second.pk}/seat/", {"seed": 1}, format="json")
    assert seated.status_code == 200
    assert Seat.objects.filter(stage=second).count() == 12  # all twelve, as the organiser seats
    play_stage(second)
    assert close(as_organiser, second).status_code == 202
    semis.refresh_from_db()
    assert semis.status == "seated" and semis.source_stage_id == second.pk
    assert Seat.objects.filter(stage=semis).count() == 3  # the second stage's three table winners


def test_a_tie_at_a_stage_that_a_qualifying_stage_follows_decides_nothing(
    as_organiser, anon, tournament
):
    first = qualifying_with_tables(tournament, [3, 3])
    factories.StageFactory(
        tournament=tournament, order=2, name="Qualifying 2", rounds=2,
        table_size_min=3, table_size_max=4,
    )  # fmt: skip
    tied, other = (
        [s.player for s in table.seats.order_by("position")]
        for table in Table.objects.filter(stage=first).order_by("number")
    )
    for round_no in (1, 2):
        play(first, tied, round_no, [0, 0, 9], blocked=True)  # the first two tied for first
        play(first, other, round_no, [0, 5, 10])
    body = anon.get(f"/api/v1/stages/{first.pk}/standings/").json()
    # Everyone plays the next qualifying stage: nobody is marked as advancing, and no decision
    # is asked for a tie that decides nothing.
    assert body["flags"] == [] and not any(row["advances"] for row in body["rows"])
    assert close(as_organiser, first).status_code == 202


def test_a_tie_for_the_last_wildcard_holds_the_close_until_an_official_decides(
    as_organiser, client, organiser, tournament
):
    organiser_client = client
    organiser_client.force_login(organiser)
    stage = qualifying_with_tables(tournament, [3, 3], wildcards=1)
    playoff(tournament)
    (a1, a2, a3), (b1, b2, b3) = (
        [s.player for s in t.seats.order_by("position")] for t in stage.tables.order_by("number")
    )
    for round_no in (1, 2):  # A2 and B2 level on everything: one wildcard between them
        play(stage, [a1, a2, a3], round_no, [0, 10, 20])
        play(stage, [b1, b2, b3], round_no, [0, 10, 30])
    refused = close(as_organiser, stage)
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "are tied for place 3 overall, which decides the last wildcard" in detail
    standings_rows = as_organiser.get(f"/api/v1/stages/{stage.pk}/standings/").json()["rows"]
    assert not any(r["advances"] for r in standings_rows if r["player"]["id"] in (a2.pk, b2.pk))
    # The console's form for the flag records a stage-wide decision (no table).
    progress = f"/t/{tournament.slug}/manage/stages/1/progress/"
    page = organiser_client.get(progress).content.decode()
    assert "decides the last wildcard" in page
    organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/tiebreak/",
        {"order": [b2.pk, a2.pk], "method": "draw"},
    )
    rows = as_organiser.get(f"/api/v1/stages/{stage.pk}/standings/").json()["rows"]
    advancing = {r["player"]["id"] for r in rows if r["advances"]}
    assert b2.pk in advancing and a2.pk not in advancing
    assert close(as_organiser, stage).status_code == 202


def test_forty_winners_at_tables_of_at_most_eight_then_a_final_of_five(as_organiser, tournament):
    stage = qualifying_with_tables(tournament, [3] * 40)
    level1 = playoff(tournament, size_min=3, size_max=8)
    play_stage(stage)
    close(as_organiser, stage)
    level1.refresh_from_db()
    assert [t.seats.count() for t in level1.tables.order_by("number")] == [8] * 5
    play_stage(level1)
    close(as_organiser, level1)
    final = Stage.objects.get(source_stage=level1)
    assert [t.seats.count() for t in final.tables.all()] == [5]


def test_advance_two_per_table_plus_wildcards(as_organiser, tournament):
    stage = qualifying_with_tables(tournament, [4, 4, 4], advance_per_table=2, wildcards=2)
    nxt = playoff(tournament, size_min=4, size_max=8)
    play_stage(
        stage, lambda seat, n: 0 if seat.position == 1 else seat.position * seat.table.number
    )
    close(as_organiser, stage)
    seated = {s.player.name for s in Seat.objects.filter(stage=nxt).select_related("player")}
    top_two = {f"Q{4 * t + k}" for t in range(3) for k in (1, 2)}
    # the best of the rest overall: Q3 (3 x 1 x 2 = 6) and Q4 (8) of table 1, ahead of Q7 (12)
    wildcards = {"Q3", "Q4"}
    assert seated == top_two | wildcards


def test_nobody_advances_from_the_final_and_a_tie_for_first_decides_the_winner(
    as_organiser, as_official, anon, tournament
):
    stage = qualifying_with_tables(tournament, [3, 3])  # a Samboree: the two winners play off
    play_stage(stage)
    close(as_organiser, stage)
    final = Stage.objects.get(source_stage=stage)
    first, second = [s.player for s in final.tables.get().seats.order_by("position")]
    for round_no in (1, 2):
        play(final, [first, second], round_no, [0, 0], blocked=True)
    body = anon.get(f"/api/v1/stages/{final.pk}/standings/").json()
    assert not any(row["advances"] for row in body["rows"])  # a final sends nobody on
    refused = close(as_organiser, final)
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "are tied for first place in the final, which decides the winner" in detail
    assert "advances" not in detail
    decided = as_official.post(
        f"/api/v1/stages/{final.pk}/tiebreaks/",
        {"table": final.tables.get().pk, "order": [second.pk, first.pk], "method": "draw"},
        format="json",
    )
    assert decided.status_code == 201
    assert close(as_organiser, final).status_code == 202
    placings = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    assert [p["player"]["id"] for p in placings[:2]] == [second.pk, first.pk]
    export = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/standings.csv")
    lines = b"".join(export.streaming_content).decode("utf-8-sig").splitlines()
    in_final = [line for line in lines if line.startswith(f"{final.name},")]
    assert len(in_final) == 2 and all(line.endswith(",no") for line in in_final)
    qualifying = [line for line in lines if line.startswith(f"{stage.name},")]
    assert sum(line.endswith(",yes") for line in qualifying) == 2  # the two table winners


def test_a_tie_for_second_place_in_the_final_holds_the_close_but_one_for_fourth_does_not(
    as_organiser, as_official, anon, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 5)
    final = playoff(tournament, size_max=5)
    play_stage(stage)
    close(as_organiser, stage)
    players = [s.player for s in final.tables.get().seats.order_by("position")]
    assert len(players) == 5
    for round_no in (1, 2):  # places 1, 2=, 2=, 4=, 4=
        play(final, players, round_no, [0, 10, 10, 20, 20])
    refused = close(as_organiser, final)
    assert refused.status_code == 409
    (flag,) = refused.json()["problems"]
    assert flag["place"] == 2 and flag["players"] == sorted(p.pk for p in players[1:3])
    assert "are tied for second place in the final" in refused.json()["detail"]
    decided = as_official.post(
        f"/api/v1/stages/{final.pk}/tiebreaks/",
        {"order": [players[2].pk, players[1].pk], "method": "tiebreak_round"},
        format="json",
    )
    assert decided.status_code == 201
    assert close(as_organiser, final).status_code == 202
    placings = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    assert [(p["place"], p["player"]["id"]) for p in placings[:5]] == [
        (1, players[0].pk),
        (2, players[2].pk),
        (3, players[1].pk),
        (4, min(players[3].pk, players[4].pk)),  # a tie for fourth shares the place
        (4, max(players[3].pk, players[4].pk)),
    ]


def test_a_single_table_stage_decides_the_placings(as_organiser, anon, tournament):
    stage = qualifying_with_tables(tournament, [4])
    play_stage(stage)
    close(as_organiser, stage)
    placings = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    assert [(p["place"], p["player"]["name"]) for p in placings] == [
        (1, "Q1"),
        (2, "Q2"),
        (3, "Q3"),
        (4, "Q4"),
    ]
    assert Placing.objects.filter(tournament=tournament).count() == 4


def test_no_player_is_added_once_the_placings_are_decided(
    as_organiser, client, organiser, tournament
):
    stage = qualifying_with_tables(tournament, [4])
    play_stage(stage)
    close(as_organiser, stage)
    api = f"/api/v1/tournaments/{tournament.slug}/players/"
    added = as_organiser.post(api, {"number": 50, "name": "Late Lou"}, format="json")
    assert added.status_code == 409
    assert "the tournament is over, so no player can be added" in added.json()["detail"]
    upload = SimpleUploadedFile("players.csv", b"number,name\n51,Lou\n")
    imported = as_organiser.post(f"{api}import/", {"file": upload}, format="multipart")
    assert imported.status_code == 409
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "no player can be added" in console and "manage/players/add/" not in console
    form = client.post(f"/t/{tournament.slug}/manage/players/add/", {"number": 52, "name": "Lu"})
    assert form.status_code == 400 and "no player can be added" in form.content.decode()
    assert tournament.players.count() == 4
    # A typo in an entry can still be put right.
    q1 = tournament.players.get(number=1)
    fixed = client.post(
        f"/t/{tournament.slug}/manage/players/{q1.pk}/edit/",
        {"number": 1, "name": "Q One", "household": "", "club": ""},
    )
    assert fixed.status_code == 302
    q1.refresh_from_db()
    assert q1.name == "Q One"


def test_nobody_withdraws_rejoins_or_checks_in_once_the_placings_are_decided(
    as_organiser, client, organiser, tournament
):
    """A withdrawal after the final would rank the winner after everyone at the next rebuild,
    while the placings said first: the finished event's results stand as they are."""
    stage = qualifying_with_tables(tournament, [4])
    late = factories.PlayerFactory(
        tournament=tournament, number=60, name="Reg", status="registered"
    )
    gone = factories.PlayerFactory(
        tournament=tournament, number=61, name="Gone", status="withdrawn"
    )
    # Two registered: the console offers to check in everyone registered from two.
    factories.PlayerFactory(tournament=tournament, number=62, name="Reg Two", status="registered")
    play_stage(stage)
    close(as_organiser, stage)
    winner = tournament.players.get(name="Q1")
    placings = f"/api/v1/tournaments/{tournament.slug}/placings/"
    before = as_organiser.get(placings).json()
    assert before[0]["player"]["name"] == "Q1"
    reason = (
        "Qualifying has decided the placings: the tournament is over, so no player can withdraw,"
        " rejoin or check in. A player's entry can still be corrected."
    )
    players = f"/api/v1/tournaments/{tournament.slug}/players"
    for player, action in [(winner, "withdraw"), (gone, "reinstate"), (late, "check-in")]:
        refused = as_organiser.post(f"{players}/{player.pk}/{action}/")
        assert refused.status_code == 409 and refused.json()["detail"] == reason, action
    client.force_login(organiser)
    manage = f"/t/{tournament.slug}/manage/players"
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "nobody can withdraw, rejoin or check in" in console
    for player, action in [(winner, "withdraw"), (gone, "reinstate"), (late, "check-in")]:
        assert f"{manage}/{player.pk}/{action}/" not in console, action
    assert f"{manage}/check-in-everyone/" not in console
    for player, action in [(winner, "withdraw"), (gone, "reinstate"), (late, "check-in")]:
        for ask in (client.get, client.post):  # a stale tab: the confirmation, or its button
            page = ask(f"{manage}/{player.pk}/{action}/", follow=True).content.decode()
            assert reason.replace("'", "&#x27;") in page, (action, ask)
    for ask in (client.get, client.post):
        page = ask(f"{manage}/check-in-everyone/", follow=True).content.decode()
        assert reason.replace("'", "&#x27;") in page
    statuses = dict(tournament.players.values_list("name", "status"))
    assert statuses["Q1"] != "withdrawn"
    assert (statuses["Reg"], statuses["Gone"]) == ("registered", "withdrawn")
    assert as_organiser.get(placings).json() == before


def test_officials_set_the_playoff_on_the_day_after_it_was_seated(
    as_organiser, as_official, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 4)
    nxt = playoff(tournament)
    play_stage(stage)
    close(as_organiser, stage)
    response = as_official.patch(
        f"/api/v1/stages/{nxt.pk}/", {"starting_double": 9, "rounds": 3}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["engines"] == [9, 8, 7]
    bad = as_official.patch(f"/api/v1/stages/{nxt.pk}/", {"rounds": 11}, format="json")
    assert bad.status_code == 400
    assert "at most 10 rounds" in bad.json()["rounds"][0]


def test_bracket_page_shows_levels_tables_origins_and_placings(client, as_organiser, tournament):
    stage = qualifying_with_tables(tournament, [3] * 6)
    level1 = playoff(tournament, size_min=3, size_max=3)
    play_stage(stage)
    assert "have not started yet" in client.get(f"/t/{tournament.slug}/bracket/").content.decode()
    close(as_organiser, stage)
    page = client.get(f"/t/{tournament.slug}/bracket/").content.decode()
    assert "Playoff 2" in page and "Players came from the tables of" in page
    assert "table 6" in page  # the winner of table 6 is seated, and where they came from shows

    def level_of(page: str, stage: Stage) -> str:
        return page.split(f'id="level-{stage.pk}"', 1)[1].split("</section>", 1)[0]

    # While a level is played, its places and who goes on are the score so far.
    play_stage(level1)
    playing = level_of(client.get(f"/t/{tournament.slug}/bracket/").content.decode(), level1)
    assert "Place so far" in playing and ">would advance<" in playing
    assert ">advances<" not in playing and ">Place<" not in playing
    close(as_organiser, level1)
    played = level_of(client.get(f"/t/{tournament.slug}/bracket/").content.decode(), level1)
    assert ">Place<" in played and ">advances<" in played and "so far" not in played
    final = Stage.objects.get(source_stage=level1)
    # The last seat goes out every round: the final's places run against its seat order.
    play_stage(final, score_of=lambda seat, round_no: 5 * (3 - seat.position))
    close(as_organiser, final)
    page = client.get(f"/t/{tournament.slug}/bracket/").content.decode()
    assert "Final placings" in page and "final table" in page
    winner = Placing.objects.get(tournament=tournament, place=1).player
    assert f'<span class="place">1</span> {winner.name}' in page
    # The final table lists its players best placed first, not by seat.
    final_table = page[page.index("final table") :]
    finalists = final.seats.values_list("player", flat=True)
    places = Placing.objects.filter(tournament=tournament, player__in=finalists).order_by("place")
    names = [p.player.name for p in places]
    assert len(names) >= 2
    assert [final_table.index(name) for name in names] == sorted(
        final_table.index(name) for name in names
    )


def test_the_console_asks_before_closing_and_says_what_is_missing_and_what_follows(
    client, organiser, tournament
):
    stage = qualifying_with_tables(tournament, [3, 3], wildcards=1)
    semis = playoff(tournament, starting_double=9)
    semis.rounds = 3
    semis.save()
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    ask = f"/t/{tournament.slug}/manage/stages/1/close/"
    assert f'href="{ask}"' in console  # a link to the question, not a form that closes
    page = client.get(ask).content.decode()
    assert "It cannot close yet" in page and "Table 1 round 1 is missing" in page
    assert '<form method="post"' not in page.split("What closing does", 1)[1]
    # Table 2's players score a pip more than table 1's: no tie for the wildcard.
    play_stage(stage, score_of=lambda seat, _: 5 * (seat.position - 1) + seat.table.number)
    page = client.get(ask).content.decode()
    assert "It cannot close yet" not in page
    assert "cannot be opened again" in page
    assert "Each table's winner goes on to the next playoff level" in page
    assert "So does 1 more player, the best of the rest overall (a wildcard)." in page
    assert f"{semis.name} starts from double-9 and plays 3 rounds." in page
    stage.refresh_from_db()
    assert stage.status == "seated"  # asking changed nothing
    client.post(ask)
    stage.refresh_from_db()
    assert stage.status == "closed"
    assert client.get(ask)["Location"] == f"/t/{tournament.slug}/manage/"  # nothing to ask


def test_closing_the_final_says_it_decides_the_placings(client, organiser, tournament):
    stage = qualifying_with_tables(tournament, [4])
    client.force_login(organiser)
    play_stage(stage)
    page = client.get(f"/t/{tournament.slug}/manage/stages/1/close/").content.decode()
    assert "Its ranking decides the placings" in page


def test_close_from_the_console(client, organiser, tournament):
    stage = qualifying_with_tables(tournament, [3, 3])
    client.force_login(organiser)
    refused = client.post(f"/t/{tournament.slug}/manage/stages/1/close/", follow=True)
    assert "cannot close yet: table 1 round 1 is missing" in refused.content.decode()
    play_stage(stage)
    done = client.post(f"/t/{tournament.slug}/manage/stages/1/close/", follow=True)
    assert "is closed" in done.content.decode()
    stage.refresh_from_db()
    assert stage.status == "closed"


def test_progress_board_and_a_tie_decided_from_it(client, organiser, tournament):
    stage = qualifying_with_tables(tournament, [3, 3])
    first = [
        s.player for s in Seat.objects.filter(stage=stage, table__number=1).order_by("position")
    ]
    play(stage, first, 1, [0, 0, 9], blocked=True)
    play(stage, first, 2, [0, 0, 9], blocked=True)
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/manage/stages/1/progress/").content.decode()
    assert "2 confirmed, 0 to check, 2 missing." in page
    assert "⚑ tie to decide" in page and "Record the decision" in page
    twice = client.post(
        f"/t/{tournament.slug}/manage/stages/1/tiebreak/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [first[1].pk, first[1].pk],  # the same player picked for both places
            "method": "coin",
        },
        follow=True,
    ).content.decode()
    assert "The decision was not recorded. Table 1: " in twice
    assert "A player is chosen for two places" in twice
    assert "a tie-break round (tiebreak_round) or a draw (draw)" in twice
    assert "tie to decide" in twice
    response = client.post(
        f"/t/{tournament.slug}/manage/stages/1/tiebreak/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [first[1].pk, first[0].pk],
            "method": "draw",
            "note": "cards drawn",
        },
        follow=True,
    )
    assert "decision is recorded" in response.content.decode()
    assert "tie to decide" not in response.content.decode()


def test_history_page_lists_every_version(client, organiser, official, tournament):
    stage = qualifying_with_tables(tournament, [3])
    players = [s.player for s in Seat.objects.filter(stage=stage).order_by("position")]
    result = play(stage, players, 1, [0, 4, 9])
    client.force_login(official)
    page = client.get(f"/t/{tournament.slug}/enter/{result.table_id}/1/history/").content.decode()
    assert "Now version 1, confirmed." in page
    # A correction through the API: its version says where it came from, in words.
    body = {
        "reason": "Bob had 5",
        "scores": [
            {"player": p.pk, "pips": v, "went_out": v == 0}
            for p, v in zip(players, [0, 5, 9], strict=True)
        ],
    }
    api = client_for(official)
    url = f"/api/v1/tables/{result.table_id}/rounds/1/"
    assert api.put(url, body, format="json", HTTP_IF_MATCH=result.etag).status_code == 200
    page = client.get(f"/t/{tournament.slug}/enter/{result.table_id}/1/history/").content.decode()
    assert f"by {official.username}" in page and "from the API" in page and "Why: Bob had 5" in page
    assert "Now version 2, submitted." in page
