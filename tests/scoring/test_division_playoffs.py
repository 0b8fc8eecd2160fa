"""Divisions playing their own playoffs: each division's table winners are seated at tables of
their own, level by level, until each division has played its final at one table; a division
with a single player advancing has its champion without a playoff; the placings are decided
when the last division's final closes, with each division's medals."""

import pytest

from scoring.models import Placing
from tables.models import Seat
from tests.scoring.helpers import close, play_stage, playoff, qualifying_with_tables
from tournaments.models import Division, Stage

pytestmark = pytest.mark.django_db(transaction=True)


def divisions_by_table(tournament, stage, names: dict[int, str]) -> dict[str, Division]:
    """Put each table's players in the division named for the table (None: no division)."""
    made = {}
    for order, name in enumerate(sorted(set(names.values()) - {None}), start=1):
        made[name] = Division.objects.create(tournament=tournament, name=name, order=order)
    for seat in Seat.objects.filter(stage=stage).select_related("table", "player"):
        seat.player.division = made.get(names[seat.table.number])
        seat.player.save()
    tournament.division_playoffs = "per_division"
    tournament.save()
    return made


def medallists(tournament) -> dict[str | None, list[str]]:
    won: dict[str | None, list[str]] = {}
    for p in Placing.objects.filter(tournament=tournament, division_place__lte=3).order_by(
        "division_place", "player__number"
    ):
        won.setdefault(p.division.name if p.division else None, []).append(p.player.name)
    return won


def seated(stage) -> list[list[str]]:
    return [
        [s.player.name for s in table.seats.order_by("position").select_related("player")]
        for table in stage.tables.order_by("number")
    ]


def test_each_division_plays_its_own_levels_down_to_its_final(tournament, as_organiser):
    # Eight tables of three: the winners of tables 1-6 are of "A", of 7 and 8 of "B".
    qualifying = qualifying_with_tables(tournament, [3] * 8)
    level_1 = playoff(tournament, size_min=2, size_max=4)
    divisions_by_table(tournament, qualifying, {t: "A" if t <= 6 else "B" for t in range(1, 9)})
    play_stage(qualifying)  # seat 1 of each table goes out every round and wins it
    assert close(as_organiser, qualifying).status_code == 202
    level_1.refresh_from_db()
    tables = seated(level_1)
    # A's six winners at two tables of three, B's two at a table of their own: never mixed.
    a_winners = {f"Q{3 * t + 1}" for t in range(6)}
    assert sorted(len(t) for t in tables) == [2, 3, 3]
    assert all(set(t) <= a_winners or not set(t) & a_winners for t in tables)
    play_stage(level_1)
    assert close(as_organiser, level_1).status_code == 202
    # B played its final there; A's two table winners play on, at a level the worker made.
    level_2 = Stage.objects.get(tournament=tournament, source_stage=level_1)
    (final_a,) = seated(level_2)
    assert set(final_a) <= a_winners and len(final_a) == 2
    assert not Placing.objects.filter(tournament=tournament).exists()
    play_stage(level_2)
    assert close(as_organiser, level_2).status_code == 202
    won = medallists(tournament)
    b_final = next(t for t in tables if not set(t) & a_winners)
    assert won["B"][:2] == b_final  # seat 1 won B's final, seat 2 second
    assert won["A"][:2] == final_a
    # A's bronze: the seconds of its two tables at level 1, tied on their totals, share it.
    a_tables = [t for t in tables if set(t) & a_winners]
    assert sorted(won["A"][2:]) == sorted(t[1] for t in a_tables)
    assert Stage.objects.final_of(tournament) == level_2


def test_a_division_with_one_player_advancing_has_its_champion_without_a_playoff(
    tournament, as_organiser
):
    qualifying = qualifying_with_tables(tournament, [3, 3, 3, 3])
    level_1 = playoff(tournament, size_min=2, size_max=4)
    divisions_by_table(tournament, qualifying, {1: "A", 2: "A", 3: "A", 4: "B"})
    play_stage(qualifying)
    assert close(as_organiser, qualifying).status_code == 202
    level_1.refresh_from_db()
    assert seated(level_1) == [["Q1", "Q4", "Q7"]]  # A's three winners only
    play_stage(level_1)
    assert close(as_organiser, level_1).status_code == 202
    won = medallists(tournament)
    assert won["A"] == ["Q1", "Q4", "Q7"]
    # B's only table winner is its champion, then its others by their qualifying rank.
    assert won["B"] == ["Q10", "Q11", "Q12"]


def test_no_division_with_two_players_advancing_places_everyone_at_the_qualifying(
    tournament, as_organiser, anon
):
    qualifying = qualifying_with_tables(tournament, [3, 3])
    playoff(tournament, size_min=2, size_max=4)
    divisions_by_table(tournament, qualifying, {1: "A", 2: "B"})
    play_stage(qualifying)
    assert close(as_organiser, qualifying).status_code == 202
    assert Stage.objects.get(tournament=tournament, order=2).status == "pending"
    assert medallists(tournament) == {"A": ["Q1", "Q2", "Q3"], "B": ["Q4", "Q5", "Q6"]}
    assert Stage.objects.final_of(tournament) == qualifying
    assert anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()[0]["medal"]


def test_a_shared_playoff_mixes_the_divisions_and_places_them_apart(tournament, as_organiser):
    qualifying = qualifying_with_tables(tournament, [3, 3, 3, 3])
    level_1 = playoff(tournament, size_min=2, size_max=4)
    divisions_by_table(tournament, qualifying, {1: "A", 2: "A", 3: "A", 4: "B"})
    tournament.division_playoffs = "shared"
    tournament.save()
    play_stage(qualifying)
    assert close(as_organiser, qualifying).status_code == 202
    level_1.refresh_from_db()
    (final,) = seated(level_1)  # one final, mixed
    assert sorted(final) == ["Q1", "Q10", "Q4", "Q7"]
    play_stage(level_1)
    assert close(as_organiser, level_1).status_code == 202
    assert medallists(tournament)["B"][0] == "Q10"


def test_a_division_whose_players_do_not_fit_the_tables_is_named_by_its_own_count(
    tournament, as_organiser
):
    """Division A's five table winners cannot sit at tables of exactly four (B's two can sit
    at one): the refusal counts A's five, not all seven, and says why they are apart."""
    qualifying = qualifying_with_tables(tournament, [3] * 7)
    playoff(tournament, size_min=4, size_max=4)
    divisions_by_table(tournament, qualifying, {t: "A" if t <= 5 else "B" for t in range(1, 8)})
    play_stage(qualifying)
    refused = close(as_organiser, qualifying)
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "5 players cannot be split into tables of 4 to 4 players" in detail
    assert "7 players" not in detail
    assert "Each division's players are seated at tables of their own." in detail
    qualifying.refresh_from_db()
    assert qualifying.status == "seated"  # nothing changed
