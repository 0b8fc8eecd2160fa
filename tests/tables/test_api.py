"""Seating a stage, late players, withdrawals and table cards through the v1 API."""

import io
import unicodedata
from collections import Counter

import pypdfium2 as pdfium
import pytest
import zxingcpp
from pypdf import PdfReader

from scoring.models import RoundResult
from tables.models import Seat, Table
from tests import factories
from tournaments.models import Player, Stage
from tournaments.presets import get_preset

pytestmark = pytest.mark.django_db


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(tournament=tournament, table_size_min=3, table_size_max=4)


def add_players(tournament, count: int, **fields) -> list[Player]:
    return [
        factories.PlayerFactory(tournament=tournament, number=n, **fields)
        for n in range(1, count + 1)
    ]


def seat(client, stage, **body):
    return client.post(f"/api/v1/stages/{stage.pk}/seat/", body, format="json")


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
    assert late(as_organiser, stage, latecomer.pk).status_code == 201  # checks Lou in
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
        "Final is a playoff: it is seated with the advancers of the stage before it when that "
        "stage closes, not with every player."
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
    assert "already has 1 round result(s)" in refused.json()["detail"]
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


# ---- late players and withdrawals ---------------------------------------------------------------


def late(client, stage, player_id):
    return client.post(
        f"/api/v1/stages/{stage.pk}/late-players/", {"player": player_id}, format="json"
    )


def test_late_player_joins_the_smallest_table_and_nobody_moves(as_organiser, tournament, stage):
    add_players(tournament, 10)  # tables of 4, 3, 3
    tables = seat(as_organiser, stage, seed=5).json()
    three = next(t for t in tables if len(t["seats"]) == 3)
    factories.RoundResultFactory(table_id=three["id"], stage=stage, round_no=1)
    factories.RoundResultFactory(table_id=three["id"], stage=stage, round_no=2)
    latecomer = factories.PlayerFactory(tournament=tournament, number=99, name="Late Larry")
    response = late(as_organiser, stage, latecomer.pk)
    assert response.status_code == 201, response.json()
    assert response.json()["table"] == three["number"]
    assert response.json()["position"] == 4
    assert response.json()["from_round"] == 3  # two rounds were already reported there
    after = as_organiser.get(f"/api/v1/stages/{stage.pk}/tables/").json()
    for old, new in zip(tables, after, strict=True):
        assert new["seats"][: len(old["seats"])] == [
            {**s, "from_round": 1, "to_round": None} for s in old["seats"]
        ]
    latecomer.refresh_from_db()
    assert latecomer.status == "checked_in"


def test_late_player_skips_a_table_that_has_played_every_round(as_organiser, tournament, stage):
    add_players(tournament, 10)  # tables of 4, 3, 3
    tables = seat(as_organiser, stage, seed=5).json()
    small = [t for t in tables if len(t["seats"]) == 3]
    for round_no in range(1, stage.rounds + 1):  # the first small table has finished
        factories.RoundResultFactory(table_id=small[0]["id"], stage=stage, round_no=round_no)
    latecomer = factories.PlayerFactory(tournament=tournament, number=99, name="Late Larry")
    response = late(as_organiser, stage, latecomer.pk)
    assert response.status_code == 201, response.json()
    assert response.json()["table"] == small[1]["number"]  # the other small one
    assert response.json()["from_round"] == 1


def test_late_player_when_every_table_has_played_every_round_is_409(
    as_organiser, tournament, stage
):
    add_players(tournament, 6)
    for table in seat(as_organiser, stage, seed=5).json():
        for round_no in range(1, stage.rounds + 1):
            factories.RoundResultFactory(table_id=table["id"], stage=stage, round_no=round_no)
    latecomer = factories.PlayerFactory(tournament=tournament, number=99, name="Late Larry")
    response = late(as_organiser, stage, latecomer.pk)
    assert response.status_code == 409
    assert "has played all its rounds: a late player would play none" in response.json()["detail"]
    assert not Seat.objects.filter(player=latecomer).exists()
    latecomer.refresh_from_db()
    assert latecomer.status == "registered"


