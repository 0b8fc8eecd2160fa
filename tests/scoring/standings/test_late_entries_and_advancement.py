"""Stage standings: late entries, withdrawals, who advances, and totals carried forward."""

import pytest

from scoring import standings
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import play, seat_tables
from tests.scoring.standings.conftest import OTHERS, play_beside, rows
from tournaments.models import Player

# Committed transactions, so that the rebuild sent on commit runs (inline: no broker in tests).
pytestmark = pytest.mark.django_db(transaction=True)


def test_late_entry_scores_the_highest_at_the_table_for_missed_rounds(anon, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 25, 40])
    late = factories.PlayerFactory(tournament=stage.tournament, number=9, name="Eve")
    factories.SeatFactory(
        table=Table.objects.get(stage=stage), player=late, position=4, from_round=2
    )
    play(stage, [*table, late], 2, [0, 10, 10, 5])
    eve = next(r for r in rows(anon, stage) if r["player"]["name"] == "Eve")
    assert eve["scores"] == {"1": 40, "2": 5}
    assert eve["total"] == 45 and eve["note"] == "joined in round 2"


def test_a_late_entry_is_in_the_standings_as_soon_as_seated(anon, as_organiser, stage):
    """Seating a late player changes the standings (a new line, the missed rounds counted),
    without waiting for the next result."""
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    play(stage, table, 1, [0, 25, 40])
    play_beside(stage, other, 1)
    assert len(rows(anon, stage)) == 6
    eve = factories.PlayerFactory(tournament=stage.tournament, number=9, name="Eve")
    seated = as_organiser.post(
        f"/api/v1/stages/{stage.pk}/late-players/", {"player": eve.pk}, format="json"
    )
    assert seated.status_code == 201, seated.json()
    line = next(r for r in rows(anon, stage) if r["player"]["name"] == "Eve")
    assert (line["total"], line["rounds_played"], line["note"]) == (40, 0, "joined in round 2")


def test_a_late_entrys_total_is_the_same_on_every_page_and_the_missed_round_is_marked(
    anon, official, stage
):
    """The standings count Eve's missed round 1 as the table's highest (40): her table's sheet,
    the tablet's totals and her own page say the same total, and mark round 1 as not played."""
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 25, 40])
    late = factories.PlayerFactory(tournament=stage.tournament, number=9, name="Eve")
    sheet_table = Table.objects.get(stage=stage)
    factories.SeatFactory(table=sheet_table, player=late, position=4, from_round=2)
    play(stage, [*table, late], 2, [0, 10, 10, 5])
    eve = next(r for r in rows(anon, stage) if r["player"]["name"] == "Eve")
    assert (eve["total"], eve["rounds_played"]) == (45, 1)  # 40 counted + 5 played
    slug = stage.tournament.slug

    def eves_column(page: str) -> list[str]:
        """Eve's cells (the 4th player's) in the page's round table, in order, as text."""
        body = page.split("<tbody>", 1)[1].split("</tfoot>", 1)[0]
        cells = []
        for line in body.split("<tr>")[1:]:
            tds = [td.split("</td>", 1)[0] for td in line.split('<td class="num">')[1:]]
            text = tds[3] if len(tds) > 3 else ""
            cells.append(" ".join(text.replace("<strong>", "").replace("</strong>", "").split()))
        return cells

    public = anon.get(f"/en/t/{slug}/tables/{stage.order}/1/").content.decode()
    assert eves_column(public)[:2] == [
        '40 <span class="badge missed">not played</span>',
        "5",
    ]
    assert eves_column(public)[-1] == "45"  # the total row
    assert "It counts as the highest score at the table in that round" in public
    tablet = client_for(None)
    tablet.force_login(official)
    entry = tablet.get(f"/t/{slug}/enter/{sheet_table.pk}/3/").content.decode()
    eve_row = entry.split(f'id="total-{late.pk}"', 1)[1].split("</p>", 1)[0]
    assert "Total before: <strong>45</strong>" in eve_row
    page = anon.get(f"/en/t/{slug}/players/9/").content.decode()
    assert "Joined in round 2." in page
    assert '40 <span class="badge missed">not played</span>' in page
    assert "<strong>45</strong>" in page


