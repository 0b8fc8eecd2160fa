"""Flights: the players split into flights A, B, ... by rating (the club's ratings, else the
standings of a closed stage) or by the organiser's list, then placed and given medals within
each as divisions are. Every bad input is refused with its reason and changes nothing."""

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from scoring.models import Placing
from scoring.rules import flights as rules
from scoring.services.flights import RATING, STANDINGS, split_by_rating
from tests import factories
from tests.scoring.helpers import close, play_stage, qualifying_with_tables
from tests.tables.test_rating_seating import linked
from tournaments import services
from tournaments.exceptions import StateConflict
from tournaments.models import Division, Player

pytestmark = pytest.mark.django_db


def flights_of(tournament) -> dict[str, list[int]]:
    """{flight: its players' badge numbers}, in the flights' order."""
    found: dict[str, list[int]] = {}
    for flight in tournament.divisions.filter(flight=True).order_by("order"):
        found[flight.name] = sorted(flight.players.values_list("number", flat=True))
    return found


def snapshot(tournament):
    divisions = list(tournament.divisions.values_list("name", "flight", "order"))
    return divisions, list(tournament.players.order_by("number").values_list("division_id"))


# ---- the pure split ------------------------------------------------------------------------


def test_twenty_five_players_in_two_flights_are_thirteen_and_twelve_the_strongest_in_a():
    flights = rules.split(list(range(1, 26)), 2)
    assert flights == [list(range(1, 14)), list(range(14, 26))]
    assert [rules.flight_name(i) for i in range(3)] == ["A", "B", "C"]


@given(st.integers(2, 26).flatmap(lambda n: st.tuples(st.just(n), st.integers(n, 200))))
def test_a_split_is_balanced_in_order_and_the_same_every_time(counts):
    count, players = counts
    ranked = [f"p{i}" for i in range(players)]
    flights = rules.split(ranked, count)
    assert len(flights) == count
    sizes = [len(f) for f in flights]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    assert [p for f in flights for p in f] == ranked  # each a run of the ranking, A the top
    assert rules.split(ranked, count) == flights


@pytest.mark.parametrize(("count", "players"), [(1, 5), (0, 5), (27, 40), (6, 5)])
def test_a_split_into_fewer_than_two_or_more_than_the_players_is_refused(count, players):
    with pytest.raises(ValueError):
        rules.split(list(range(players)), count)


# ---- by rating -----------------------------------------------------------------------------


@pytest.fixture
def club_event(db):
    """A tournament its club owns: six members rated 10 (badge 1) to 60 (badge 6), one more
    linked but never rated (badge 7)."""
    owned = factories.ClubTournamentFactory()
    for number in range(1, 7):
        linked(owned, number, (10 * number + 3, 1, "2026-01-10"))  # ordinal: 40 * (10n)
    linked(owned, 7)
    return owned.tournament


def test_a_club_event_splits_by_rating_the_strongest_in_a(club_event):
    changed, ranking = split_by_rating(tournament=club_event, count=2)
    assert ranking.by == RATING and ranking.unrated == 1
    # Ranked 6, 5, 4, 3, 2, 1, then the newcomer 7: four in A, three in B.
    assert flights_of(club_event) == {"A": [3, 4, 5, 6], "B": [1, 2, 7]}
    assert changed.moved == 7


def test_a_newcomer_counts_as_a_newcomers_rating_and_ties_go_by_badge_number(club_event):
    split_by_rating(tournament=club_event, count=3)
    # Ranked 6, 5, 4, 3, 2, 1 (ordinals 2,400 to 400), then the newcomer 7 (0): 3, 2, 2.
    assert flights_of(club_event) == {"A": [4, 5, 6], "B": [2, 3], "C": [1, 7]}


def test_splitting_again_the_same_way_moves_nobody(club_event):
    split_by_rating(tournament=club_event, count=2)
    before = snapshot(club_event)
    changed, _ranking = split_by_rating(tournament=club_event, count=2)
    assert changed.moved == 0 and snapshot(club_event) == before


def test_splitting_into_fewer_flights_removes_the_emptied_one(club_event):
    split_by_rating(tournament=club_event, count=3)
    split_by_rating(tournament=club_event, count=2)
    assert list(flights_of(club_event)) == ["A", "B"]
    assert not Division.objects.filter(tournament=club_event, name="C").exists()


def test_a_withdrawn_player_is_in_no_flight(club_event):
    Player.objects.filter(tournament=club_event, number=6).update(status="withdrawn")
    split_by_rating(tournament=club_event, count=2)
    assert flights_of(club_event) == {"A": [3, 4, 5], "B": [1, 2, 7]}


