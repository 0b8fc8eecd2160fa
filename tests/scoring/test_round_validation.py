"""Every validation rule of docs/DESIGN.md on the API path: a clear 400 and nothing stored."""

import pytest

from scoring.models import RoundResult
from tables.models import Seat
from tests import factories
from tests.scoring.conftest import round_body

pytestmark = pytest.mark.django_db


def put(client, table, body, round_no=1):
    return client.put(f"/api/v1/tables/{table.pk}/rounds/{round_no}/", body, format="json")


def rejected(client, table, body, round_no=1) -> dict:
    response = put(client, table, body, round_no)
    assert response.status_code == 400, response.json()
    assert not RoundResult.objects.exists()
    return response.json()


def test_two_players_went_out(as_official, table, players):
    body = round_body(players, pips=(0, 0, 30, 7))
    body["scores"][1]["went_out"] = True
    errors = rejected(as_official, table, body)
    assert errors["scores"] == [
        "Two players are marked as went out: only one player can go out in a round"
    ]


def test_nobody_went_out_and_not_blocked(as_official, table, players):
    body = round_body(players, pips=(3, 12, 30, 7))
    body["scores"][0]["went_out"] = False
    errors = rejected(as_official, table, body)
    assert "Nobody is marked as went out" in errors["non_field_errors"][0]


def test_blocked_round_with_someone_went_out(as_official, table, players):
    body = round_body(players, blocked=True)
    body["scores"][0]["went_out"] = True
    errors = rejected(as_official, table, body)
    assert errors["blocked"] == ["The round was blocked, so nobody can be marked as went out"]


def test_blocked_round_where_everyone_scores_is_accepted(as_official, table, players):
    response = put(as_official, table, round_body(players, pips=(0, 12, 30, 7), blocked=True))
    assert response.status_code == 201
    assert response.json()["blocked"] is True
    assert not any(s["went_out"] for s in response.json()["scores"])


def test_went_out_with_pips(as_official, table, players):
    errors = rejected(as_official, table, round_body(players, pips=(5, 12, 30, 7)))
    assert errors[f"scores.{players[0].pk}"] == ["A player who went out scores 0"]


@pytest.mark.parametrize("pips", [-1, 2.5, "twelve", True])
def test_pips_must_be_whole_numbers_zero_or_more(as_official, table, players, pips):
    errors = rejected(as_official, table, round_body(players, pips=(0, pips, 30, 7)))
    assert errors[f"scores.{players[1].pk}"] == ["Enter a whole number of pips, 0 or more"]


@pytest.mark.parametrize("pips", [None, "", "  "])
def test_a_blank_score_is_said_to_be_missing(as_official, table, players, pips):
    errors = rejected(as_official, table, round_body(players, pips=(0, pips, 30, 7)))
    assert errors[f"scores.{players[1].pk}"] == ["Enter this player's pips (0 if they went out)"]


def test_total_over_what_the_set_holds(as_official, table, players):
    errors = rejected(as_official, table, round_body(players, pips=(0, 400, 400, 300)))
    assert errors["scores"] == [
        "Total 1,100 is more than a double-12 set holds in a round with the 12 engine (1,068)"
    ]


def test_one_score_over_what_the_set_holds(as_official, table, players):
    errors = rejected(as_official, table, round_body(players, pips=(0, 1100, 3, 7)))
    assert "Bob's 1,100 is more than a double-12 set holds" in errors[f"scores.{players[1].pk}"][0]


def test_missing_unknown_and_duplicate_players(as_official, table, players):
    stranger = factories.PlayerFactory(tournament=table.stage.tournament, number=50)
    body = round_body(players)
    body["scores"][3] = {"player": stranger.pk, "pips": 4, "went_out": False}
    body["scores"].append({"player": players[1].pk, "pips": 12, "went_out": False})
    errors = rejected(as_official, table, body)
    assert errors[f"scores.{players[3].pk}"] == ["No score for Di"]
    assert errors[f"scores.{stranger.pk}"] == [f"Player {stranger.pk} is not seated at this table"]
    assert errors[f"scores.{players[1].pk}"] == ["Bob is listed twice"]


@pytest.mark.parametrize("round_no", [0, 5])
def test_round_outside_the_stage(as_official, table, players, round_no):
    errors = rejected(as_official, table, round_body(players), round_no=round_no)
    assert errors["round_no"] == ["Qualifying has rounds 1 to 4."]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"blocked": False}, "scores"),
        ({"scores": "all zero"}, "scores"),
        ({"scores": [{"pips": 3}]}, "scores"),
        ({"blocked": "maybe", "scores": []}, "blocked"),
        ({"reason": 7, "scores": []}, "reason"),
    ],
)
def test_malformed_bodies(as_official, table, players, body, field):
    errors = rejected(as_official, table, body)
    assert field in errors


def test_a_body_that_is_not_an_object(as_official, table):
    response = as_official.put(f"/api/v1/tables/{table.pk}/rounds/1/", [1, 2], format="json")
    assert response.status_code == 400


def test_late_player_is_expected_only_from_the_round_they_joined(as_official, table, players):
    late = factories.PlayerFactory(tournament=table.stage.tournament, number=9, name="Eve")
    factories.SeatFactory(table=table, player=late, position=5, from_round=2)
    assert put(as_official, table, round_body(players), round_no=1).status_code == 201
    response = put(as_official, table, round_body(players), round_no=2)
    assert response.status_code == 400
    assert response.json()[f"scores.{late.pk}"] == ["No score for Eve"]


def test_withdrawn_player_is_not_expected_after_they_left(as_official, table, players):
    Seat.objects.filter(player=players[3]).update(to_round=1)
    three = round_body(players[:3], pips=(0, 12, 30))
    response = put(as_official, table, three, round_no=2)
    assert response.status_code == 201, response.json()
