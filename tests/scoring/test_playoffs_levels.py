"""Playoffs level by level: table winners and wildcards going on, the ties that hold a close,
the final, and the officials' settings of a level once seated."""

import csv
import io

import pytest

from scoring.models import Placing
from tables.models import Seat, Table
from tests import factories
from tests.scoring.helpers import close, play, play_stage, playoff, qualifying_with_tables
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


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
    before = client.get(f"/en/t/{tournament.slug}/").content.decode()  # kept for this snapshot
    assert ": final result<" not in before
    close(as_organiser, final)
    winner, second, third = (
        s.player for s in Seat.objects.filter(stage=final).order_by("position")
    )  # seat 1 won every round
    for path in (f"/en/t/{tournament.slug}/", f"/en/t/{tournament.slug}/screen/"):
        page = client.get(path).content.decode()
        assert f"{tournament.name}: final result<" in page
        assert f"<strong>{winner.name}</strong>" in page
        # In the podium: a name as short as "Q4" can also turn up in the page's random CSRF
        # token, in the header. Each place names its medal, in words.
        podium = page.split('class="podium"', 1)[1].split("</section>", 1)[0]
        assert [podium.index(medal) for medal in ("Gold", "Silver", "Bronze")] == sorted(
            podium.index(medal) for medal in ("Gold", "Silver", "Bronze")
        )
        assert podium.index("Gold") < podium.index(winner.name) < podium.index("Silver")
        assert podium.index(winner.name) < podium.index(second.name) < podium.index(third.name)
    qualifying = client.get(f"/en/t/{tournament.slug}/?stage=1").content.decode()
    assert ": final result<" not in qualifying  # the podium is the final's page's


def test_the_qualifying_standings_stay_one_tap_away_during_the_playoffs(
    as_organiser, client, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 3)
    play_stage(stage)
    home = f"/en/t/{tournament.slug}/"
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
    Stage.objects.filter(pk=final.pk).update(name="Grand final", name_key="")  # typed over
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
    page = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert f"{tournament.name}: final result<" in page
    for third in thirds:
        assert third.player.name in page.split(": final result<", 1)[1].split("</section>", 1)[0]


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
    text = b"".join(export.streaming_content).decode("utf-8-sig")
    lines = list(csv.DictReader(io.StringIO(text)))
    in_final = [line for line in lines if line["stage"] == final.name]
    assert len(in_final) == 2 and all(line["advances"] == "no" for line in in_final)
    # The officials' draw that placed them is said beside them.
    assert in_final[0]["tie_break"].endswith("by the officials' decision: drawing lots")
    qualifying = [line for line in lines if line["stage"] == stage.name]
    assert sum(line["advances"] == "yes" for line in qualifying) == 2  # the two table winners


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