def test_an_event_no_club_owns_splits_by_the_standings_of_its_closed_stage(
    tournament, as_organiser
):
    stage = qualifying_with_tables(tournament, [3, 3])
    play_stage(stage, lambda seat, round_no: 10 * seat.position + seat.table.number)
    factories.StageFactory(tournament=tournament, order=2, rounds=2)  # the next game
    assert close(as_organiser, stage).status_code == 202
    changed, ranking = split_by_rating(tournament=tournament, count=2)
    assert ranking.by == STANDINGS and ranking.stage == stage
    # Lowest totals first: seat 1 of tables 1 and 2, seat 2 of table 1, then the rest.
    assert flights_of(tournament) == {"A": [1, 2, 4], "B": [3, 5, 6]}
    assert changed.moved == 6


def test_nothing_to_rate_by_is_refused_with_the_way_out(tournament):
    factories.PlayerFactory.create_batch(4, tournament=tournament)
    with pytest.raises(ValidationError) as refused:
        split_by_rating(tournament=tournament, count=2)
    assert "Put them in flights by your list instead" in str(refused.value)
    assert not tournament.divisions.exists()


@pytest.mark.parametrize(
    ("count", "says"),
    [
        (1, "2 flights or more"),
        (27, "At most 26 flights"),
        (8, "8 flights for 7 players: a flight would have nobody."),
    ],
)
def test_a_bad_number_of_flights_is_refused_and_changes_nothing(club_event, count, says):
    with pytest.raises(ValidationError) as refused:
        split_by_rating(tournament=club_event, count=count)
    assert says in str(refused.value.message_dict["count"])
    assert not club_event.divisions.exists()


# ---- by the organiser's list -----------------------------------------------------------------


@pytest.fixture
def players(tournament):
    return [factories.PlayerFactory(tournament=tournament, number=n) for n in range(1, 6)]


def test_the_organisers_list_makes_the_flights_in_the_order_named(tournament, players):
    p = {player.number: player.pk for player in players}
    changed = services.assign_flights(
        tournament=tournament,
        flights={p[1]: " Gold ", p[2]: "silver", p[3]: "GOLD", p[4]: "Silver", p[5]: None},
    )
    assert changed.moved == 4
    assert flights_of(tournament) == {"Gold": [1, 3], "silver": [2, 4]}
    # A later list changes only whom it names; capitals and spaces find the same flight.
    services.assign_flights(tournament=tournament, flights={p[5]: "gold"})
    assert flights_of(tournament) == {"Gold": [1, 3, 5], "silver": [2, 4]}


def test_a_move_is_in_the_players_history(tournament, players):
    services.assign_flights(tournament=tournament, flights={players[0].pk: "A"})
    history = players[0].history.order_by("-history_date").first()
    assert history.division.name == "A"


@pytest.mark.parametrize(
    ("name", "says"),
    [("", "Player 1: A flight needs a name."), ("   ", "Player 1: A flight needs a name."),
     ("x" * 81, "Player 1: A flight's name has at most 80 characters.")],
)  # fmt: skip
def test_an_empty_or_long_flight_name_is_refused_and_changes_nothing(
    tournament, players, name, says
):
    before = snapshot(tournament)
    with pytest.raises(ValidationError) as refused:
        services.assign_flights(
            tournament=tournament, flights={players[1].pk: "A", players[0].pk: name}
        )
    assert says in refused.value.messages
    assert snapshot(tournament) == before


def test_a_player_of_another_tournament_is_refused_and_changes_nothing(tournament, players):
    stranger = factories.PlayerFactory()
    before = snapshot(tournament)
    with pytest.raises(ValidationError) as refused:
        services.assign_flights(
            tournament=tournament, flights={players[0].pk: "A", stranger.pk: "B"}
        )
    assert "1 of the players given are not players of" in refused.value.messages[0]
    assert snapshot(tournament) == before


def test_removing_the_flights_puts_everyone_back_together(tournament, players):
    services.assign_flights(tournament=tournament, flights={players[0].pk: "A", players[1].pk: "B"})
    assert services.remove_flights(tournament=tournament) == 2
    assert not tournament.divisions.exists()
    assert not tournament.players.filter(division__isnull=False).exists()


# ---- flights and divisions, results, decided placings ----------------------------------------


def test_a_tournament_with_divisions_cannot_split_into_flights(tournament, players):
    services.create_division(tournament=tournament, name="60-69", age_min=60, age_max=69)
    before = snapshot(tournament)
    with pytest.raises(StateConflict) as refused:
        services.assign_flights(tournament=tournament, flights={players[0].pk: "A"})
    assert "has the divisions 60-69" in str(refused.value)
    assert snapshot(tournament) == before


