"""Corrections after a close, reopening and unseating, through the API: what a close made, a
reopen unmakes, and only while nothing was entered in what it made."""

import threading
import time

import pytest
from django.db import connection, transaction

from scoring import tasks
from scoring.models import RoundResult, StandingRow
from scoring.services import reopen
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.test_moving_games import play_game, tables_of
from tournaments import services
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def event(preset: str, slug: str, players: int, domino_set: int = 12):
    """A tournament from the preset with its stages, `players` entered, an organiser's and an
    official's clients, and its stages in order."""
    organiser = factories.UserFactory()
    tournament = services.create_tournament(
        name=slug.title(),
        slug=slug,
        domino_set=domino_set,
        preset=preset,
        by=organiser,
        with_stages=True,
    )
    for number in range(1, players + 1):
        factories.PlayerFactory(tournament=tournament, number=number)
    official = factories.StaffFactory(tournament=tournament, role="official").user
    stages = list(tournament.stages.order_by("order"))
    return tournament, client_for(organiser), client_for(official), stages


def round_url(stage: Stage, table_number: int, round_no: int) -> str:
    table = Table.objects.get(stage=stage, number=table_number)
    return f"/api/v1/tables/{table.pk}/rounds/{round_no}/"


def correct(client, url: str, scores: dict[int, int], *, reason: str = "Typo", **headers):
    """PUT the round again with `scores` (badge number: pips; the lowest goes out), If-Match
    the current version."""
    current = client.get(url)
    seats = Seat.objects.filter(table_id=current.json()["table"]).select_related("player")
    by_number = {seat.player.number: seat.player_id for seat in seats}
    low = min(scores.values())
    body = {
        "blocked": False,
        "reason": reason,
        "scores": [
            {"player": by_number[number], "pips": pips, "went_out": pips == low}
            for number, pips in scores.items()
        ],
    }
    return client.put(url, body, format="json", HTTP_IF_MATCH=current["ETag"], **headers)


def badge_numbers(stage: Stage, table_number: int) -> list[int]:
    table = Table.objects.get(stage=stage, number=table_number)
    return sorted(table.seats.values_list("player__number", flat=True))


def test_a_typo_at_the_last_table_of_an_eleven_three_game_is_corrected_after_it_closed_itself():
    _tournament, organiser, official, games = event("eleven_three", "club-day", 21, domino_set=15)
    game1, game2 = games[0], games[1]
    assert organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 4}).status_code == 200
    play_game(official, game1)
    game1.refresh_from_db()
    game2.refresh_from_db()
    assert game1.status == "closed" and game2.status == "seated"  # it closed itself
    before = tables_of(game2)
    last = badge_numbers(game1, 3)
    url = round_url(game1, 3, game1.rounds)

    # The official cannot: an organiser can, and the answer says so.
    refused = correct(official, url, {n: 5 * i for i, n in enumerate(reversed(last))})
    assert refused.status_code == 409
    assert "only an organiser can correct its results" in refused.json()["detail"]
    es = correct(official, url, {n: 0 for n in last}, HTTP_ACCEPT_LANGUAGE="es")
    assert es.status_code == 409
    assert "solo un organizador puede corregir sus resultados" in es.json()["detail"]
    game2.refresh_from_db()
    assert game2.status == "seated" and tables_of(game2) == before

    # The typo: the best of table 3 in fact scored worst, by far (every round of game 1 the
    # lowest badge went out and the others scored 5, 10, ...).
    typo = {n: 5 * i for i, n in enumerate(last)}
    typo[last[0]] = 500
    typo[last[1]] = 0
    answer = correct(organiser, url, typo)
    assert answer.status_code == 200, answer.json()
    assert answer.json()["status"] == "submitted"
    game1.refresh_from_db()
    game2.refresh_from_db()
    assert game1.status == "seated"
    assert game2.status == "pending" and Table.objects.filter(stage=game2).count() == 0
    assert game1.undone_next_seats  # kept to say who moved

    confirmed = official.post(f"{url}confirm/")
    assert confirmed.status_code == 200
    game1.refresh_from_db()
    game2.refresh_from_db()
    assert game1.status == "closed" and game2.status == "seated"
    after = tables_of(game2)
    assert after != before
    # Table 3's best in the typo moved up to table 2; with 500 pips she is its worst and stays
    # at the bottom table, and the page says she moved.
    assert last[1] in after[1] and last[0] in after[2]
    moved = {move["player"] for move in game2.seating_report["moved"]}
    assert Seat.objects.get(stage=game2, player__number=last[0]).player_id in moved
    row = StandingRow.objects.get(stage=game1, player__number=last[0])
    assert row.total >= 500