def test_late_player_when_every_table_is_full_goes_within_the_preset(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)  # two tables of 4, the stage's largest
    seat(as_organiser, stage, seed=5)
    latecomer = factories.PlayerFactory(tournament=tournament, number=50)
    response = late(as_organiser, stage, latecomer.pk)
    assert response.status_code == 201
    assert response.json()["table"] == 1
    assert response.json()["position"] == 5  # samboree deals to up to 10 at a table


@pytest.mark.parametrize("problem", ["seated", "withdrawn", "elsewhere", "unknown"])
def test_late_player_bad_player_is_400(as_organiser, tournament, stage, problem):
    players = add_players(tournament, 6)
    seat(as_organiser, stage, seed=5)
    player_id = {
        "seated": players[0].pk,
        "withdrawn": factories.PlayerFactory(
            tournament=tournament, number=60, status="withdrawn"
        ).pk,
        "elsewhere": factories.PlayerFactory(number=61).pk,
        "unknown": 999999,
    }[problem]
    response = late(as_organiser, stage, player_id)
    assert response.status_code == 400
    assert Seat.objects.filter(stage=stage).count() == 6


def test_late_player_before_seating_is_409(as_organiser, tournament, stage):
    player = factories.PlayerFactory(tournament=tournament)
    response = late(as_organiser, stage, player.pk)
    assert response.status_code == 409
    assert "seat the stage first" in response.json()["detail"]


def test_late_player_into_a_playoff_is_409_and_seats_nobody(as_organiser, tournament):
    # A playoff seats the players who advanced to it: a player knocked out (or never seated)
    # cannot be put at the final table as a late entry.
    final = factories.StageFactory(
        tournament=tournament, order=2, kind="playoff", status="seated", name="Final"
    )
    table = factories.TableFactory(stage=final, number=1)
    for n in (1, 2):
        factories.SeatFactory(
            table=table, player=factories.PlayerFactory(tournament=tournament, number=n)
        )
    knocked_out = factories.PlayerFactory(tournament=tournament, number=3)
    response = late(as_organiser, final, knocked_out.pk)
    assert response.status_code == 409
    assert (
        "Final is a playoff: it seats only the players who advanced to it"
        in (response.json()["detail"])
    )
    assert Seat.objects.filter(stage=final).count() == 2


def test_withdrawn_player_keeps_history_and_plays_no_further_round(as_organiser, tournament, stage):
    players = add_players(tournament, 6)
    tables = seat(as_organiser, stage, seed=5).json()
    seat_of = Seat.objects.get(stage=stage, player=players[0])
    factories.RoundResultFactory(table=seat_of.table, stage=stage, round_no=1)
    url = f"/api/v1/tournaments/{tournament.slug}/players/{players[0].pk}/withdraw/"
    response = as_organiser.post(url)
    assert response.status_code == 200
    assert response.json()["status"] == "withdrawn"
    assert as_organiser.post(url).status_code == 200  # twice is harmless
    seat_of.refresh_from_db()
    assert (seat_of.from_round, seat_of.to_round) == (1, 1)
    assert not seat_of.plays_round(2)
    after = as_organiser.get(f"/api/v1/stages/{stage.pk}/tables/").json()
    assert len([s for t in after for s in t["seats"]]) == len(
        [s for t in tables for s in t["seats"]]
    )


def withdrawn_after_round_one(client, tournament, stage) -> tuple[Player, Seat, str]:
    """A seated player withdrawn once their table has reported round 1: the player, their seat,
    and the API address of the player."""
    players = add_players(tournament, 6)
    seat(client, stage, seed=5)
    seat_of = Seat.objects.get(stage=stage, player=players[0])
    factories.RoundResultFactory(table=seat_of.table, stage=stage, round_no=1)
    base = f"/api/v1/tournaments/{tournament.slug}/players/{players[0].pk}"
    assert client.post(f"{base}/withdraw/").status_code == 200
    return players[0], seat_of, base