def test_a_tournament_in_flights_cannot_add_a_division(tournament, players):
    services.assign_flights(tournament=tournament, flights={players[0].pk: "A"})
    with pytest.raises(StateConflict) as refused:
        services.create_division(tournament=tournament, name="60-69")
    assert "plays in flights" in str(refused.value)


def test_once_rounds_are_entered_a_resplit_asks_first(tournament, as_organiser):
    stage = qualifying_with_tables(tournament, [3, 3])
    numbers = {p.number: p.pk for p in tournament.players.all()}
    services.assign_flights(
        tournament=tournament, flights={pk: "A" if n <= 3 else "B" for n, pk in numbers.items()}
    )
    play_stage(stage)
    before = snapshot(tournament)
    with pytest.raises(services.ConfirmationNeeded) as asked:
        services.assign_flights(tournament=tournament, flights={numbers[1]: "B"})
    assert "this moves 1 player to another flight" in str(asked.value)
    assert snapshot(tournament) == before
    # Naming nobody new asks nothing; confirmed, it moves them.
    services.assign_flights(tournament=tournament, flights={numbers[1]: "A"})
    services.assign_flights(tournament=tournament, flights={numbers[1]: "B"}, confirm=True)
    assert flights_of(tournament) == {"A": [2, 3], "B": [1, 4, 5, 6]}


@pytest.fixture
def flighted(tournament, as_organiser):
    """Two flights of four in a game that decides the placings, played and closed."""
    stage = qualifying_with_tables(tournament, [4, 4], decides_placings=True)
    numbers = {p.number: p.pk for p in tournament.players.all()}
    # Table 1 (badges 1-4) and table 2 (5-8): flight A is badges 1, 2, 5, 6.
    services.assign_flights(
        tournament=tournament,
        flights={pk: "A" if n in (1, 2, 5, 6) else "B" for n, pk in numbers.items()},
    )
    play_stage(stage, lambda seat, round_no: 7 * seat.position + seat.table.number + round_no)
    assert close(as_organiser, stage).status_code == 202
    return numbers


@pytest.mark.django_db(transaction=True)
def test_each_flight_is_placed_and_given_its_medals(tournament, flighted):
    """Each flight has its gold, silver and bronze by its own totals, and everyone keeps an
    overall place."""
    numbers = flighted
    placings = {
        p.player.number: (p.place, p.division.name, p.division_place, p.medal)
        for p in Placing.objects.filter(tournament=tournament).select_related("player", "division")
    }
    # Totals by seat k at table t: 2 * (7k + t) + 3, so the order is 1, 5, 2, 6, 3, 7, 4, 8.
    assert placings == {
        1: (1, "A", 1, "gold"), 5: (2, "A", 2, "silver"), 2: (3, "A", 3, "bronze"),
        6: (4, "A", 4, None), 3: (5, "B", 1, "gold"), 7: (6, "B", 2, "silver"),
        4: (7, "B", 3, "bronze"), 8: (8, "B", 4, None),
    }  # fmt: skip
    with pytest.raises(StateConflict) as refused:  # decided: the flights stay as they are
        services.assign_flights(tournament=tournament, flights={numbers[1]: "B"}, confirm=True)
    assert "decided the placings" in str(refused.value)


# ---- the console -------------------------------------------------------------------------


@pytest.fixture
def console(client, club_event):
    organiser = factories.StaffFactory(tournament=club_event, role="organiser").user
    client.force_login(organiser)
    return client


def divisions_page(client, tournament) -> str:
    return client.get(f"/t/{tournament.slug}/manage/divisions/").content.decode()


def test_the_console_splits_by_rating_and_says_what_it_did(console, club_event):
    page = divisions_page(console, club_event)
    assert ">Flights</h2>" in page and "No flights yet." in page
    assert 'name="confirm"' not in page  # nothing to confirm before rounds
    response = console.post(
        f"/t/{club_event.slug}/manage/divisions/flights/split/", {"count": "2"}, follow=True
    )
    page = response.content.decode()
    assert (
        "Changed the flight of 7 players by their club ratings (1 player with no rating yet "
        "counted as a newcomer). Flight A: 4, Flight B: 3." in page
    )
    assert flights_of(club_event) == {"A": [3, 4, 5, 6], "B": [1, 2, 7]}
    assert "Split again" in page and "Add a division" not in page