def test_a_correction_after_the_qualifying_closed_removes_the_final_it_made_and_seats_it_again():
    _tournament, organiser, official, stages = event("samboree", "sam", 8)
    qualifying, playoff = stages
    services.remove_stage(stage=playoff)  # the close makes the final
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    final = Stage.objects.get(source_stage=qualifying)
    assert final.made_by_close and final.status == "seated"
    winner = badge_numbers(qualifying, 1)[0]  # went out every round
    assert Seat.objects.filter(stage=final, player__number=winner).exists()

    table = badge_numbers(qualifying, 1)
    url = round_url(qualifying, 1, 1)
    corrected = {n: 5 * i for i, n in enumerate(table)}
    corrected[winner], corrected[table[1]] = 400, 0
    answer = correct(organiser, url, corrected)
    assert answer.status_code == 200, answer.json()
    assert not Stage.objects.filter(pk=final.pk).exists()  # the stage the close made is gone
    qualifying.refresh_from_db()
    assert qualifying.status == "seated"
    assert official.post(f"{url}confirm/").status_code == 200
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    final = Stage.objects.get(source_stage=qualifying)
    seated = set(Seat.objects.filter(stage=final).values_list("player__number", flat=True))
    assert winner not in seated and table[1] in seated
    assert any(move["now"] is None for move in final.seating_report["moved"])


def test_reopening_the_final_clears_the_placings_and_closing_it_places_again():
    tournament, organiser, official, (qualifying, playoff) = event("samboree", "sam", 8)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    playoff.refresh_from_db()
    assert playoff.status == "seated"
    play_game(official, playoff)
    assert organiser.post(f"/api/v1/stages/{playoff.pk}/close/").status_code == 202
    assert tournament.placings.count() == 8

    # The qualifying cannot be reopened now: the final has results, and nothing entered goes.
    refused = organiser.post(f"/api/v1/stages/{qualifying.pk}/reopen/")
    assert refused.status_code == 409
    assert "Final" in refused.json()["detail"] or playoff.display_name in refused.json()["detail"]
    assert "results" in refused.json()["detail"]
    url = round_url(qualifying, 1, 1)
    correction = correct(organiser, url, dict.fromkeys(badge_numbers(qualifying, 1), 0))
    assert correction.status_code == 409
    assert "cannot change who advanced" in correction.json()["detail"]
    assert RoundResult.objects.get(table__stage=qualifying, table__number=1, round_no=1).status == (
        "confirmed"
    )
    # An official cannot reopen.
    assert official.post(f"/api/v1/stages/{playoff.pk}/reopen/").status_code == 403

    reopened = organiser.post(f"/api/v1/stages/{playoff.pk}/reopen/")
    assert reopened.status_code == 200, reopened.json()
    assert reopened.json()["status"] == "seated"
    assert tournament.placings.count() == 0
    assert organiser.get("/api/v1/tournaments/sam/placings/").json() == []
    assert organiser.post(f"/api/v1/stages/{playoff.pk}/reopen/").status_code == 200  # harmless
    assert organiser.post(f"/api/v1/stages/{playoff.pk}/close/").status_code == 202
    assert tournament.placings.count() == 8


def test_reopening_the_qualifying_sets_the_preset_playoff_back_to_pending():
    _tournament, organiser, official, (qualifying, playoff) = event("samboree", "sam", 8)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    reopened = organiser.post(f"/api/v1/stages/{qualifying.pk}/reopen/")
    assert reopened.status_code == 200 and reopened.json()["status"] == "seated"
    playoff.refresh_from_db()
    assert playoff.status == "pending" and playoff.source_stage is None
    assert not Table.objects.filter(stage=playoff).exists()
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    playoff.refresh_from_db()
    assert playoff.status == "seated" and playoff.source_stage_id == qualifying.pk


