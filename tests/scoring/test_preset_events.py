"""Each event preset run end to end through the API (issue #24): the tournament created with its
stages, players imported or added, the game seated, every round entered and confirmed at every
table, time called where the preset limits it, the table winners' game seated by the inline
worker, and the medals checked against the test's own sums of the pips it entered.

Every round follows one pattern: at a table, seat k (by position) goes out in rounds k, k + n,
k + 2n ... and the others score twice their badge number plus the round."""

import csv
import io
import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from pypdf import PdfReader

from tests import factories
from tests.conftest import client_for
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

MEDALS = ("gold", "silver", "bronze")
NOON = datetime(2026, 6, 13, 12, 0, tzinfo=UTC)

# The deals as each event's page states them (tiles per player by players at a table), written
# out here rather than read from tournaments.presets.
CHAMPIONSHIP_DEAL = {2: 16, 3: 15, 4: 14, 5: 12, 6: 11, 7: 10, 8: 9}
RV_CLUB_DEAL = {2: 16, 3: 15, 4: 14, 5: 13, 6: 12, 7: 11, 8: 10}

Ledger = dict[int, dict[int, int]]  # player id -> {round: pips entered}


# ---- the API steps ------------------------------------------------------------------------------


def organiser_and_official(preset: str, slug: str, **fields):
    """An organiser creates the tournament from the preset with its stages (POST); an official
    joins its staff. Returns both clients and the stages as the API lists them."""
    account = factories.OrganiserAccountFactory()
    organiser = client_for(account)
    body = {"name": slug.title(), "slug": slug, "preset": preset, "with_stages": True, **fields}
    made = organiser.post("/api/v1/tournaments/", body, format="json")
    assert made.status_code == 201, made.json()
    tournament = Tournament.objects.get(slug=slug)
    official = client_for(factories.StaffFactory(tournament=tournament, role="official").user)
    stages = organiser.get(f"/api/v1/tournaments/{slug}/stages/").json()
    return organiser, official, stages


def import_csv(client, slug: str, text: str):
    upload = SimpleUploadedFile("players.csv", text.encode())
    return client.post(
        f"/api/v1/tournaments/{slug}/players/import/", {"file": upload}, format="multipart"
    )


def add_players(client, slug: str, count: int) -> None:
    text = "number,name\n" + "".join(f"{n},Player {n:02d}\n" for n in range(1, count + 1))
    assert import_csv(client, slug, text).json() == {"created": count}


