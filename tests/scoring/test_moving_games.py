"""Games seated from the game before, through the API: the last table of a game confirms its
last round, a worker closes the game and seats the next one (tables move, or everyone is
reseated), and players read where they sit on their page and the projector."""

import io
from itertools import pairwise

import pytest
from pypdf import PdfReader

from scoring import tasks
from scoring.models import StandingRow
from scoring.services import closing, game_close
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import play_stage
from tournaments import services
from tournaments.models import Player, Stage

pytestmark = pytest.mark.django_db(transaction=True)

GAME = {
    "kind": "qualifying",
    "rounds": 2,
    "starting_double": 12,
    "table_size_min": 3,
    "table_size_max": 4,
}


def add_game(client, tournament, number: int, **fields) -> Stage:
    body = {**GAME, "name": f"Game {number}", **fields}
    if number > 1:
        body["carry_forward"] = True
    response = client.post(f"/api/v1/tournaments/{tournament.slug}/stages/", body, format="json")
    assert response.status_code == 201, response.json()
    return Stage.objects.get(pk=response.json()["id"])


def tables_of(stage) -> list[list[int]]:
    """Badge numbers per table, table 1 first, sorted."""
    return [
        sorted(table.seats.values_list("player__number", flat=True))
        for table in Table.objects.filter(stage=stage).order_by("number")
    ]


def play_game(client, stage, *, skip_last: bool = False) -> None:
    """Enter and confirm every round of every table through the API: at each table the lowest
    badge number goes out and the others score 5, 10, 15 in badge order (so each table's own
    order is its badge order). With `skip_last`, the last table's last round is left."""
    tables = list(Table.objects.filter(stage=stage).order_by("number"))
    for table in tables:
        seats = sorted(table.seats.select_related("player"), key=lambda s: s.player.number)
        for round_no in range(1, stage.rounds + 1):
            if skip_last and table == tables[-1] and round_no == stage.rounds:
                continue
            body = {
                "blocked": False,
                "scores": [
                    {"player": s.player_id, "pips": 5 * i, "went_out": i == 0}
                    for i, s in enumerate(seats)
                ],
            }
            url = f"/api/v1/tables/{table.pk}/rounds/{round_no}/"
            response = client.put(url, body, format="json")
            assert response.status_code == 201, response.json()
            assert client.post(f"{url}confirm/").status_code == 200


def confirm_last(client, stage) -> None:
    table = Table.objects.filter(stage=stage).order_by("-number").first()
    playing = table.seats.filter(to_round__isnull=True).select_related("player")
    seats = sorted(playing, key=lambda s: s.player.number)
    body = {
        "blocked": False,
        "scores": [
            {"player": s.player_id, "pips": 5 * i, "went_out": i == 0} for i, s in enumerate(seats)
        ],
    }
    url = f"/api/v1/tables/{table.pk}/rounds/{stage.rounds}/"
    assert client.put(url, body, format="json").status_code == 201
    assert client.post(f"{url}confirm/").status_code == 200


def moved(before: list[list[int]], k: int) -> list[list[int]]:
    """The tables after a move of k each way, when each table's order is its badge order."""
    after: list[list[int]] = [[] for _ in before]
    last = len(before) - 1
    for index, table in enumerate(before):
        after[max(index - 1, 0)] += table[:k]
        after[index] += table[k:-k]
        after[min(index + 1, last)] += table[-k:]
    return [sorted(table) for table in after]


@pytest.fixture
def field(tournament):
    return [factories.PlayerFactory(tournament=tournament, number=n) for n in range(1, 13)]


