"""Seating a stage through the v1 API."""

from collections import Counter

import pytest

from scoring.models import RoundResult
from tables.models import Seat
from tests import factories
from tests.tables.api.conftest import add_players, late, seat
from tournaments.models import Player, Stage

pytestmark = pytest.mark.django_db


def test_seat_37_players_makes_seven_tables_of_4_and_three_of_3(as_organiser, tournament, stage):
    add_players(tournament, 37)
    response = seat(as_organiser, stage, seed=7)
    assert response.status_code == 200, response.json()
    tables = response.json()
    assert sorted(len(t["seats"]) for t in tables) == [3, 3, 3, 4, 4, 4, 4, 4, 4, 4]
    assert [t["number"] for t in tables] == list(range(1, 11))
    seated = [s["player"]["number"] for t in tables for s in t["seats"]]
    assert sorted(seated) == list(range(1, 38))
    assert [s["position"] for s in tables[0]["seats"]] == [1, 2, 3, 4]
    assert set(tables[0]["seats"][0]["player"]) == {"id", "number", "name"}
    stage.refresh_from_db()
    assert (stage.status, stage.seed) == (Stage.Status.SEATED, 7)
    assert stage.seating_report["players_seated"] == 37


def numbers(tables: list[dict]) -> list[list[int]]:
    return [[s["player"]["number"] for s in t["seats"]] for t in tables]


def test_same_seed_gives_the_same_seating(as_organiser, tournament, stage):
    add_players(tournament, 20)
    first = seat(as_organiser, stage, seed=42).json()
    again = seat(as_organiser, stage, seed=42).json()
    other = seat(as_organiser, stage, seed=43).json()
    assert numbers(first) == numbers(again)
    assert numbers(first) != numbers(other)


def test_seating_without_a_seed_records_the_one_it_drew(as_organiser, tournament, stage):
    add_players(tournament, 8)
    first = seat(as_organiser, stage).json()
    stage.refresh_from_db()
    assert stage.seed is not None
    replay = seat(as_organiser, stage, seed=stage.seed).json()
    assert numbers(replay) == numbers(first)


def test_households_sit_apart(as_organiser, tournament, stage):
    players = add_players(tournament, 12)
    for couple, (a, b) in enumerate(zip(players[0::2], players[1::2], strict=True)):
        Player.objects.filter(pk__in=[a.pk, b.pk]).update(household=f"couple-{couple}")
    for seed in range(5):
        assert seat(as_organiser, stage, seed=seed).status_code == 200
        per_table = Counter(
            Seat.objects.filter(stage=stage).values_list("table_id", "player__household")
        )
        assert max(per_table.values()) == 1


def test_once_anyone_is_checked_in_only_checked_in_players_are_seated(
    as_organiser, tournament, stage
):
    players = add_players(tournament, 9)
    Player.objects.filter(pk__in=[p.pk for p in players[:6]]).update(status="checked_in")
    Player.objects.filter(pk=players[6].pk).update(status="withdrawn")
    response = seat(as_organiser, stage, seed=1)
    seated = {s["player"]["number"] for t in response.json() for s in t["seats"]}
    assert seated == {1, 2, 3, 4, 5, 6}
    stage.refresh_from_db()
    assert stage.seating_report["left_out"] == [8, 9]
    report = as_organiser.get(f"/api/v1/stages/{stage.pk}/").json()["seating_report"]
    assert report["check_in_used"] is True
    assert report["not_checked_in"] == [players[7].pk, players[8].pk]


def test_while_nobody_has_checked_in_everyone_registered_is_seated_and_the_report_says_so(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)
    tables = seat(as_organiser, stage, seed=3).json()
    assert sum(len(t["seats"]) for t in tables) == 8
    report = as_organiser.get(f"/api/v1/stages/{stage.pk}/").json()["seating_report"]
    assert (report["check_in_used"], report["not_checked_in"]) == (False, [])


def test_withdrawn_players_are_never_seated(as_organiser, tournament, stage):
    players = add_players(tournament, 7)
    Player.objects.filter(pk=players[0].pk).update(status="withdrawn")
    tables = seat(as_organiser, stage, seed=1).json()
    assert 1 not in {s["player"]["number"] for t in tables for s in t["seats"]}
    assert sorted(len(t["seats"]) for t in tables) == [3, 3]


def test_no_balanced_split_is_409_with_the_bounds_that_would_work(as_organiser, tournament, stage):
    add_players(tournament, 5)
    response = seat(as_organiser, stage)
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert "5 players cannot be split into tables of 3 to 4" in detail
    assert "Try tables of 2 to 4 or 3 to 5" in detail
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PENDING
    assert not stage.tables.exists()


