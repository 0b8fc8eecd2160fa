"""Where a tie-break decided a place, the standings say how: in the API (facts, and a text in the
request's language), on the public page, in standings.csv; and a tie only an official can break
is shown as waiting for that decision."""

import csv
import io

import pytest

from tables.models import Table
from tests.scoring.helpers import play, seat_tables
from tests.scoring.standings.conftest import OTHERS, play_beside

pytestmark = pytest.mark.django_db(transaction=True)


def body(client, stage, language="en") -> dict:
    return client.get(f"/api/v1/stages/{stage.pk}/standings/", HTTP_ACCEPT_LANGUAGE=language).json()


def by_name(rows) -> dict[str, dict]:
    return {row["player"]["name"]: row for row in rows}


def test_rounds_won_explained_on_both_rows_in_the_api(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 10, 30])
    play(stage, table, 2, [0, 10, 30])
    play(stage, table, 3, [20, 0, 30])
    # Ann 20 with 2 rounds won, Bob 20 with 1: Ann ahead on rounds won.
    rows = by_name(body(anon, stage)["rows"])
    (ann,) = rows["Ann"]["tiebreaks"]
    assert ann == {
        "scope": "overall",
        "side": "ahead",
        "players": [rows["Bob"]["player"]["id"]],
        "rule": "rounds_won",
        "mine": 2,
        "theirs": 1,
        "text": "ahead of Bob on rounds won, 2-1",
    }
    assert [t["text"] for t in rows["Bob"]["tiebreaks"]] == ["behind Ann on rounds won, 1-2"]
    assert rows["Cy"]["tiebreaks"] == []  # alone on 90


def test_countback_explained_with_the_round_and_scores_in_both_languages(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 10, 30])
    play(stage, table, 2, [14, 0, 30])
    play(stage, table, 3, [10, 14, 0])
    play(stage, table, 4, [8, 8, 30])
    # Ann 32 and Bob 32, one round won each; round 4 level (8), round 3 decides: 10 against 14.
    rows = by_name(body(anon, stage)["rows"])
    assert [t["text"] for t in rows["Ann"]["tiebreaks"]] == [
        "ahead of Bob on countback: 10 against 14 in round 3"
    ]
    spanish = by_name(body(anon, stage, "es")["rows"])
    (text,) = [t["text"] for t in spanish["Bob"]["tiebreaks"]]
    assert "Ann" in text and "14" in text and "10" in text and "3" in text
    assert "behind" not in text and "countback" not in text  # said in Spanish


def test_a_tie_waits_publicly_then_the_officials_decision_is_explained(anon, as_official, stage):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    ann, bob, _ = table
    for round_no in (1, 2, 3, 4):
        play(stage, table, round_no, [0, 0, 10], blocked=True)
        play_beside(stage, other, round_no)
    # Ann and Bob level on everything, for the place that advances: it waits for the officials,
    # and the public page says so on both rows.
    page = anon.get(f"/en/t/{stage.tournament.slug}/").content.decode()
    awaiting = "tie: awaiting the officials' decision"
    assert page.count(f'<span class="badge awaiting">{awaiting}</span>') == 2
    response = as_official.post(
        f"/api/v1/stages/{stage.pk}/tiebreaks/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [bob.pk, ann.pk],
            "method": "tiebreak_round",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    rows = by_name(body(anon, stage)["rows"])
    assert [t["text"] for t in rows["Bob"]["tiebreaks"]] == [
        "ahead of Ann by the officials' decision: a tie-break round"
    ]
    assert rows["Ann"]["tiebreaks"][0]["method"] == "tiebreak_round"
    page = anon.get(f"/en/t/{stage.tournament.slug}/").content.decode()
    assert awaiting not in page
    assert "ahead of Ann by the officials&#x27; decision: a tie-break round" in page
    assert "behind Bob by the officials&#x27; decision: a tie-break round" in page


def test_standings_csv_says_how_a_tie_break_placed_a_player(as_organiser, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 10, 30])
    play(stage, table, 2, [0, 10, 30])
    play(stage, table, 3, [20, 0, 30])
    response = as_organiser.get(
        f"/api/v1/tournaments/{stage.tournament.slug}/exports/standings.csv",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    content = b"".join(response.streaming_content).decode("utf-8-sig")
    lines = list(csv.DictReader(io.StringIO(content)))
    said = {line["name"]: line["tie_break"] for line in lines}
    # The file's values are English whatever the reader's language, like "yes" and "no".
    assert said == {
        "Ann": "ahead of Bob on rounds won, 2-1",
        "Bob": "behind Ann on rounds won, 1-2",
        "Cy": "",
    }


def test_a_tie_break_shown_on_the_public_page_in_spanish(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 10, 30])
    play(stage, table, 2, [0, 10, 30])
    play(stage, table, 3, [20, 0, 30])
    english = anon.get(f"/en/t/{stage.tournament.slug}/").content.decode()
    assert '<span class="tiebreak">ahead of Bob on rounds won, 2-1</span>' in english
    spanish = anon.get(
        f"/es/t/{stage.tournament.slug}/", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "ahead of Bob" not in spanish
    assert spanish.count('<span class="tiebreak">') == 2


def test_player_page_says_what_counts_would_advance_and_the_tie_break(anon, stage):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    play(stage, table, 1, [0, 10, 30])
    play(stage, table, 2, [10, 0, 30])
    play_beside(stage, other, 1)
    # Round 2 is in at table 1 only: the ranking counts round 1; Ann's round 2 is provisional.
    page = anon.get(f"/en/t/{stage.tournament.slug}/players/{table[0].number}/").content.decode()
    assert "Ranked on round 1, which every table has reported." in page
    assert '<td class="num provisional">10 <span class="muted">(provisional)</span>' in page
    # The total under the rounds says what it counts: round 1's 0, not the two rounds' 10.
    assert '<th scope="row">Total after round 1</th><td class="num"><strong>0</strong>' in page
    assert "✓ would advance" in page and "Who advances is decided when" in page
    play_beside(stage, other, 2)
    # Both rounds count now: Ann and Bob on 10, a round won each; countback, round 2: 10 to 0.
    page = anon.get(f"/en/t/{stage.tournament.slug}/players/{table[0].number}/").content.decode()
    assert "provisional" not in page
    assert '<p class="tiebreak">behind Bob on countback: 10 against 0 in round 2</p>' in page