def test_three_games_moved_then_reseated_by_the_worker(
    as_organiser, as_official, tournament, field, client
):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=1)
    game3 = add_game(as_organiser, tournament, 3, movement="reseat")
    seat = as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 7}, format="json")
    assert seat.status_code == 200, seat.json()
    first = tables_of(game1)
    assert [len(t) for t in first] == [4, 4, 4]

    play_game(as_official, game1)

    game1.refresh_from_db()
    game2.refresh_from_db()
    assert game1.status == "closed" and game1.advance_problem == ""
    assert game2.status == "seated" and game2.source_stage == game1
    assert tables_of(game2) == moved(first, 1)
    assert game2.seed is not None
    # Each seat says where its player came from.
    for seat in Seat.objects.filter(stage=game2).select_related("player", "table"):
        was = next(n for n, t in enumerate(first, start=1) if seat.player.number in t)
        assert seat.from_table == was
    # Sent again, the worker seats nothing twice.
    tasks.close_game(stage_id=game1.pk)
    tasks.advance_from_stage(stage_id=game1.pk)
    assert tables_of(game2) == moved(first, 1)
    assert Seat.objects.filter(stage=game2).count() == 12

    # The player page: where they sit in game 2, and where they came from.
    up = first[1][0]  # table 2's best moved up to table 1
    seat_up = Seat.objects.get(stage=game2, player__number=up)
    page = client.get(f"/en/t/{tournament.slug}/players/{up}/").content.decode()
    expected = f"Game 2: table 1, seat {seat_up.position} (moved up from table 2)"
    assert expected in " ".join(page.split())
    down = first[0][-1]
    page = client.get(f"/en/t/{tournament.slug}/players/{down}/").content.decode()
    assert "(moved down from table 1)" in page
    # The projector shows where to sit until the game's first result.
    screen = client.get(f"/en/t/{tournament.slug}/screen/").content.decode()
    assert "Game 2: where to sit" in screen
    assert "moved up from table 2" in screen
    # The new game's table cards print, named for the game.
    cards = as_official.get(f"/api/v1/stages/{game2.pk}/cards.pdf")
    assert cards.status_code == 200
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(cards.content)).pages)
    assert "Game 2" in text and "Table 3" in text

    second = tables_of(game2)
    play_game(as_official, game2)
    game2.refresh_from_db()
    game3.refresh_from_db()
    assert game2.status == "closed"
    assert game3.status == "seated"
    assert sorted(p for t in tables_of(game3) for p in t) == list(range(1, 13))
    assert [len(t) for t in tables_of(game3)] == [4, 4, 4]
    reseated = Seat.objects.filter(stage=game3).select_related("player")
    assert all(
        s.from_table == next(n for n, t in enumerate(second, 1) if s.player.number in t)
        for s in reseated
    )
    page = client.get(f"/en/t/{tournament.slug}/players/1/").content.decode()
    assert "reseated from table" in page

    # Totals carried: a game 2 total is both games' own.
    play_game(as_official, game3, skip_last=True)
    for number in (first[1][0], first[0][-1]):
        games = {row.stage_id: row for row in StandingRow.objects.filter(player__number=number)}
        own2 = games[game2.pk].total - games[game2.pk].carried
        assert games[game2.pk].carried == games[game1.pk].total
        assert games[game2.pk].total == games[game1.pk].total + own2


def test_the_move_follows_the_games_own_scores_not_the_carried_totals(
    as_organiser, as_official, tournament, field
):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=1)
    game3 = add_game(as_organiser, tournament, 3, movement="move", move_count=1)
    # Seed 15 seats 7, 8, 11, 12 | 1, 3, 4, 5 | 2, 6, 9, 10: by the carried totals, table 2's
    # worst in game 2 would be another player.
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 15}, format="json")
    assert tables_of(game1) == [[7, 8, 11, 12], [1, 3, 4, 5], [2, 6, 9, 10]]
    play_game(as_official, game1)
    game2.refresh_from_db()
    second = tables_of(game2)
    # Game 2 scored by badge order again: the carried totals would order table 1 otherwise
    # (table 2's best came up with a worse game 1 total than table 1's own).
    play_game(as_official, game2)
    # The carried totals (the standings' table ranks of game 2) would move others.
    cumulative = {
        row.player.number: row.table_rank
        for row in StandingRow.objects.filter(stage=game2).select_related("player")
    }
    by_totals = [sorted(table, key=cumulative.__getitem__) for table in second]
    assert moved(by_totals, 1) != moved(second, 1)
    game3.refresh_from_db()
    assert game3.status == "seated"
    assert tables_of(game3) == moved(second, 1)
    # The tables that moved keep the players who stayed together, and the report counts them
    # (it said 0 for every moved game): each pair seated together in games 3 and 1 or 2.
    earlier = {
        (a, b)
        for tables in (tables_of(game1), second)
        for table in tables
        for a in table
        for b in table
        if a < b
    }
    now = {(a, b) for table in tables_of(game3) for a in table for b in table if a < b}
    assert game3.seating_report["repeat_pairs"] == len(now & earlier) > 0