@pytest.mark.parametrize(
    ("count", "says"),
    [("1", "Ensure this value is greater than or equal to 2."),
     ("9", "9 flights for 7 players: a flight would have nobody."),
     ("", "This field is required.")],
)  # fmt: skip
def test_a_bad_number_of_flights_on_the_console_is_said_and_changes_nothing(
    console, club_event, count, says
):
    response = console.post(
        f"/t/{club_event.slug}/manage/divisions/flights/split/", {"count": count}
    )
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not club_event.divisions.exists()


def test_the_console_takes_the_organisers_list(console, club_event):
    ids = {p.number: p.pk for p in club_event.players.all()}
    body = {f"list-flight_{pk}": "Gold" if n <= 3 else "" for n, pk in ids.items()}
    response = console.post(
        f"/t/{club_event.slug}/manage/divisions/flights/list/", body, follow=True
    )
    assert "Changed the flight of 3 players. Flight Gold: 3." in response.content.decode()
    assert flights_of(club_event) == {"Gold": [1, 2, 3]}
    # The list shows each player's flight, to change.
    assert f'name="list-flight_{ids[1]}" id="id_list-flight_{ids[1]}" value="Gold"' in (
        divisions_page(console, club_event)
    )


def test_a_flight_name_too_long_on_the_console_is_said_and_changes_nothing(console, club_event):
    ids = {p.number: p.pk for p in club_event.players.all()}
    body = {f"list-flight_{ids[1]}": "A", f"list-flight_{ids[2]}": "x" * 81}
    response = console.post(f"/t/{club_event.slug}/manage/divisions/flights/list/", body)
    assert response.status_code == 400
    assert "Player 2: A flight&#x27;s name has at most 80 characters." in (
        response.content.decode()
    )
    assert not club_event.divisions.exists()


def test_after_rounds_a_resplit_on_the_console_asks_first(console, club_event):
    split_by_rating(tournament=club_event, count=2)
    stage = factories.StageFactory(tournament=club_event, order=1, status="seated")
    table = factories.TableFactory(stage=stage)
    factories.RoundResultFactory(stage=stage, table=table, round_no=1)
    assert 'name="confirm"' in divisions_page(console, club_event)
    before = snapshot(club_event)
    url = f"/t/{club_event.slug}/manage/divisions/flights/split/"
    asked = console.post(url, {"count": "3"})
    assert asked.status_code == 400
    assert "this moves 3 players to another flight" in asked.content.decode()
    assert snapshot(club_event) == before
    console.post(url, {"count": "3", "confirm": "on"})
    assert list(flights_of(club_event)) == ["A", "B", "C"]


def test_the_flights_are_removed_on_the_console_once_the_box_is_ticked(console, club_event):
    split_by_rating(tournament=club_event, count=2)
    url = f"/t/{club_event.slug}/manage/divisions/flights/remove/"
    unticked = console.post(url, follow=True)
    assert "Tick the box to remove the flights." in unticked.content.decode()
    assert len(flights_of(club_event)) == 2
    done = console.post(url, {"confirm": "on"}, follow=True)
    assert "Removed the flights: 7 players are in none now." in done.content.decode()
    assert not club_event.divisions.exists()


def test_a_tournament_with_divisions_offers_no_split(console, club_event):
    services.create_division(tournament=club_event, name="60-69")
    page = divisions_page(console, club_event)
    assert "remove the divisions above to play in flights" in page
    assert "Split into flights" not in page


def test_the_console_speaks_spanish(console, club_event):
    console.cookies["django_language"] = "es"
    page = divisions_page(console, club_event)
    assert ">Grupos</h2>" in page and "Repartir en grupos" in page


@pytest.mark.django_db(transaction=True)
def test_the_pages_show_each_flights_placings_and_medals(
    tournament, flighted, client, as_organiser
):
    slug = tournament.slug
    results = client.get(f"/en/t/{slug}/results/").content.decode()
    flight_b = results.split("Flight B</h2>")[1].split("</section>")[0]
    for medal, name in (("Gold", "Q3"), ("Silver", "Q7"), ("Bronze", "Q4")):
        assert medal in flight_b.split(f">{name}</a>")[0].rsplit("<tr>", 1)[1]
    assert "Flight A</h2>" in results and "Division" not in results
    assert '<th scope="col">Flight</th>' in results  # the overall placings' column
    standings = client.get(f"/en/t/{slug}/").content.decode()
    podium = standings.split('class="podium"')[1].split("</section>")[0]
    assert "Flight A" in podium and "Flight B" in podium
    flight_a = tournament.divisions.get(name="A")
    own = client.get(f"/en/t/{slug}/?division={flight_a.pk}").content.decode()
    assert ": flight A</h2>" in own and 'aria-label="Flights"' in own
    certificates = client.get(f"/en/t/{slug}/results/certificates/").content.decode()
    assert "Gold · 1st place in flight B" in certificates
    player = client.get(f"/en/t/{slug}/players/3/").content.decode()
    assert "In flight B: 1" in player and "Gold medal" in player
    export = as_organiser.get(f"/api/v1/tournaments/{slug}/exports/placings.csv")
    csv = b"".join(export.streaming_content).decode()
    assert "5,3,Q3,B,1,gold" in csv  # the division column names the flight
    spanish = client.get(f"/es/t/{slug}/results/").content.decode()
    assert "Grupo B</h2>" in spanish