def test_a_player_withdrawn_by_mistake_is_reinstated_in_their_seat(as_organiser, tournament, stage):
    _player, seat_of, base = withdrawn_after_round_one(as_organiser, tournament, stage)
    response = as_organiser.post(f"{base}/reinstate/")
    assert response.status_code == 200
    assert response.json()["status"] == "checked_in"
    assert as_organiser.post(f"{base}/reinstate/").status_code == 200  # twice is harmless
    seat_of.refresh_from_db()
    assert (seat_of.from_round, seat_of.to_round) == (1, None)
    assert seat_of.plays_round(2)


def test_a_player_whose_table_played_on_without_them_cannot_be_reinstated(
    as_organiser, tournament, stage
):
    player, seat_of, base = withdrawn_after_round_one(as_organiser, tournament, stage)
    factories.RoundResultFactory(table=seat_of.table, stage=stage, round_no=2)
    refused = as_organiser.post(f"{base}/reinstate/")
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        f"{player.name} cannot rejoin {stage.name}: table {seat_of.table.number} has "
        "reported round 2 since they withdrew."
    )
    # Nothing changed: still withdrawn, still out from round 2.
    player.refresh_from_db()
    seat_of.refresh_from_db()
    assert (player.status, seat_of.to_round) == ("withdrawn", 1)


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_reinstating_needs_an_organiser(request, tournament, client, status):
    player = factories.PlayerFactory(tournament=tournament, status="withdrawn")
    url = f"/api/v1/tournaments/{tournament.slug}/players/{player.pk}/reinstate/"
    assert request.getfixturevalue(client).post(url).status_code == status
    player.refresh_from_db()
    assert player.status == "withdrawn"


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_withdraw_and_late_entry_need_an_organiser(request, tournament, stage, client, status):
    player = factories.PlayerFactory(tournament=tournament)
    as_client = request.getfixturevalue(client)
    url = f"/api/v1/tournaments/{tournament.slug}/players/{player.pk}/withdraw/"
    assert as_client.post(url).status_code == status
    assert late(as_client, stage, player.pk).status_code == status
    player.refresh_from_db()
    assert player.status == "registered"


def test_check_in(as_organiser, tournament):
    player = factories.PlayerFactory(tournament=tournament)
    url = f"/api/v1/tournaments/{tournament.slug}/players/{player.pk}/check-in/"
    assert as_organiser.post(url).json()["status"] == "checked_in"
    player.status = "withdrawn"
    player.save()
    refused = as_organiser.post(url)
    assert refused.status_code == 409
    assert "has withdrawn" in refused.json()["detail"]


# ---- table cards --------------------------------------------------------------------------------


def test_table_cards_pdf_has_a_page_per_table_with_players_deal_and_grid(
    as_official, as_organiser, tournament, stage
):
    for number, name in enumerate(["José Ramírez", "Françoise Dubois", "Bill O'Connor"], start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    add_more = [factories.PlayerFactory(tournament=tournament, number=n) for n in range(4, 11)]
    assert len(add_more) == 7
    seat(as_organiser, stage, seed=1)
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(response.content))
    assert len(reader.pages) == 3  # 10 players: tables of 4, 3, 3
    pages = [page.extract_text() for page in reader.pages]
    for number, text in enumerate(pages, start=1):
        assert tournament.name in text
        assert f"Table {number}" in text
        assert "Deal 12 tiles" in text  # samboree: 2-4 players get 12
        assert "1 (double-12)" in text and "4 (double-9)" in text
        assert "Total" in text and "signature" in text
    everything = "\n".join(pages)
    for name in ["José Ramírez", "Françoise Dubois", "Bill O'Connor"]:
        assert name in everything
    # Each page's QR code, printed and scanned, opens score entry for that page's table.
    tables = {t.number: t.pk for t in Table.objects.filter(stage=stage)}
    document = pdfium.PdfDocument(response.content)
    for number, page in enumerate(document, start=1):
        image = page.render(scale=2).to_pil()  # 144 dpi, about what a phone sees
        found = [code.text for code in zxingcpp.read_barcodes(image)]
        assert found == [f"http://testserver/t/{tournament.slug}/enter/{tables[number]}/"]