def seat(client, stage_id: int, seed: int) -> list[dict]:
    response = client.post(f"/api/v1/stages/{stage_id}/seat/", {"seed": seed}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def tables_of(client, stage_id: int) -> list[dict]:
    return client.get(f"/api/v1/stages/{stage_id}/tables/").json()


def play_round(client, table: dict, round_no: int, ledger: Ledger) -> None:
    """Enter the round (PUT) and confirm it with its ETag; the pips go into the ledger."""
    seats = sorted(table["seats"], key=lambda s: s["position"])
    out = seats[(round_no - 1) % len(seats)]
    scores = [
        {
            "player": s["player"]["id"],
            "pips": 0 if s is out else 2 * s["player"]["number"] + round_no,
            "went_out": s is out,
        }
        for s in seats
    ]
    url = f"/api/v1/tables/{table['id']}/rounds/{round_no}/"
    put = client.put(
        url,
        {"blocked": False, "scores": scores},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"t{table['id']}-r{round_no}",
    )
    assert put.status_code == 201, put.json()
    assert put.json()["warnings"] == []  # ordinary hands: nothing to check twice
    confirm = client.post(f"{url}confirm/", HTTP_IF_MATCH=put["ETag"])
    assert confirm.status_code == 200, confirm.json()
    for score in scores:
        ledger.setdefault(score["player"], {})[round_no] = score["pips"]


def play_rounds(client, tables: list[dict], rounds, ledger: Ledger) -> None:
    for table in tables:
        for round_no in rounds:
            play_round(client, table, round_no, ledger)


def close(client, stage_id: int) -> dict:
    response = client.post(f"/api/v1/stages/{stage_id}/close/")
    assert response.status_code == 202, response.json()
    return response.json()


def placings(client, slug: str) -> dict[int, dict]:
    body = client.get(f"/api/v1/tournaments/{slug}/placings/").json()
    return {p["player"]["id"]: p for p in body}


def deals_on_cards(client, stage_id: int) -> dict[int, tuple[int, int]]:
    """table number -> (tiles, players): the deal each table's card prints."""
    response = client.get(f"/api/v1/stages/{stage_id}/cards.pdf")
    assert response.status_code == 200
    said = {}
    for page in PdfReader(io.BytesIO(response.content)).pages:
        text = " ".join(page.extract_text().split())
        deal = re.search(r"Deal (\d+) tiles to each of the (\d+) players", text)
        if deal:
            said[int(re.search(r"Table (\d+)", text)[1])] = (int(deal[1]), int(deal[2]))
    return said


def deal_listed(client, preset: str) -> dict[int, int]:
    (offer,) = next(p for p in client.get("/api/v1/presets/").json() if p["key"] == preset)[
        "by_set"
    ]
    return {d["players"]: d["tiles"] for d in offer["deal"]}


# ---- the test's own sums ------------------------------------------------------------------------


def totals(ledger: Ledger) -> dict[int, int]:
    return {player: sum(rounds.values()) for player, rounds in ledger.items()}


def no_ties(total: dict[int, int]) -> dict[int, int]:
    """The pattern's totals differ (the test's choice of pips: no tie to decide)."""
    assert len(set(total.values())) == len(total), total
    return total


def table_winners(tables: list[dict], ledger: Ledger) -> set[int]:
    """The lowest total at each table, over the rounds the table played."""
    total = totals(ledger)
    winners = set()
    for table in tables:
        ids = [s["player"]["id"] for s in table["seats"]]
        no_ties({i: total[i] for i in ids})
        winners.add(min(ids, key=total.__getitem__))
    return winners


def expected_podium(players: list[int], total: dict[int, int]) -> dict[int, str]:
    """player id -> medal for the three lowest totals among `players`."""
    ranked = sorted(players, key=total.__getitem__)
    return dict(zip(ranked, MEDALS, strict=False))


def assert_medals(placed: dict[int, dict], podium: dict[int, str]) -> None:
    assert {p: placing["medal"] for p, placing in placed.items() if placing["medal"]} == podium


# ---- senior_games: age categories, one game placed by total ------------------------------------

# (badge, name, age, birth year): ages for some, birth years for others; the tournament starts
# on 13 June 2026, so a birth year counts the age reached in 2026 (1957: 69, not yet 70).
SENIORS = [
    (1, "Ada", "61", ""), (2, "Bea", "", "1960"), (3, "Cal", "68", ""), (4, "Dot", "", "1957"),
    (5, "Eli", "64", ""), (6, "Flo", "", "1963"), (7, "Gil", "60", ""),
    (8, "Hal", "70", ""), (9, "Ida", "", "1950"), (10, "Jo", "79", ""), (11, "Kit", "", "1953"),
    (12, "Lu", "72", ""), (13, "Max", "", "1948"), (14, "Ned", "75", ""),
    (15, "Oda", "80", ""), (16, "Pat", "", "1941"), (17, "Quin", "91", ""),
    (18, "Ray", "", "1946"), (19, "Sal", "84", ""), (20, "Tom", "", "1939"),
    (21, "Uma", "", ""),  # no age given: in no division
]  # fmt: skip
AGE_GROUPS = [("60-69", 60, 69), ("70-79", 70, 79), ("80+", 80, 200)]


def division_of(age: str, birth_year: str) -> str | None:
    if not age and not birth_year:
        return None
    years = int(age) if age else 2026 - int(birth_year)
    return next(name for name, low, high in AGE_GROUPS if low <= years <= high)


def test_senior_games_place_each_age_category_by_its_lowest_totals():
    organiser, official, stages = organiser_and_official(
        "senior_games", "silver-games", domino_set=12, starts_on="2026-06-13"
    )
    slug = "silver-games"
    (game,) = stages
    assert (game["rounds"], game["table_size_min"], game["table_size_max"]) == (13, 3, 4)
    divisions = organiser.get(f"/api/v1/tournaments/{slug}/divisions/").json()
    assert [d["name"] for d in divisions] == ["50-59", "60-69", "70-79", "80+"]

    # A file with an age no category takes and a category the event lacks: 400, nothing created.
    bad = "number,name,age,division\n1,Ada,61,\n2,Bea,45,\n3,Cal,,90+\n4,Dot,77,\n"
    refused = import_csv(organiser, slug, bad)
    assert refused.status_code == 400
    rows = {row["line"]: row["message"] for row in refused.json()["rows"]}
    assert sorted(rows) == [3, 4]
    assert rows[3].startswith("No division takes the age 45: 50-59 (50-59), 60-69 (60-69)")
    assert rows[4].startswith("The division '90+' is not one of this tournament's")
    assert [m[:8] for m in refused.json()["file"]] == ["Line 3: ", "Line 4: "]
    assert refused.json()["detail"] == "2 lines have errors; no player was imported."
    assert organiser.get(f"/api/v1/tournaments/{slug}/players/").json() == []

    text = "number,name,age,birth_year\n" + "".join(
        f"{n},{name},{age},{year}\n" for n, name, age, year in SENIORS
    )
    imported = import_csv(organiser, slug, text)
    assert imported.status_code == 201 and imported.json() == {"created": 21}
    listed = organiser.get(f"/api/v1/tournaments/{slug}/players/").json()
    division = {p["id"]: p["division"] for p in listed}
    by_number = {p["number"]: p["id"] for p in listed}
    expected_division = {by_number[n]: division_of(age, year) for n, _, age, year in SENIORS}
    assert division == expected_division

    tables = seat(organiser, game["id"], seed=21)
    assert sorted(len(t["seats"]) for t in tables) == [3, 3, 3, 4, 4, 4]
    assert set(deals_on_cards(official, game["id"]).values()) == {(15, 3), (15, 4)}
    ledger: Ledger = {}
    play_rounds(official, tables, range(1, 14), ledger)
    assert close(organiser, game["id"])["detail"] == "Game is closed. The placings are decided now."

    # Worked out from the pips entered: each category's players by total, the three lowest medal.
    total = no_ties(totals(ledger))
    placed = placings(official, slug)
    assert set(placed) == set(total)
    podium: dict[int, str] = {}
    for group in {*expected_division.values()}:
        members = sorted((p for p, d in expected_division.items() if d == group), key=total.get)
        podium |= expected_podium(members, total)
        for place, player in enumerate(members, start=1):
            assert (placed[player]["division"], placed[player]["division_place"]) == (group, place)
    assert_medals(placed, podium)
    # The player of no division is a group of one (scoring.rules.medals): first of their own.
    assert placed[by_number[21]]["medal"] == "gold" and placed[by_number[21]]["division"] is None
    overall = sorted(total, key=total.get)
    assert [placed[p]["place"] for p in overall] == list(range(1, 22))

    export = organiser.get(f"/api/v1/tournaments/{slug}/exports/placings.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode("utf-8-sig"))))
    assert len(rows) == 21
    for row in rows:
        player = by_number[int(row["number"])]
        assert row["medal"] == (podium.get(player) or ""), row
        assert row["division"] == (expected_division[player] or "")
        assert int(row["total"]) == total[player]


# ---- senior_olympics: two games of 60 minutes, medals from the final ---------------------------


def clock_url(slug: str, stage_id: int) -> str:
    return f"/api/v1/tournaments/{slug}/stages/{stage_id}/clock/"


def start_clock(organiser, slug: str, stage_id: int, traveller) -> str:
    """Start the stage's clock and let 45 minutes of its hour pass; its address."""
    url = clock_url(slug, stage_id)
    started = organiser.post(url, {"action": "start"}, format="json")
    assert started.status_code == 200 and started.json()["remaining_seconds"] == 3600
    traveller.shift(timedelta(minutes=45))
    assert organiser.get(url).json()["remaining_seconds"] == 15 * 60
    return url


def call_time(organiser, url: str, traveller) -> dict:
    """Let the hour run out (the clock says so and waits for the call), then call time."""
    traveller.shift(timedelta(minutes=16))
    now = organiser.get(url).json()
    assert (now["remaining_seconds"], now["time_up"], now["called"]) == (0, True, False)
    called = organiser.post(url, {"action": "call"}, format="json")
    assert called.status_code == 200, called.json()
    return called.json()


def refused_after_the_last(official, table: dict, round_no: int, stage_id: int) -> None:
    """A round after the table's last is a 409, and nothing is stored or recounted."""
    before = official.get(f"/api/v1/stages/{stage_id}/standings/").json()
    seats = sorted(table["seats"], key=lambda s: s["position"])
    body = {
        "blocked": False,
        "scores": [
            {"player": s["player"]["id"], "pips": 0 if i == 0 else 9, "went_out": i == 0}
            for i, s in enumerate(seats)
        ],
    }
    url = f"/api/v1/tables/{table['id']}/rounds/{round_no}/"
    response = official.put(url, body, format="json")
    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"Time was called after round {round_no - 1} at table {table['number']}: "
        f"round {round_no} is not played."
    )
    assert official.get(url).status_code == 404
    after = official.get(f"/api/v1/stages/{stage_id}/standings/").json()
    assert after["rows"] == before["rows"] and after["results_counted"] == before["results_counted"]


def test_senior_olympics_call_time_in_both_games_and_medal_the_final(client):
    slug = "senior-olympics"
    organiser, official, stages = organiser_and_official("senior_olympics", slug)
    first, final = stages
    assert (first["time_limit_minutes"], final["time_limit_minutes"]) == (60, 60)
    add_players(organiser, slug, 20)
    tables = sorted(seat(organiser, first["id"], seed=3), key=lambda t: t["number"])
    assert [len(t["seats"]) for t in tables] == [5, 5, 5, 5]
    assert set(deals_on_cards(official, first["id"]).values()) == {(15, 5)}
    ledger: Ledger = {}
    with time_machine.travel(NOON, tick=False) as traveller:
        url = start_clock(organiser, slug, first["id"], traveller)
        # Tables 1 and 2 have played two rounds at the call, tables 3 and 4 one.
        play_rounds(official, tables[:2], (1, 2), ledger)
        play_rounds(official, tables[2:], (1,), ledger)
        called = call_time(organiser, url, traveller)
        assert called["rounds_at_call"] == {"1": 3, "2": 3, "3": 2, "4": 2}
        # The round in play is finished at each table; none after it.
        play_rounds(official, tables[:2], (3,), ledger)
        play_rounds(official, tables[2:], (2,), ledger)
        refused_after_the_last(official, tables[0], 4, first["id"])
        refused_after_the_last(official, tables[3], 3, first["id"])

        standings = official.get(f"/api/v1/stages/{first['id']}/standings/").json()
        assert (standings["results_counted"], standings["results_expected"]) == (10, 10)
        assert standings["ranked_through_round"] == 2  # the rounds every table played
        # Everyone is ranked on those two rounds; the scores show every round a table played.
        assert {row["rounds_counted"] for row in standings["rows"]} == {2}
        assert all(row["rounds_played"] == len(row["scores"]) for row in standings["rows"])
        shown = {row["player"]["id"]: row["scores"] for row in standings["rows"]}
        assert shown == {p: {str(n): v for n, v in rounds.items()} for p, rounds in ledger.items()}
        through_two = {p: rounds[1] + rounds[2] for p, rounds in ledger.items()}
        assert {row["player"]["id"]: row["total"] for row in standings["rows"]} == through_two
        winners = table_winners(tables, ledger)
        assert {r["player"]["id"] for r in standings["rows"] if r["advances"]} == winners
        page = " ".join(client.get(f"/en/t/{slug}/").content.decode().split())
        assert "Time called: ranked on rounds 1 to 2, which every table played." in page
        assert "Table 3: time called after round 2." in page
        assert "Table 1: time called after round 3." in page

        close(organiser, first["id"])  # the worker seats the table winners' final
        (final_table,) = tables_of(official, final["id"])
        assert {s["player"]["id"] for s in final_table["seats"]} == winners
        assert deals_on_cards(official, final["id"]) == {1: (15, 4)}
        final_ledger: Ledger = {}
        url = start_clock(organiser, slug, final["id"], traveller)
        play_round(official, final_table, 1, final_ledger)
        assert call_time(organiser, url, traveller)["rounds_at_call"] == {"1": 2}
        play_round(official, final_table, 2, final_ledger)
        refused_after_the_last(official, final_table, 3, final["id"])
        close(organiser, final["id"])

    total = no_ties(totals(final_ledger))
    placed = placings(official, slug)
    assert len(placed) == 20
    assert_medals(placed, expected_podium(list(total), total))
    finalists = sorted(total, key=total.get)
    assert [placed[p]["place"] for p in finalists] == [1, 2, 3, 4]
    assert {placed[p]["went_out_in"] for p in finalists} == {"Playoff"}
    results = " ".join(client.get(f"/en/t/{slug}/results/").content.decode().split())
    assert "Time called: ranked on rounds 1 to 2, which every table played." in results


# ---- championship_day and rv_club: a game, then the table winners' game ------------------------


@pytest.mark.parametrize(
    ("preset", "sizes", "rounds", "deal"),
    [
        # A community's day: six rounds at tables of 4 to 6, the lowest total at each table
        # plays the championship game of six rounds (four players: 14 tiles each).
        ("championship_day", [5, 5, 6, 6], 6, CHAMPIONSHIP_DEAL),
        # An RV club: a full game, then its table winners' playoff (five players: 13 tiles).
        ("rv_club", [5, 6, 6, 6, 6], 13, RV_CLUB_DEAL),
    ],
)
def test_a_game_then_the_table_winners_game_whose_three_lowest_totals_medal(
    preset, sizes, rounds, deal
):
    slug = preset.replace("_", "-")
    organiser, official, (game, final) = organiser_and_official(preset, slug)
    assert (game["rounds"], final["rounds"]) == (rounds, rounds)
    assert (game["table_size_min"], game["table_size_max"]) == (4, 6)
    assert deal_listed(official, preset) == deal
    players = sum(sizes)
    add_players(organiser, slug, players)
    tables = seat(organiser, game["id"], seed=players)
    assert sorted(len(t["seats"]) for t in tables) == sizes
    # Each table's card deals for its own size.
    cards = deals_on_cards(official, game["id"])
    assert cards == {t["number"]: (deal[len(t["seats"])], len(t["seats"])) for t in tables}
    ledger: Ledger = {}
    play_rounds(official, tables, range(1, rounds + 1), ledger)
    winners = table_winners(tables, ledger)
    standings = official.get(f"/api/v1/stages/{game['id']}/standings/").json()
    assert {r["player"]["id"] for r in standings["rows"] if r["advances"]} == winners
    close(organiser, game["id"])  # the worker seats the table winners' game

    (final_table,) = tables_of(official, final["id"])
    assert {s["player"]["id"] for s in final_table["seats"]} == winners
    assert deals_on_cards(official, final["id"]) == {1: (deal[len(sizes)], len(sizes))}
    final_ledger: Ledger = {}
    play_rounds(official, [final_table], range(1, rounds + 1), final_ledger)
    assert close(organiser, final["id"])["detail"].endswith("The placings are decided now.")

    total = no_ties(totals(final_ledger))
    placed = placings(official, slug)
    assert set(placed) == set(ledger)  # everyone placed
    assert_medals(placed, expected_podium(list(total), total))
    finalists = sorted(total, key=total.get)
    assert [placed[p]["place"] for p in finalists] == list(range(1, len(sizes) + 1))
    assert all(placed[p]["division"] is None for p in placed)