def test_a_player_withdrawn_before_the_last_result_is_not_seated_in_the_next_game(
    as_organiser, as_official, tournament, field
):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=1)
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 5}, format="json")
    first = tables_of(game1)
    play_game(as_official, game1, skip_last=True)
    leaving = Player.objects.get(tournament=tournament, number=first[0][1])
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/{leaving.pk}/withdraw/"
    )
    assert response.status_code == 200, response.content
    confirm_last(as_official, game1)
    game2.refresh_from_db()
    assert game2.status == "seated"
    seated = [p for t in tables_of(game2) for p in t]
    assert leaving.number not in seated and len(seated) == 11
    assert sorted(len(t) for t in tables_of(game2)) == [3, 4, 4]


def test_a_game_that_cannot_seat_the_next_stays_open_and_says_why(
    as_organiser, as_official, tournament, field
):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=1, table_size_min=4)
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 5}, format="json")
    first = tables_of(game1)
    play_game(as_official, game1, skip_last=True)
    leaving = Player.objects.get(tournament=tournament, number=first[2][0])
    as_organiser.post(f"/api/v1/tournaments/{tournament.slug}/players/{leaving.pk}/withdraw/")
    confirm_last(as_official, game1)
    game1.refresh_from_db()
    game2.refresh_from_db()
    assert game1.status == "seated" and game2.status == "pending"
    assert "Game 2 cannot be seated from it" in game1.advance_problem
    assert "11 players cannot be seated at the 3 tables" in game1.advance_problem
    # The organiser's close says the same, and changes nothing.
    response = as_organiser.post(f"/api/v1/stages/{game1.pk}/close/")
    assert response.status_code == 409
    assert "11 players cannot be seated at the 3 tables" in response.json()["detail"]
    # Smaller tables allowed: the organiser closes the game and the next is seated the same way.
    fixed = as_organiser.patch(f"/api/v1/stages/{game2.pk}/", {"table_size_min": 3}, format="json")
    assert fixed.status_code == 200, fixed.json()
    assert as_organiser.post(f"/api/v1/stages/{game1.pk}/close/").status_code == 202
    game2.refresh_from_db()
    assert game2.status == "seated"
    assert sorted(len(t) for t in tables_of(game2)) == [3, 4, 4]


def test_the_organisers_close_seats_the_next_game_too(as_organiser, tournament, field):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=2, table_size_min=4)
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 11}, format="json")
    # Results stored straight in the database (no confirmation to trigger the worker): seat 1
    # goes out, then each seat scores more.
    play_stage(game1)
    game1.refresh_from_db()
    assert game1.status == "seated"
    by_seat = [
        [
            s.player.number
            for s in Seat.objects.filter(table=t).order_by("position").select_related("player")
        ]
        for t in Table.objects.filter(stage=game1).order_by("number")
    ]
    response = as_organiser.post(f"/api/v1/stages/{game1.pk}/close/")
    assert response.status_code == 202, response.json()
    assert response.json()["detail"] == "Game 1 is closed. Game 2 is being seated now."
    game2.refresh_from_db()
    assert game2.status == "seated"
    expected = [[], [], []]
    for index, table in enumerate(by_seat):  # best first: seat order
        expected[max(index - 1, 0)] += table[:2]
        expected[index] += table[2:-2]
        expected[min(index + 1, 2)] += table[-2:]
    assert tables_of(game2) == [sorted(t) for t in expected]


def test_the_sweeper_seats_a_game_set_to_move_after_the_game_before_closed(
    as_organiser, tournament, field
):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2)  # seated by the organiser, at first
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 11}, format="json")
    play_stage(game1)
    assert as_organiser.post(f"/api/v1/stages/{game1.pk}/close/").status_code == 202
    game2.refresh_from_db()
    assert game2.status == "pending"
    assert game1.pk not in closing.stages_awaiting_advance()
    change = {"movement": "move", "move_count": 1}
    assert (
        as_organiser.patch(f"/api/v1/stages/{game2.pk}/", change, format="json").status_code == 200
    )
    assert game1.pk in closing.stages_awaiting_advance()
    tasks.sweep_stale_standings()
    game2.refresh_from_db()
    assert game2.status == "seated" and game2.source_stage_id == game1.pk
    assert game1.pk not in closing.stages_awaiting_advance()


