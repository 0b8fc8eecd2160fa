"""A new table when enough late players wait, through the v1 API: POST
/api/v1/stages/{id}/late-tables/ seats them together from a round, nobody else moves; every
refusal says what is wrong and changes nothing; the standings count the table from its first
round, and entry works for it from there."""

import io

import pytest
from pypdf import PdfReader

from scoring import standings
from scoring.models import RoundResult
from scoring.selectors import table_sheet
from scoring.services.closing import missing_results
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.conftest import round_body
from tests.scoring.helpers import play, seat_tables
from tests.tables.api.conftest import late
from tournaments.models import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def full_stage(tournament):
    """Two tables of 4, the stage's largest (tables of 3 to 4, 4 rounds), with rounds 1 and 2
    confirmed at both; three late players wait."""
    stage = factories.StageFactory(tournament=tournament, status="seated")
    tables = seat_tables(stage, [["A1", "A2", "A3", "A4"], ["B1", "B2", "B3", "B4"]])
    for players, pips in zip(tables, ([0, 10, 20, 30], [0, 4, 6, 8]), strict=True):
        play(stage, players, 1, pips)
        play(stage, players, 2, [p + 1 if p else 0 for p in pips])
    waiting = [
        factories.PlayerFactory(tournament=tournament, number=n, name=name)
        for n, name in ((21, "Late Lu"), (22, "Late Mo"), (23, "Late Ny"))
    ]
    return stage, tables, waiting


def late_table(client, stage, players, **body):
    ids = [p if isinstance(p, int) else p.pk for p in players]
    return client.post(
        f"/api/v1/stages/{stage.pk}/late-tables/", {"players": ids, **body}, format="json"
    )


def unchanged(stage, waiting) -> None:
    """Nothing was seated or checked in."""
    assert stage.tables.count() == 2
    assert not Seat.objects.filter(player__in=waiting).exists()
    for player in waiting:
        player.refresh_from_db()
        assert player.status == "registered"
        assert not player.history.filter(history_change_reason="seated_late").exists()


def test_late_players_sit_together_at_a_new_table_and_nobody_moves(as_organiser, full_stage):
    stage, _, waiting = full_stage
    before = as_organiser.get(f"/api/v1/stages/{stage.pk}/tables/").json()
    # Every table is full: one late player is refused without the over-the-maximum choice.
    assert late(as_organiser, stage, waiting[0].pk).status_code == 409
    response = late_table(as_organiser, stage, waiting, from_round=3)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["number"] == 3
    assert [(s["position"], s["player"]["name"], s["from_round"]) for s in body["seats"]] == [
        (1, "Late Lu", 3),
        (2, "Late Mo", 3),
        (3, "Late Ny", 3),
    ]
    after = as_organiser.get(f"/api/v1/stages/{stage.pk}/tables/").json()
    assert after[:2] == before  # nobody else moved
    assert after[2] == body
    for player in waiting:
        player.refresh_from_db()
        assert player.status == "checked_in"
        assert player.history.filter(history_change_reason="seated_late").exists()


def test_the_new_table_starts_by_default_after_what_every_table_reported(as_organiser, full_stage):
    stage, tables, waiting = full_stage
    play(stage, tables[0], 3, [0, 1, 2, 3], status="submitted")  # one table is a round ahead
    response = late_table(as_organiser, stage, waiting)
    assert response.status_code == 201, response.json()
    assert {s["from_round"] for s in response.json()["seats"]} == {3}


@pytest.mark.parametrize(
    ("chosen", "field", "message"),
    [
        (
            lambda w: w[:2],
            "players",
            "A new table of Qualifying seats 3 to 4 players, not 2.",
        ),
        (
            lambda w: [*w, w[0]],
            "players",
            "#21 Late Lu is named twice: name each player once.",
        ),
        (
            lambda w: [*w, 999999],
            "players",
            "No such player in this tournament: 999999.",
        ),
    ],
)
def test_a_wrong_list_of_players_is_refused_and_changes_nothing(
    as_organiser, full_stage, chosen, field, message
):
    stage, _, waiting = full_stage
    response = late_table(as_organiser, stage, chosen(waiting), from_round=3)
    assert response.status_code == 400
    assert response.json() == {field: [message]}
    unchanged(stage, waiting)


