"""Late players, withdrawals, reinstating and checking in through the v1 API."""

import pytest

from tables.models import Seat
from tests import factories
from tests.tables.api.conftest import add_players, late, seat
from tournaments.models import Player

pytestmark = pytest.mark.django_db


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


def test_late_player_when_every_table_is_full_is_409_and_seats_nobody(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)  # two tables of 4, the stage's largest
    seat(as_organiser, stage, seed=5)
    latecomer = factories.PlayerFactory(tournament=tournament, number=41, name="Late Larry")
    response = late(as_organiser, stage, latecomer.pk)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Every table of Qualifying has 4 players, the most this stage allows. To seat #41 Late "
        "Larry all the same, choose to seat them above the maximum: the table's card and score "
        "sheet will say so."
    )
    assert not Seat.objects.filter(player=latecomer).exists()
    latecomer.refresh_from_db()
    assert latecomer.status == "registered"  # not checked in by a refused seat either
    assert not latecomer.history.filter(history_change_reason="seated_late").exists()


def test_late_player_when_every_table_is_full_is_refused_in_spanish(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)
    seat(as_organiser, stage, seed=5)
    latecomer = factories.PlayerFactory(tournament=tournament, number=41, name="Ana")
    response = as_organiser.post(
        f"/api/v1/stages/{stage.pk}/late-players/",
        {"player": latecomer.pk},
        format="json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert response.status_code == 409
    assert "tiene 4 jugadores" in response.json()["detail"]
    assert "#41 Ana" in response.json()["detail"]


def test_late_player_allowed_over_max_joins_the_smallest_full_table(
    as_organiser, tournament, stage
):
    add_players(tournament, 8)  # two tables of 4, the stage's largest
    seat(as_organiser, stage, seed=5)
    latecomer = factories.PlayerFactory(tournament=tournament, number=50)
    response = late(as_organiser, stage, latecomer.pk, allow_over_max=True)
    assert response.status_code == 201, response.json()
    assert response.json()["table"] == 1
    assert response.json()["position"] == 5  # samboree deals to up to 10 at a table
    # The next one goes to the other table, still within its 4, with no choice needed.
    response = late(as_organiser, stage, latecomer.pk, allow_over_max=True)
    assert response.status_code == 400  # already seated: the flag seats nobody twice


def test_late_player_allow_over_max_is_not_needed_while_a_table_has_room(
    as_organiser, tournament, stage
):
    add_players(tournament, 7)  # tables of 4 and 3
    seat(as_organiser, stage, seed=5)
    first = factories.PlayerFactory(tournament=tournament, number=50)
    second = factories.PlayerFactory(tournament=tournament, number=51)
    response = late(as_organiser, stage, first.pk, allow_over_max=True)
    assert response.status_code == 201
    assert response.json()["position"] == 4  # the table of 3, not a fifth seat
    assert late(as_organiser, stage, second.pk).status_code == 409  # now both have 4


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