def test_unseat_takes_a_seated_stage_without_results_back_to_pending_and_refuses_after_one():
    _tournament, organiser, official, (qualifying, _playoff) = event("samboree", "sam", 8)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    assert official.post(f"/api/v1/stages/{qualifying.pk}/unseat/").status_code == 403
    unseated = organiser.post(f"/api/v1/stages/{qualifying.pk}/unseat/")
    assert unseated.status_code == 200, unseated.json()
    assert unseated.json()["status"] == "pending"
    assert not Table.objects.filter(stage=qualifying).exists()
    again = organiser.post(f"/api/v1/stages/{qualifying.pk}/unseat/")
    assert again.status_code == 409 and "not seated" in again.json()["detail"]

    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    table = Table.objects.filter(stage=qualifying).first()
    seats = sorted(table.seats.select_related("player"), key=lambda s: s.player.number)
    body = {
        "blocked": False,
        "scores": [
            {"player": s.player_id, "pips": 5 * i, "went_out": i == 0} for i, s in enumerate(seats)
        ],
    }
    assert official.put(f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json").status_code
    refused = organiser.post(f"/api/v1/stages/{qualifying.pk}/unseat/")
    assert refused.status_code == 409
    assert "already has 1 result" in refused.json()["detail"]
    qualifying.refresh_from_db()
    assert qualifying.status == "seated" and Table.objects.filter(stage=qualifying).exists()
    es = organiser.post(f"/api/v1/stages/{qualifying.pk}/unseat/", HTTP_ACCEPT_LANGUAGE="es")
    assert es.status_code == 409 and "ya tiene 1 resultado" in es.json()["detail"]


def closed_qualifying():
    """A Samboree whose qualifying closed and seated its preset playoff."""
    tournament, organiser, official, (qualifying, playoff) = event("samboree", "sam", 8)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    playoff.refresh_from_db()
    assert playoff.status == "seated"
    return tournament, organiser, qualifying, playoff


def in_threads(*calls):
    """Run each call in a thread of its own (its own PostgreSQL connection), together; what each
    returned or raised."""
    outcomes: list = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(index, call):
        try:
            start.wait()
            outcomes[index] = call()
        except Exception as error:  # kept for the test to look at
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return outcomes


def test_two_organisers_reopening_at_once_undo_the_close_once(require_postgres):
    tournament, _organiser, qualifying, playoff = closed_qualifying()
    other = factories.StaffFactory(tournament=tournament, role="organiser").user
    first, second = in_threads(
        lambda: reopen.reopen_stage(stage=qualifying, by=other),
        lambda: reopen.reopen_stage(stage=qualifying, by=other),
    )
    assert isinstance(first, Stage) and isinstance(second, Stage), (first, second)
    qualifying.refresh_from_db()
    playoff.refresh_from_db()
    assert qualifying.status == "seated" and playoff.status == "pending"
    assert not Table.objects.filter(stage=playoff).exists()
    # The seats kept to say who moved are the playoff's, not the empty ones a second undo saw.
    assert qualifying.undone_next_seats


def test_a_reopen_while_the_worker_seats_the_next_level_leaves_no_half_done_seating(
    require_postgres,
):
    """The close committed and its follow-up is in flight when the organiser reopens: one of
    them goes first, whole; the other finds it done and does nothing half."""
    tournament, organiser, qualifying, playoff = closed_qualifying()
    # As if the worker had not run yet: the close's follow-up still owed.
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/reopen/").status_code == 200
    Stage.objects.filter(pk=qualifying.pk).update(status="closed", advance_problem="")
    organiser_user = tournament.staff.get(role="organiser").user

    def slow_reopen():
        with transaction.atomic():
            stage = reopen.reopen_stage(stage=qualifying, by=organiser_user)
            time.sleep(0.5)  # the worker's advance waits for this lock meanwhile
            return stage

    reopened, seated = in_threads(
        slow_reopen, lambda: (time.sleep(0.1), tasks.advance_from_stage(stage_id=qualifying.pk))
    )
    assert isinstance(reopened, Stage), reopened
    assert not isinstance(seated, Exception), seated
    qualifying.refresh_from_db()
    playoff.refresh_from_db()
    assert qualifying.status == "seated"
    assert playoff.status == "pending" and not Table.objects.filter(stage=playoff).exists()


def page(client, path: str, language: str = "en") -> str:
    return " ".join(client.get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode().split())


def test_the_correction_page_after_a_close_says_what_it_undoes_before_asking(client):
    tournament, organiser, official, (qualifying, _playoff) = event("samboree", "sam", 8)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    table = Table.objects.get(stage=qualifying, number=1)
    entry = f"/t/sam/enter/{table.pk}/1/"
    history = f"/t/sam/enter/{table.pk}/1/history/"

    client.force_login(tournament.staff.get(role="organiser").user)
    said = page(client, entry)
    assert "Qualifying is closed: correcting this round reopens it" in said
    assert "loses its seats (1 table)" in said
    assert "printed for Playoff are out of date" in said
    form = said.split('id="round-form"', 1)[1].split("</form>", 1)[0]
    assert form.count('type="submit"') == 1  # one button asks, after the list
    assert "Reopen Qualifying and save the correction" in said
    assert "Correct it (reopens Qualifying)" in page(client, history)
    es = page(client, entry, "es")
    assert "corregir esta ronda la reabre" in es and "ya no valen" in es
    reopen_page = page(client, "/t/sam/manage/stages/1/reopen/")
    assert "Reopen Qualifying?" in reopen_page and "loses its seats" in reopen_page
    stage_page = page(client, "/t/sam/manage/stages/1/")
    assert "Its close seated Playoff" in stage_page and "Reopen this stage" in stage_page

    client.force_login(factories.StaffFactory(tournament=tournament, role="official").user)
    said = page(client, entry)
    assert "only an organiser can correct its results" in said
    assert "Reopen Qualifying and save the correction" not in said
    assert "only an organiser can correct its results" in page(client, history)
    assert "solo un organizador puede corregir" in page(client, history, "es")


def test_the_last_stage_closed_says_it_decided_the_placings_and_leads_to_the_results(client):
    tournament, organiser, official, (qualifying, playoff) = event("samboree", "sam-end", 8)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/seat/", {"seed": 3}).status_code == 200
    play_game(official, qualifying)
    assert organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    play_game(official, playoff)
    assert organiser.post(f"/api/v1/stages/{playoff.pk}/close/").status_code == 202

    client.force_login(tournament.staff.get(role="organiser").user)
    said = page(client, "/t/sam-end/manage/stages/2/")
    assert "This is the last stage: its close decided the placings." in said
    assert 'href="/t/sam-end/manage/results/"' in said
    assert "being done now" not in said  # nothing follows it, so nothing is awaited
    assert "la última fase" in page(client, "/t/sam-end/manage/stages/2/", "es")