def test_more_players_than_a_table_takes_is_refused(as_organiser, tournament, full_stage):
    stage, _, waiting = full_stage
    more = [
        *waiting,
        factories.PlayerFactory(tournament=tournament, number=24),
        factories.PlayerFactory(tournament=tournament, number=25),
    ]
    response = late_table(as_organiser, stage, more, from_round=3)
    assert response.status_code == 400
    assert response.json() == {
        "players": ["A new table of Qualifying seats 3 to 4 players, not 5."]
    }
    unchanged(stage, more)


def test_a_seated_or_withdrawn_player_is_refused_by_name(as_organiser, full_stage):
    stage, tables, waiting = full_stage
    response = late_table(as_organiser, stage, [*waiting[:2], tables[0][1]], from_round=3)
    assert response.status_code == 400
    assert response.json() == {"player": ["A2 already has a seat in Qualifying."]}
    unchanged(stage, waiting)
    waiting[2].status = Player.Status.WITHDRAWN
    waiting[2].save()
    response = late_table(as_organiser, stage, waiting, from_round=3)
    assert response.status_code == 400
    assert response.json() == {"player": ["Late Ny has withdrawn and cannot be seated."]}
    unchanged(stage, waiting[:2])


@pytest.mark.parametrize(
    ("from_round", "message"),
    [
        (
            2,
            "Every table of Qualifying has reported round 2: a new table can join from round 3 "
            "at the earliest.",
        ),
        (5, "Qualifying has rounds 1 to 4."),
    ],
)
def test_a_round_the_new_table_can_no_longer_join_is_refused(
    as_organiser, full_stage, from_round, message
):
    stage, _, waiting = full_stage
    response = late_table(as_organiser, stage, waiting, from_round=from_round)
    assert response.status_code == 400
    assert response.json() == {"from_round": [message]}
    unchanged(stage, waiting)


def test_when_every_table_has_played_every_round_a_new_table_is_409(as_organiser, full_stage):
    stage, tables, waiting = full_stage
    for players in tables:
        for round_no in (3, 4):
            play(stage, players, round_no, [0, 1, 2, 3])
    response = late_table(as_organiser, stage, waiting)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Every table of Qualifying has reported all its rounds: a new table would play none. "
        "Seat them at the next stage."
    )
    unchanged(stage, waiting)


def test_a_pending_stage_or_a_playoff_takes_no_new_table(as_organiser, tournament):
    waiting = [factories.PlayerFactory(tournament=tournament, number=n) for n in (1, 2, 3)]
    pending = factories.StageFactory(tournament=tournament)
    response = late_table(as_organiser, pending, waiting)
    assert response.status_code == 409
    assert "is pending: late players join a seated, open stage" in response.json()["detail"]
    playoff = factories.StageFactory(tournament=tournament, kind="playoff", status="seated")
    response = late_table(as_organiser, playoff, waiting)
    assert response.status_code == 409
    assert "is a playoff" in response.json()["detail"]
    assert not Table.objects.exists()


def test_only_the_organiser_opens_a_new_table(as_official, full_stage):
    stage, _, waiting = full_stage
    assert late_table(as_official, stage, waiting).status_code == 403
    assert late_table(client_for(None), stage, waiting).status_code in (401, 403)
    unchanged(stage, waiting)


def standings_of(stage) -> dict:
    standings.rebuild_standings(stage=stage)
    return client_for(None).get(f"/api/v1/stages/{stage.pk}/standings/").json()


def test_a_table_that_joins_at_round_3_counts_from_round_3(as_organiser, full_stage):
    """Like with like: the late table does not hold everyone at round 0; it holds round 3
    until it reports it, and its players' rounds 1 and 2 count a usual table's high (the mean
    of the tables' highest scores, rounded up) under the default rule, table_high."""
    stage, tables, waiting = full_stage
    assert standings_of(stage)["ranked_through_round"] == 2
    late_table(as_organiser, stage, waiting, from_round=3)
    api = standings_of(stage)
    assert api["ranked_through_round"] == 2  # not 0: the new table has no rounds 1 and 2
    rows = {row["player"]["name"]: row for row in api["rows"]}
    # Rounds 1 and 2: highs 30 and 8, then 31 and 9 -> 19 and 20 a round, counted as missed.
    assert (rows["Late Lu"]["total"], rows["Late Lu"]["rounds_played"]) == (39, 0)
    assert rows["Late Lu"]["rounds_counted"] == 0
    for players in tables:
        play(stage, players, 3, [0, 1, 2, 3])
    assert standings_of(stage)["ranked_through_round"] == 2  # round 3 waits for the new table
    play(stage, waiting, 3, [0, 5, 7])
    api = standings_of(stage)
    assert api["ranked_through_round"] == 3
    rows = {row["player"]["name"]: row for row in api["rows"]}
    assert (rows["Late Mo"]["total"], rows["Late Mo"]["rounds_played"]) == (44, 1)
    assert rows["A4"]["total"] == 30 + 31 + 3