# ---- the API ------------------------------------------------------------------------------


@pytest.fixture
def api(club_event):
    from tests.conftest import client_for

    return client_for(factories.StaffFactory(tournament=club_event, role="organiser").user)


def test_the_api_splits_by_rating_and_anyone_reads_the_flights(api, club_event, anon):
    url = f"/api/v1/tournaments/{club_event.slug}/flights/"
    response = api.post(url, {"by": "rating", "count": 2}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["moved"] == 7 and body["ranked_by"] == "rating"
    assert [(f["name"], f["players"]) for f in body["flights"]] == [
        ("A", [3, 4, 5, 6]), ("B", [1, 2, 7]),
    ]  # fmt: skip
    assert anon.get(url).json() == body["flights"]
    divisions = anon.get(f"/api/v1/tournaments/{club_event.slug}/divisions/").json()
    assert [(d["name"], d["flight"]) for d in divisions] == [("A", True), ("B", True)]
    refused = api.post(
        f"/api/v1/tournaments/{club_event.slug}/divisions/", {"name": "60-69"}, format="json"
    )
    assert refused.status_code == 409 and "plays in flights" in refused.json()["detail"]


def test_the_api_takes_a_list_by_badge_number(api, club_event):
    url = f"/api/v1/tournaments/{club_event.slug}/flights/"
    response = api.post(
        url, {"by": "list", "flights": {"1": "Gold", "2": "Gold", "3": None}}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["ranked_by"] is None
    assert flights_of(club_event) == {"Gold": [1, 2]}


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"by": "list", "flights": {"1": "A", "99": "B"}}, "flights",
         "has no player with the badge number 99."),
        ({"by": "list", "flights": {"1": ""}}, "non_field_errors",
         "Player 1: A flight needs a name."),
        ({"by": "rating", "count": 8}, "count",
         "8 flights for 7 players: a flight would have nobody."),
        ({"by": "rating"}, "count", "Say how many flights."),
        ({"by": "list"}, "flights", "Name at least one player's flight."),
        ({"by": "seeding", "count": 2}, "by", "is not a valid choice."),
        ({"by": "rating", "count": 2, "size": 4}, "size", ""),
    ],
)  # fmt: skip
def test_a_bad_api_body_is_refused_by_field_and_changes_nothing(api, club_event, body, field, says):
    response = api.post(f"/api/v1/tournaments/{club_event.slug}/flights/", body, format="json")
    assert response.status_code == 400, response.json()
    assert says in " ".join(response.json()[field])
    assert not club_event.divisions.exists()


def test_after_rounds_the_api_asks_for_confirm_then_removes(api, club_event):
    url = f"/api/v1/tournaments/{club_event.slug}/flights/"
    api.post(url, {"by": "rating", "count": 2}, format="json")
    stage = factories.StageFactory(tournament=club_event, order=1, status="seated")
    factories.RoundResultFactory(stage=stage, table=factories.TableFactory(stage=stage))
    asked = api.post(url, {"by": "rating", "count": 3}, format="json")
    assert asked.status_code == 409 and "Confirm to go ahead" in asked.json()["detail"]
    assert api.delete(url).status_code == 409
    assert (
        api.post(url, {"by": "rating", "count": 3, "confirm": True}, format="json").json()["moved"]
        == 3
    )
    assert api.delete(f"{url}?confirm=true").status_code == 204
    assert not club_event.divisions.exists()


def test_the_players_list_names_the_flights_and_shows_one_at_a_time(console, club_event):
    split_by_rating(tournament=club_event, count=2)
    flight_b = club_event.divisions.get(name="B")
    page = console.get(f"/t/{club_event.slug}/manage/?division={flight_b.pk}").content.decode()
    assert '<th scope="col">Flight</th>' in page and "every flight" in page
    assert "no flight" in page and 'data-label="Flight"' in page
    listed = page.split('class="players stacked"')[1].split("</table>")[0]
    assert listed.count('<tr id="player-') == 3  # flight B: badges 1, 2 and 7