def test_a_late_entry_checked_in_between_games_sits_at_the_bottom_table(
    as_organiser, as_official, tournament, field, client
):
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=1, table_size_max=5)
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 2}, format="json")
    late = factories.PlayerFactory(tournament=tournament, number=13, status="checked_in")
    play_game(as_official, game1)
    game2.refresh_from_db()
    assert game2.status == "seated"
    assert [len(t) for t in tables_of(game2)] == [4, 4, 5]
    seat = Seat.objects.get(stage=game2, player=late)
    assert (seat.table.number, seat.from_table) == (3, None)
    page = " ".join(client.get(f"/en/t/{tournament.slug}/players/13/").content.decode().split())
    assert f"Game 2: table 3, seat {seat.position}</p>" in page


def test_the_eleven_three_preset_plays_four_games_of_moving_tables(client):
    """The club day's shape: tables of 7, the three lowest totals of each game move up a table
    and the three highest down, totals carried; the fourth game places everyone."""
    organiser = factories.UserFactory()
    tournament = services.create_tournament(
        name="Club day",
        slug="club-day",
        domino_set=15,
        preset="eleven_three",
        by=organiser,
        with_stages=True,
    )
    games = list(tournament.stages.order_by("order"))
    assert [(g.display_name, g.movement, g.move_count) for g in games] == [
        ("Game 1", "", 0),
        ("Game 2", "move", 3),
        ("Game 3", "move", 3),
        ("Game 4", "move", 3),
    ]
    for number in range(1, 22):
        factories.PlayerFactory(tournament=tournament, number=number)
    as_organiser = client_for(organiser)
    as_official = client_for(factories.StaffFactory(tournament=tournament, role="official").user)
    seated = as_organiser.post(f"/api/v1/stages/{games[0].pk}/seat/", {"seed": 4}, format="json")
    assert seated.status_code == 200, seated.json()
    before = tables_of(games[0])
    assert [len(t) for t in before] == [7, 7, 7]
    for game, following in pairwise(games):
        play_game(as_official, game)
        following.refresh_from_db()
        assert following.status == "seated", following
        assert tables_of(following) == moved(before, 3)
        before = tables_of(following)
        if following == games[1]:  # just seated, nothing reported: ranked by what it carries
            page = client.get(f"/en/t/{tournament.slug}/").content.decode()
            assert "until then, the order is the totals carried from the games before" in page
            assert "everyone stands level" not in page
            # Everyone plays the next game: nobody is marked, so no legend for the mark.
            assert "would advance: as the standings stand now" not in page
    play_game(as_official, games[3])
    assert as_organiser.post(f"/api/v1/stages/{games[3].pk}/close/").status_code == 202
    rows = StandingRow.objects.filter(stage=games[3])
    for row in rows:
        own = StandingRow.objects.filter(player=row.player, stage__in=games)
        assert row.total == sum(r.total - r.carried for r in own)
    assert tournament.placings.count() == 21


def test_the_sweeper_closes_a_finished_game_whose_close_was_lost(as_organiser, tournament, field):
    """Every round of game 1 confirmed but its close never sent (the broker was down): the beat
    sweeper closes it and seats game 2. A game with a round missing, or whose close was refused
    (the organiser sees why), is left alone."""
    game1 = add_game(as_organiser, tournament, 1)
    game2 = add_game(as_organiser, tournament, 2, movement="move", move_count=1)
    as_organiser.post(f"/api/v1/stages/{game1.pk}/seat/", {"seed": 11}, format="json")
    assert game_close.games_awaiting_close() == []  # nothing played yet
    play_stage(game1)  # stored as confirmed, with no close sent
    game1.refresh_from_db()
    assert game1.status == "seated"
    Stage.objects.filter(pk=game1.pk).update(advance_problem="A tie decides a move.")
    assert game_close.games_awaiting_close() == []
    Stage.objects.filter(pk=game1.pk).update(advance_problem="")
    assert game_close.games_awaiting_close() == [game1.pk]
    tasks.sweep_stale_standings()
    game1.refresh_from_db()
    game2.refresh_from_db()
    assert game1.status == "closed" and game2.status == "seated"
    assert game2.source_stage_id == game1.pk
    assert game_close.games_awaiting_close() == []