def test_under_the_zero_rule_the_new_tables_missed_rounds_score_nothing(as_organiser, full_stage):
    stage, _, waiting = full_stage
    stage.late_entry_rule = "zero"
    stage.save()
    late_table(as_organiser, stage, waiting, from_round=3)
    api = standings_of(stage)
    assert api["ranked_through_round"] == 2
    rows = {row["player"]["name"]: row for row in api["rows"]}
    assert rows["Late Lu"]["total"] == 0


def test_the_new_tables_sheet_and_card_say_it_plays_from_its_first_round(
    as_organiser, as_official, full_stage
):
    stage, tables, waiting = full_stage
    late_table(as_organiser, stage, waiting, from_round=3)
    for players, pips in ((waiting, [0, 5, 7]), *((t, [0, 1, 2, 3]) for t in tables)):
        play(stage, players, 3, pips)
    table = Table.objects.get(stage=stage, number=3)
    sheet = table_sheet(table, confirmed_only=True)
    rows = {row["player"]["name"]: row for row in standings_of(stage)["rows"]}
    # The sheet's totals count the missed rounds as the standings do (a usual table's high).
    totals = sheet.totals()
    assert {s.player.name: totals[s.player_id] for s in sheet.seats} == {
        name: rows[name]["total"] for name in ("Late Lu", "Late Mo", "Late Ny")
    }
    assert [sorted(r.missed.values()) for r in sheet.rounds[:2]] == [[19] * 3, [20] * 3]
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200
    text = " ".join(PdfReader(io.BytesIO(response.content)).pages[2].extract_text().split())
    assert "Table 3" in text
    assert "Deal 12 tiles to each of the 3 players" in text
    assert "The table plays from round 3." in text
    assert "Late Lu (plays from round 3)" in text


def test_entry_works_for_the_new_table_from_its_first_round(
    as_organiser, as_official, official, client, full_stage
):
    stage, _, waiting = full_stage
    table = Table.objects.get(
        pk=late_table(as_organiser, stage, waiting, from_round=3).json()["id"]
    )
    # Its card's QR code lands on round 3, its first.
    client.force_login(official)
    landing = client.get(f"/t/{stage.tournament.slug}/enter/{table.pk}/")
    assert landing.status_code == 302
    assert landing["Location"].endswith(f"/enter/{table.pk}/3/")
    body = round_body(waiting, pips=(0, 5, 7))
    refused = as_official.put(f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json")
    assert refused.status_code == 400
    assert refused.json()["round_no"] == [
        "Table 3 joined Qualifying at round 3: it has no round 1."
    ]
    assert not RoundResult.objects.filter(table=table).exists()
    entered = as_official.put(f"/api/v1/tables/{table.pk}/rounds/3/", body, format="json")
    assert entered.status_code == 201, entered.json()
    # The close waits for its rounds 3 and 4 only, not for rounds it never had.
    assert [(m["table"], m["round"]) for m in missing_results(stage) if m["table"] == 3] == [
        (3, 3),
        (3, 4),
    ]


def test_a_late_player_joining_the_new_table_plays_from_its_first_round(
    as_organiser, tournament, full_stage
):
    stage, _, waiting = full_stage
    late_table(as_organiser, stage, waiting, from_round=3)
    latecomer = factories.PlayerFactory(tournament=tournament, number=30, name="Later Still")
    response = late(as_organiser, stage, latecomer.pk)
    assert response.status_code == 201, response.json()
    assert (response.json()["table"], response.json()["from_round"]) == (3, 3)
