"""A stage driven round by round, tables reporting at their own pace: at every point nobody ranks
above another because of rounds not yet played, on the API, the public page and standings.csv,
and the page says what the ranking counts; with every round in, the ranking is the final one."""

import csv
import io
import itertools

import pytest

from scoring import standings
from tests.conftest import client_for
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.django_db


@pytest.fixture
def stage(tournament):
    from tests import factories

    return factories.StageFactory(tournament=tournament, rounds=3, status="seated")


def look(stage, organiser) -> tuple[dict, dict, str]:
    """The standings as the API, standings.csv and the public page give them."""
    standings.rebuild_standings(stage=stage)
    api = client_for(None).get(f"/api/v1/stages/{stage.pk}/standings/").json()
    slug = stage.tournament.slug
    export = client_for(organiser).get(f"/api/v1/tournaments/{slug}/exports/standings.csv")
    text = b"".join(export.streaming_content).decode("utf-8-sig")
    lines = csv.DictReader(io.StringIO(text))
    exported = {int(r["number"]): (int(r["rank"]), int(r["total"])) for r in lines}
    page = client_for(None).get(f"/en/t/{slug}/").content.decode()
    return api, exported, page


def like_with_like(api: dict, exported: dict, through: int) -> None:
    rows = api["rows"]
    assert api["ranked_through_round"] == through
    assert {row["rounds_counted"] for row in rows} == {through}  # everyone on the same rounds
    for row in rows:  # and each line says every round its player played, counted or not
        assert row["rounds_played"] == len(row["scores"])
    for better, worse in itertools.pairwise(rows):
        assert better["total"] <= worse["total"]  # and the rank follows what it counts
    assert exported == {r["player"]["number"]: (r["rank"], r["total"]) for r in rows}


def test_tables_reporting_at_their_own_pace_are_ranked_like_with_like(stage, organiser):
    ones, twos = seat_tables(stage, [["A1", "A2", "A3"], ["B1", "B2", "B3"]])

    page = client_for(None).get(f"/en/t/{stage.tournament.slug}/").content.decode()
    assert "+ the rounds not counted yet" not in page  # nothing played: no legend for it
    play(stage, ones, 1, [0, 30, 40])  # table 2 has reported nothing yet
    api, exported, page = look(stage, organiser)
    like_with_like(api, exported, 0)
    assert {row["rank"] for row in api["rows"]} == {1}  # nobody is ahead of anybody yet
    assert "Not every table has reported round 1 yet" in page
    assert 'class="num round-col provisional">30' in page  # what table 1 has played, in grey
    a2 = next(row for row in api["rows"] if row["player"]["name"] == "A2")
    assert (a2["rounds_played"], a2["rounds_counted"], a2["total"]) == (1, 0, 0)
    # A phone shows no round columns: the total says it counts nothing yet, and what it leaves.
    assert "Total: no round counted yet" in page
    assert '<strong>0</strong> <span class="provisional-sum">+30' in page
    assert "+ the rounds not counted yet" in page

    play(stage, twos, 1, [0, 5, 6])
    api, exported, page = look(stage, organiser)
    like_with_like(api, exported, 1)
    assert "Ranked on round 1, which every table has reported." in page

    play(stage, ones, 2, [0, 50, 60])  # table 1 is a round ahead: it waits for table 2
    api, exported, page = look(stage, organiser)
    like_with_like(api, exported, 1)
    a2 = next(row for row in api["rows"] if row["player"]["name"] == "A2")
    assert (a2["total"], a2["scores"]) == (30, {"1": 30, "2": 50})  # round 2 shown, not counted
    assert (a2["rounds_played"], a2["rounds_counted"]) == (2, 1)
    assert "Total after round 1" in page
    assert '<strong>30</strong> <span class="provisional-sum">+50' in page
    assert "+ the rounds not counted yet: they count as soon as every table has them." in page
    assert 'class="num round-col provisional">50' in page
    # Mid-stage a ✓ says who would advance as things stand, and the legend says so.
    assert "✓ would advance</span>" in page and "Who advances is decided when" in page

    play(stage, twos, 2, [0, 1, 2])
    play(stage, twos, 3, [0, 1, 2])
    play(stage, ones, 3, [0, 1, 2])
    api, exported, page = look(stage, organiser)
    like_with_like(api, exported, 3)
    assert "which every table has reported" not in page and "provisional" not in page
    assert "The rounds in grey" not in page
    assert "provisional-sum" not in page and "Total after" not in page
    assert "✓ advances</span>" in page and "would advance" not in page
    totals = {row["player"]["name"]: row["total"] for row in api["rows"]}
    assert totals == {"A1": 0, "A2": 81, "A3": 102, "B1": 0, "B2": 7, "B3": 10}


def test_a_tie_at_a_table_that_has_finished_is_asked_about_while_others_play_on(stage):
    ones, twos = seat_tables(stage, [["A1", "A2", "A3"], ["B1", "B2", "B3"]])
    for round_no, pips in ((1, [5, 5, 0]), (2, [0, 0, 9]), (3, [5, 5, 30])):
        play(stage, ones, round_no, pips)  # A1 and A2 level on 10 after every round
    play(stage, twos, 1, [0, 1, 2])  # table 2 has played one round
    meta = standings.rebuild_standings(stage=stage)
    assert meta.ranked_through == 1
    # Ranked on round 1, A3 leads table 1; its own three rounds tie A1 and A2 for its one place.
    assert [(flag["table"], flag["names"]) for flag in meta.flags] == [(1, ["A1", "A2"])]