def shaded_cells(image) -> list[tuple[int, int]]:
    """The centres (x, y) of the card's grey (#bdbdbd) cells, top to bottom then left to
    right: each cell a patch of grey of its own, the grid's black lines between them."""
    width, height = image.size
    pixels = image.load()
    grey = {(x, y) for y in range(height) for x in range(width) if pixels[x, y] == 0xBD}
    centres = []
    while grey:
        patch, todo = [], [grey.pop()]
        while todo:
            x, y = todo.pop()
            patch.append((x, y))
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in grey:
                    grey.remove(near)
                    todo.append(near)
        if len(patch) > 100:  # a cell, not a grey pixel at the edge of a letter
            xs, ys = [x for x, _ in patch], [y for _, y in patch]
            centres.append(((min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2))
    return sorted(centres, key=lambda c: (c[1], c[0]))


def test_table_cards_printed_again_show_withdrawals_late_entries_and_the_deal_now(
    as_official, as_organiser, tournament, stage
):
    """A card printed again mid-stage is the table as it is: who withdrew after which round,
    who joined when, the deal for the players now and from which round; a round that a seat
    does not play is shaded, so that nobody writes a score there."""
    stage.table_size_max = 5
    stage.save(update_fields=["table_size_max"])
    add_players(tournament, 10)  # two tables of 5
    seat(as_organiser, stage, seed=1)
    first, second = Table.objects.filter(stage=stage).order_by("number")
    factories.RoundResultFactory(table=first, stage=stage, round_no=1)
    factories.RoundResultFactory(table=second, stage=stage, round_no=1)
    factories.RoundResultFactory(table=second, stage=stage, round_no=2)
    leaving = first.seats.get(position=2).player
    url = f"/api/v1/tournaments/{tournament.slug}/players/{leaving.pk}/withdraw/"
    assert as_organiser.post(url).status_code == 200
    newcomer = factories.PlayerFactory(tournament=tournament, number=11, name="Late Lou")
    joined = as_organiser.post(
        f"/api/v1/stages/{stage.pk}/late-players/", {"player": newcomer.pk}, format="json"
    )
    assert joined.status_code == 201 and joined.json()["table"] == 1  # the smaller table now
    # At table 2, one leaves after the last round: the table played every round as it was.
    for round_no in (3, 4):
        factories.RoundResultFactory(table=second, stage=stage, round_no=round_no)
    done = second.seats.get(position=1).player
    url = f"/api/v1/tournaments/{tournament.slug}/players/{done.pk}/withdraw/"
    assert as_organiser.post(url).status_code == 200
    deal = get_preset(tournament.preset).tiles_dealt
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    pages = [
        " ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(response.content)).pages
    ]
    assert f"Seat 2: #{leaving.number} {leaving.name} (withdrew after round 1)" in pages[0]
    assert "#11 Late Lou (plays from round 2)" in pages[0]
    assert (
        f"Deal {deal(12, 5)} tiles to each of the 5 players (double-12 set). From round 2, as "
        "the table is now."
    ) in pages[0]
    assert f"Deal {deal(12, 5)} tiles to each of the 5 players (double-12 set)." in pages[1]
    assert f"#{done.number} {done.name} (withdrew after round 4)" in pages[1]
    assert "From round" not in pages[1]
    # The shading: rounds 2 to 4 under the player who left, round 1 under the late one.
    image = pdfium.PdfDocument(response.content)[0].render(scale=1).to_pil().convert("L")
    late_round_1, *left = shaded_cells(image)
    assert len(left) == 3  # rounds 2, 3 and 4 of the player who left
    assert len({x for x, _ in left}) == 1  # one column, seat 2's
    heights = [b[1] - a[1] for a, b in zip([late_round_1, *left], left, strict=False)]
    assert max(heights) - min(heights) <= 2  # one row after another, round 1 the late one's
    assert late_round_1[0] > left[0][0]  # the late player's column, right of seat 2's


def test_table_cards_print_names_with_angle_brackets_and_ampersands_as_typed(
    as_official, as_organiser, tournament, stage
):
    names = ["Bob <Bobby> Lee", "Ann <b Smith", "Cy & Di", "Ed Jones"]
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    seat(as_organiser, stage, seed=1)
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200  # "<b" once made the PDF fail
    text = PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    for name in names:
        assert name in text


def cards_of(client, organiser_client, stage, names: list[str], **renamed: str) -> bytes:
    """The stage's cards PDF, its players named as given (and the tournament or the stage
    renamed: event=, stage_name=), seated at one table with seed 1."""
    tournament = stage.tournament
    if "event" in renamed:
        tournament.name = renamed["event"]
        tournament.save()
    if "stage_name" in renamed:
        stage.name = renamed["stage_name"]
        stage.save()
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    seat(organiser_client, stage, seed=1)
    response = client.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200
    return response.content


def test_table_cards_print_names_outside_windows_1252_as_typed_and_still_scan(
    as_official, as_organiser, tournament, stage
):
    # Helvetica's WinAnsiEncoding printed Ł, ễ, ă, Ễ, ğ, Greek and Cyrillic as black boxes; a
    # glyph that the card's font lacks comes out of the text layer as something else.
    names = ["Łukasz Wójcik", "Nguyễn Văn Ễ", "Ömer Çağlar", "Юрий Ρήγας"]
    pdf = cards_of(
        as_official, as_organiser, stage, names,
        event="Łódź Open: Çağlar Cup", stage_name="Квалификация Ελλάδα",
    )  # fmt: skip
    tournament.refresh_from_db()
    document = pdfium.PdfDocument(pdf)
    assert len(document) == 1
    page = document[0]
    text = page.get_textpage().get_text_range()
    lines = text.splitlines()
    assert lines[:2] == [tournament.name, stage.name]
    seat_lines = {line for line in lines if line.startswith("Seat ")}
    assert seat_lines == {f"Seat {s.position}: #{s.player.number} {s.player.name}"
                          for s in Seat.objects.filter(stage=stage)}  # fmt: skip
    for name in names:  # its seat's line and the score grid's header
        assert text.count(name) == 2, name
    table = Table.objects.get(stage=stage)
    found = [code.text for code in zxingcpp.read_barcodes(page.render(scale=2).to_pil())]
    assert found == [f"http://testserver/t/{tournament.slug}/enter/{table.pk}/"]


def test_table_cards_print_a_name_with_an_emoji(as_official, as_organiser, tournament, stage):
    names = ["Dice 🎲 Dan", "Ann Lee", "Cy Di", "Ed Jones"]
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    seat(as_organiser, stage, seed=1)
    response = as_official.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert response.status_code == 200  # the font has no emoji: a blank, the rest as typed
    text = PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    assert "Dice" in text and "Dan" in text and "Ed Jones" in text


def letters(page) -> list[tuple[str, tuple[float, float, float, float], float]]:
    """Each letter printed on the page: the letter (a joined Arabic form as its plain letter),
    its box in points (left, bottom, right, top), and the share of dark pixels in that box when
    the page is rendered at 144 dpi, as it prints."""
    scale = 2
    image = page.render(scale=scale, grayscale=True).to_pil()
    height = page.get_height()
    textpage = page.get_textpage()
    found = []
    for index in range(textpage.count_chars()):
        char = unicodedata.normalize("NFKC", textpage.get_text_range(index, 1))
        if not char.strip():
            continue
        box = left, bottom, right, top = textpage.get_charbox(index, loose=True)
        crop = image.crop((int(left * scale), int((height - top) * scale),
                           int(right * scale) + 1, int((height - bottom) * scale) + 1))  # fmt: skip
        dark = sum(crop.histogram()[:128])
        found.append((char, box, dark / max(crop.width * crop.height, 1)))
    return found


def assert_inked(page, names: list[str]) -> None:
    """Every letter of the names prints: a letter that the font lacks left its box blank."""
    wanted = {char for name in names for char in name if char.strip()}
    printed = [(char, ink) for char, _, ink in letters(page) if char in wanted]
    assert {char for char, _ in printed} == wanted
    blank = sorted({char for char, ink in printed if ink < 0.03})
    assert not blank, f"printed blank: {blank}"


def lines_of(page) -> list[dict[str, float]]:
    """Each line of the page: where the middle of each of its letters is, across, in points.
    (The fonts' boxes differ in height: a letter whose box is centred within 5 pt of a line's
    first letter is on that line; the lines are 13 pt apart or more.)"""
    lines: list[tuple[float, dict[str, float]]] = []
    for char, (left, bottom, right, top), _ in letters(page):
        height = (bottom + top) / 2
        line = next((line for y, line in lines if abs(y - height) < 5), None)
        if line is None:
            lines.append((height, line := {}))
        line.setdefault(char, (left + right) / 2)
    return [line for _, line in lines]


def right_to_left(line: dict[str, float], *words: str) -> bool:
    """Whether the words lie right to left on the line, each word's letters too."""
    middles = [line[char] for word in words for char in word if char.strip()]
    return middles == sorted(middles, reverse=True)


def test_table_cards_print_chinese_japanese_and_korean_names(
    as_official, as_organiser, tournament, stage
):
    names = ["王芳", "山田はなこ", "김민준", "Ana 王"]
    renamed = {"event": "東京ドミノ Open", "stage_name": "예선 1"}
    pdf = cards_of(as_official, as_organiser, stage, names, **renamed)
    tournament.refresh_from_db()
    page = pdfium.PdfDocument(pdf)[0]
    text = page.get_textpage().get_text_range()
    assert text.splitlines()[:2] == [tournament.name, stage.name]
    for name in names:  # its seat's line and the score grid's header
        assert text.count(name) == 2, name
    assert_inked(page, [tournament.name, stage.name, *names])


def test_table_cards_print_arabic_and_hebrew_names_joined_and_right_to_left(
    as_official, as_organiser, tournament, stage
):
    names = ["سمير خان", "יוסף כהן", "Dov גלעד", "Ann Lee"]
    pdf = cards_of(as_official, as_organiser, stage, names, event="كأس القاهرة")
    tournament.refresh_from_db()
    page = pdfium.PdfDocument(pdf)[0]
    assert_inked(page, [tournament.name, *names])
    # The Arabic letters join: سمير is drawn in its initial, medial, medial and final forms.
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert "\ufeb3\ufee4\ufef4\ufeae" in text or "\ufeae\ufef4\ufee4\ufeb3" in text
    # Each line that prints a name (its seat's line, the grid's header) lays its Arabic and
    # Hebrew words out right to left, the first word rightmost; "Dov" stays left of "גלעד".
    lines = lines_of(page)
    arabic = [line for line in lines if "س" in line and "خ" in line]
    hebrew = [line for line in lines if "ף" in line]
    mixed = [line for line in lines if "D" in line and "ג" in line]
    title = [line for line in lines if "ك" in line]
    assert (len(arabic), len(hebrew), len(mixed), len(title)) == (2, 2, 2, 1)
    assert all(right_to_left(line, "سمير", "خان") for line in arabic)
    assert all(right_to_left(line, "יוסף", "כהן") for line in hebrew)
    assert all(right_to_left(line, "גלעד", "vD") for line in mixed)  # Dov: its D left of its v
    assert right_to_left(title[0], "كأس", "قة")


def test_table_cards_need_a_seated_stage_and_staff(anon, as_organiser, as_other_organiser, stage):
    assert as_organiser.get(f"/api/v1/stages/{stage.pk}/cards.pdf").status_code == 409
    assert anon.get(f"/api/v1/stages/{stage.pk}/cards.pdf").status_code == 401
    assert as_other_organiser.get(f"/api/v1/stages/{stage.pk}/cards.pdf").status_code == 403