@pytest.mark.parametrize(
    ("rule", "total", "advances"), [("zero", 0, True), ("no_advance", 0, False)]
)
def test_late_entry_rules_zero_and_no_advance(anon, stage, rule, total, advances):
    stage.late_entry_rule = rule
    stage.save()
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    play(stage, table, 1, [0, 25, 40])
    play_beside(stage, other, 1)
    late = factories.PlayerFactory(tournament=stage.tournament, number=9, name="Eve")
    factories.SeatFactory(
        table=Table.objects.get(stage=stage, number=1), player=late, position=4, from_round=2
    )
    play(stage, [*table, late], 2, [30, 10, 10, 0])
    play_beside(stage, other, 2)  # the ranking counts the rounds every table has reported
    eve = next(r for r in rows(anon, stage) if r["player"]["name"] == "Eve")
    assert (eve["total"], eve["rank"], eve["advances"]) == (total, 1, advances)
    if not advances:  # the place goes to the best eligible player at the table
        bob = next(r for r in rows(anon, stage) if r["player"]["name"] == "Ann")
        assert bob["advances"] is True


def test_withdrawn_player_keeps_scores_but_does_not_advance(anon, stage):
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    play(stage, table, 1, [0, 25, 40])
    play_beside(stage, other, 1)
    Player.objects.filter(pk=table[0].pk).update(status="withdrawn")
    standings.request_rebuild(stage)
    got = {r["player"]["name"]: r for r in rows(anon, stage)}
    assert got["Ann"]["total"] == 0 and got["Ann"]["advances"] is False
    assert got["Ann"]["note"] == "withdrawn"
    assert got["Bob"]["advances"] is True
    # The standings rank the active players (docs/DESIGN.md): Ann's 0 takes nobody's place.
    assert [(r["player"]["name"], r["rank"], r["table_rank"]) for r in rows(anon, stage)] == [
        ("Bob", 1, 1),
        ("Cy", 2, 2),
        ("Xu", 3, 1),
        ("Yo", 4, 2),
        ("Zed", 5, 3),
        ("Ann", 6, 3),
    ]


def test_advance_per_table_and_wildcards(anon, stage):
    stage.advance_per_table, stage.wildcards = 2, 1
    stage.save()
    tables = seat_tables(stage, [["A1", "A2", "A3"], ["B1", "B2", "B3"]])
    play(stage, tables[0], 1, [0, 10, 20])
    play(stage, tables[1], 1, [0, 30, 50])
    advancing = {r["player"]["name"] for r in rows(anon, stage) if r["advances"]}
    assert advancing == {"A1", "A2", "B1", "B2", "A3"}  # A3 (20) is the best of the rest


def test_carry_forward_carries_a_late_entrys_filled_in_rounds(anon, tournament, stage):
    ((ann, bob, cy),) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, [ann, bob, cy], 1, [0, 25, 40])
    late = factories.PlayerFactory(tournament=tournament, number=9, name="Lou")
    table = Seat.objects.get(player=ann).table
    factories.SeatFactory(table=table, player=late, position=4, from_round=2)
    play(stage, [ann, bob, cy, late], 2, [0, 10, 10, 20])
    standings.request_rebuild(stage)
    first = {r["player"]["name"]: r["total"] for r in rows(anon, stage)}
    assert first["Lou"] == 40 + 20  # round 1 filled with the table's highest (table_high)
    second = factories.StageFactory(
        tournament=tournament, order=stage.order + 1, rounds=2, status="seated", carry_forward=True
    )
    new_table = factories.TableFactory(stage=second, number=1)
    for position, player in enumerate([ann, bob, cy, late], start=1):
        factories.SeatFactory(table=new_table, player=player, position=position)
    play(second, [ann, bob, cy, late], 1, [0, 5, 5, 5])
    carried = {r["player"]["name"]: r["carried"] for r in rows(anon, second)}
    assert carried == {"Ann": 0, "Bob": 35, "Cy": 50, "Lou": 60}  # Lou's filled round too


def test_carry_forward_adds_earlier_qualifying_totals(anon, tournament, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 25, 40])
    second = factories.StageFactory(
        tournament=tournament, order=stage.order + 1, rounds=2, status="seated", carry_forward=True
    )
    new_table = factories.TableFactory(stage=second, number=1)
    for position, player in enumerate(table, start=1):
        factories.SeatFactory(table=new_table, player=player, position=position)
    play(second, table, 1, [30, 0, 0 + 5])
    got = {r["player"]["name"]: (r["total"], r["carried"]) for r in rows(anon, second)}
    assert got == {"Ann": (30, 0), "Bob": (25, 25), "Cy": (45, 40)}
    overall = anon.get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    assert overall["stage"] == second.pk
