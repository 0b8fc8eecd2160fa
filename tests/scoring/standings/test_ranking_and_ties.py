"""Stage standings: confirmed results only, ranked by total, the tie-breaks and the officials'
decisions."""

import pytest

from scoring import standings
from scoring.models import TiebreakDecision
from tables.models import Table
from tests import factories
from tests.scoring.helpers import play, seat_tables
from tests.scoring.standings.conftest import OTHERS, at_table, play_beside, rows

# Committed transactions, so that the rebuild sent on commit runs (inline: no broker in tests).
pytestmark = pytest.mark.django_db(transaction=True)


def test_standings_rank_by_total_lowest_first_with_shared_places(anon, stage):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy", "Di"], OTHERS])
    with_results = [(1, [0, 10, 20, 30]), (2, [20, 0, 10, 30])]
    for round_no, pips in with_results:
        play(stage, table, round_no, pips)
        play_beside(stage, other, round_no)
    body = anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()
    assert (body["results_counted"], body["results_expected"]) == (4, 8)
    assert body["computed_at"] is not None
    got = [(r["rank"], r["player"]["name"], r["total"], r["rounds_won"]) for r in body["rows"]]
    # Ann 20 and Bob 10... Bob 10, Ann 20, Cy 30, Di 60, then the other table: 140, 160, 180
    assert got == [
        (1, "Bob", 10, 1),
        (2, "Ann", 20, 1),
        (3, "Cy", 30, 0),
        (4, "Di", 60, 0),
        (5, "Xu", 140, 0),
        (6, "Yo", 160, 0),
        (7, "Zed", 180, 0),
    ]
    assert body["rows"][0]["scores"] == {"1": 10, "2": 0}
    winners = [(r["player"]["name"], r["table_rank"]) for r in body["rows"] if r["advances"]]
    assert winners == [("Bob", 1), ("Xu", 1)]  # each table's winner


def test_only_confirmed_results_count(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 10, 20])
    play(stage, table, 2, [50, 0, 0], status="submitted")
    body = anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()
    assert body["results_counted"] == 1
    assert [r["total"] for r in body["rows"]] == [0, 10, 20]


def test_ties_go_to_rounds_won_then_countback_then_share_the_place(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy", "Di"]])
    play(stage, table, 1, [0, 5, 10, 15])
    play(stage, table, 2, [15, 0, 10, 5])
    play(stage, table, 3, [5, 15, 0, 0 + 10])
    # totals: Ann 20 (1 won), Bob 20 (1 won), Cy 20 (1 won), Di 30
    # countback from round 3: Ann 5 < Cy 0? Cy 0 best, then Ann 5, then Bob 15
    got = [(r["rank"], r["player"]["name"]) for r in rows(anon, stage)]
    assert got == [(1, "Cy"), (2, "Ann"), (3, "Bob"), (4, "Di")]


def test_an_unbreakable_tie_shares_the_place_and_is_flagged_when_it_decides_advancement(
    anon, stage
):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    play(stage, table, 1, [0, 0, 10], blocked=True)  # blocked round: nobody went out
    assert anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()["flags"] == []  # mid-stage
    for round_no in (2, 3, 4):
        play(stage, table, round_no, [0, 0, 10], blocked=True)
    for round_no in (1, 2, 3, 4):
        play_beside(stage, other, round_no)
    body = anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()
    assert [(r["rank"], r["tied"], r["advances"]) for r in at_table(body["rows"])] == [
        (1, True, False),
        (1, True, False),
        (3, False, False),
    ]
    (flag,) = body["flags"]
    assert flag["table"] == 1 and sorted(flag["names"]) == ["Ann", "Bob"]
    assert "tied for place 1, which decides who advances" in flag["message"]


def test_an_official_decides_a_flagged_tie_on_their_own_pages(anon, client, stage):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    for round_no in (1, 2, 3, 4):
        play(stage, table, round_no, [0, 0, 10], blocked=True)
        play_beside(stage, other, round_no)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    client.force_login(official)
    enter = f"/t/{stage.tournament.slug}/enter/"
    page = client.get(enter).content.decode()
    assert "tied for place 1, which decides who advances" in page  # flagged where they work
    ann, bob, _cy = table
    done = client.post(
        f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/tiebreak/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [bob.pk, ann.pk],
            "method": "tiebreak_round",
            "next": enter,
        },
    )
    assert done.status_code == 302 and done["Location"] == enter  # back to their page
    rows = anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()["rows"]
    assert [r["player"]["name"] for r in rows][:2] == ["Bob", "Ann"]
    assert "which decides who advances" not in client.get(enter).content.decode()
    elsewhere = client.post(
        f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/tiebreak/",
        {"order": [bob.pk, ann.pk], "method": "draw", "next": "https://evil.example/"},
    )
    assert "evil" not in elsewhere["Location"]  # only this tournament's pages


def test_a_tiebreak_decision_breaks_the_tie_and_the_standings_honour_it(anon, as_official, stage):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    ann, bob, _ = table
    play(stage, table, 1, [0, 0, 10], blocked=True)
    play_beside(stage, other, 1)
    response = as_official.post(
        f"/api/v1/stages/{stage.pk}/tiebreaks/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [bob.pk, ann.pk],
            "method": "tiebreak_round",
            "note": "Bob won the tie-break round",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()
    assert [(r["rank"], r["player"]["name"], r["advances"]) for r in at_table(body["rows"])] == [
        (1, "Bob", True),
        (2, "Ann", False),
        (3, "Cy", False),
    ]
    assert body["flags"] == []


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"order": ["A", "B"], "method": "draw"}, "order", "valid integer"),
        ({"order": [1], "method": "draw"}, "order", "at least 2"),
        ({"method": "coin"}, "method", "not a valid choice"),
    ],
)
def test_tiebreak_bad_input_is_400(as_official, stage, body, field, message):
    seat_tables(stage, [["Ann", "Bob", "Cy"]])
    response = as_official.post(
        f"/api/v1/stages/{stage.pk}/tiebreaks/", {"order": [1, 2], **body}, format="json"
    )
    assert response.status_code == 400
    assert message in str(response.json()[field])
    assert not TiebreakDecision.objects.exists()


def test_tiebreak_for_players_who_are_not_tied_is_refused(as_official, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 5, 10])
    response = as_official.post(
        f"/api/v1/stages/{stage.pk}/tiebreaks/",
        {"order": [table[1].pk, table[0].pk], "method": "draw"},
        format="json",
    )
    assert response.status_code == 400
    assert "not tied" in response.json()["order"][0]
    assert not TiebreakDecision.objects.exists()


@pytest.mark.parametrize(("client", "status"), [("anon", 401), ("as_other_organiser", 403)])
def test_tiebreaks_need_staff_of_this_tournament(request, stage, client, status):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    response = request.getfixturevalue(client).post(
        f"/api/v1/stages/{stage.pk}/tiebreaks/",
        {"order": [table[0].pk, table[1].pk], "method": "draw"},
        format="json",
    )
    assert response.status_code == status


def test_tiebreak_rules_are_configurable_per_tournament(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 10, 20])
    play(stage, table, 2, [10, 0, 20])
    # Ann and Bob: 10 each, one round won each; countback on round 2 puts Bob first
    assert [r["player"]["name"] for r in rows(anon, stage)][:2] == ["Bob", "Ann"]
    stage.tournament.tiebreak_rules = ["rounds_won"]
    stage.tournament.save()
    standings.request_rebuild(stage)
    first_two = rows(anon, stage)[:2]
    assert [(r["rank"], r["tied"]) for r in first_two] == [(1, True), (1, True)]