def test_one_checked_in_player_is_no_table_and_the_refusal_says_who_was_left_out(
    as_organiser, tournament, stage
):
    players = add_players(tournament, 6)  # registered
    Player.objects.filter(pk=players[0].pk).update(status="checked_in")
    response = seat(as_organiser, stage)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Only 1 player is to be seated: a table needs at least 2. Once anyone has checked in, "
        "only those checked in are seated: 5 players who have not checked in were left out."
    )
    assert not stage.tables.exists()


def test_the_next_stage_seats_everyone_who_played_and_the_late_entry(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)  # registered: nobody checks in at this club
    seat(as_organiser, stage, seed=2)
    latecomer = factories.PlayerFactory(tournament=tournament, number=50, name="Late Lou")
    # Every table is full: the organiser chooses to seat Lou above the maximum.
    assert late(as_organiser, stage, latecomer.pk, allow_over_max=True).status_code == 201
    Stage.objects.filter(pk=stage.pk).update(status="closed")
    second = factories.StageFactory(
        tournament=tournament, order=stage.order + 1, table_size_min=3, table_size_max=5
    )
    response = seat(as_organiser, second, seed=2)
    assert response.status_code == 200, response.json()
    assert sum(len(t["seats"]) for t in response.json()) == 9  # not Lou alone


def test_a_playoff_after_another_stage_is_not_seated_by_hand_with_everyone(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)
    final = factories.StageFactory(
        tournament=tournament, order=stage.order + 1, kind="playoff", name="Final"
    )
    refused = seat(as_organiser, final, seed=1)
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        "Final is a playoff: its tables are made with the players who advance from the stage "
        "before it when that stage closes, not with every player."
    )
    final.refresh_from_db()
    assert final.status == "pending" and not final.tables.exists()


def test_no_players_is_409(as_organiser, stage):
    response = seat(as_organiser, stage)
    assert response.status_code == 409
    assert "no players to seat" in response.json()["detail"]


def test_reseating_a_stage_with_results_needs_force(as_organiser, tournament, stage):
    add_players(tournament, 8)
    tables = seat(as_organiser, stage, seed=1).json()
    factories.RoundResultFactory(table_id=tables[0]["id"], stage=stage)
    refused = seat(as_organiser, stage, seed=2)
    assert refused.status_code == 409
    assert "already has 1 round result." in refused.json()["detail"]
    assert "force=true" in refused.json()["detail"]
    assert RoundResult.objects.filter(stage=stage).count() == 1
    assert [t["id"] for t in as_organiser.get(f"/api/v1/stages/{stage.pk}/tables/").json()] == [
        t["id"] for t in tables
    ]
    forced = seat(as_organiser, stage, seed=2, force=True)
    assert forced.status_code == 200
    assert not RoundResult.objects.filter(stage=stage).exists()
    stage.refresh_from_db()
    assert stage.seating_report["discarded_results"] == 1


def test_closed_stage_cannot_be_reseated(as_organiser, tournament, stage):
    add_players(tournament, 8)
    Stage.objects.filter(pk=stage.pk).update(status="closed")
    response = seat(as_organiser, stage, force=True)
    assert response.status_code == 409
    assert "closed" in response.json()["detail"]


def test_seat_bad_seed_is_400(as_organiser, tournament, stage):
    add_players(tournament, 8)
    response = seat(as_organiser, stage, seed="soon")
    assert response.status_code == 400
    assert "seed" in response.json()
    assert not stage.tables.exists()


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_seating_needs_an_organiser_of_this_tournament(request, tournament, stage, client, status):
    add_players(tournament, 8)
    assert seat(request.getfixturevalue(client), stage).status_code == status
    assert not stage.tables.exists()


def test_second_stage_records_its_repeat_tablemates(as_organiser, tournament, stage):
    add_players(tournament, 16)
    seat(as_organiser, stage, seed=3)
    second = factories.StageFactory(tournament=tournament, name="Round two")
    seat(as_organiser, second, seed=3)
    before = {
        frozenset((a, b))
        for table in stage.tables.all()
        for a in table.seats.values_list("player_id", flat=True)
        for b in table.seats.values_list("player_id", flat=True)
        if a != b
    }
    repeats = {
        frozenset((a, b))
        for table in second.tables.all()
        for a in table.seats.values_list("player_id", flat=True)
        for b in table.seats.values_list("player_id", flat=True)
        if a != b and frozenset((a, b)) in before
    }
    second.refresh_from_db()
    assert second.seating_report["repeat_pairs"] == len(repeats)


def test_tables_are_public(anon, as_organiser, tournament, stage):
    add_players(tournament, 6)
    seat(as_organiser, stage, seed=1)
    tables = anon.get(f"/api/v1/stages/{stage.pk}/tables/").json()
    assert [len(t["seats"]) for t in tables] == [3, 3]
