"""A rally's chapter points, no database: places by the table, ties splitting the places they
cover, guests scoring for nobody, undecided events giving nothing, and the chapters ranked."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from rallies.points import EventPlaces, most_points, place_points, points_text, standings

TABLE = (10, 8, 6, 5, 4, 3, 2, 1)


def competition_places(draw_ranks: list[int]) -> list[int]:
    """Places as the placings give them (1, 2, 2, 4) from ranks in any order."""
    ordered = sorted(draw_ranks)
    return [1 + sum(1 for other in ordered if other < rank) for rank in draw_ranks]


@st.composite
def event_places(draw):
    ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=20))
    return dict(enumerate(competition_places(ranks)))


def test_each_place_scores_the_tables_points_and_a_place_beyond_it_none():
    points = place_points({"a": 1, "b": 2, "c": 3, "z": 9}, TABLE)
    assert points == {"a": 10, "b": 8, "c": 6, "z": 0}


def test_two_tied_for_second_share_the_points_of_second_and_third():
    points = place_points({"a": 1, "b": 2, "c": 2, "d": 4}, TABLE)
    assert points == {"a": 10, "b": 7, "c": 7, "d": 5}


def test_three_tied_at_the_tables_end_share_what_is_left_of_it():
    points = place_points({"a": 7, "b": 7, "c": 7}, TABLE)
    assert points == {p: Fraction(3, 3) for p in "abc"}  # (2 + 1 + 0) / 3


@given(event_places(), st.lists(st.integers(0, 50), min_size=1, max_size=10))
def test_an_events_players_together_score_what_its_places_are_worth_tied_or_not(places, table):
    total = sum(place_points(places, table).values())
    assert total == sum(table[: len(places)])


@given(event_places())
def test_a_better_place_never_scores_fewer_points(places):
    points = place_points(places, TABLE)
    for a in places:
        for b in places:
            if places[a] < places[b]:
                assert points[a] >= points[b]


@given(st.lists(event_places(), min_size=1, max_size=4), st.data())
def test_the_chapters_totals_are_their_players_points_and_guests_count_for_none(events, data):
    chapters = ["North", "South"]
    given_events = []
    expected = {"North": Fraction(0), "South": Fraction(0)}
    for n, places in enumerate(events):
        named = {
            player: (place, data.draw(st.sampled_from(["North", "south ", None, "Elsewhere"])))
            for player, place in places.items()
        }
        given_events.append(EventPlaces(n, True, named))
        points = place_points(places, TABLE)
        for player, (_place, chapter) in named.items():
            if chapter and chapter.strip().casefold() in ("north", "south"):
                expected[chapter.strip().capitalize()] += points[player]
    lines = standings(chapters, given_events, TABLE)
    assert {line.name: line.total for line in lines} == expected
    assert [line.total for line in lines] == sorted(expected.values(), reverse=True)


def test_an_event_not_decided_gives_no_points_yet():
    decided = EventPlaces(1, True, {"a": (1, "North")})
    playing = EventPlaces(2, False, {"b": (1, "South")})
    lines = standings(["North", "South"], [decided, playing], TABLE)
    assert [(line.name, line.total, line.by_event) for line in lines] == [
        ("North", 10, {1: 10}),
        ("South", 0, {1: 0}),  # no points in the decided event, none from the other
    ]


def test_equal_chapters_share_the_place_and_both_have_most_points():
    events = [EventPlaces(1, True, {"a": (1, "North"), "b": (1, "South"), "c": (3, None)})]
    lines = standings(["North", "South"], events, TABLE)
    assert [(line.place, line.shared, line.total) for line in lines] == [
        (1, True, 9),
        (1, True, 9),
    ]
    assert most_points(lines) == ["North", "South"]


def test_no_chapter_has_most_points_while_none_has_a_point():
    lines = standings(["North", "South"], [EventPlaces(1, True, {"a": (1, None)})], TABLE)
    assert most_points(lines) == []


def test_points_are_said_with_two_decimals_at_most():
    assert [points_text(v) for v in (Fraction(7), Fraction(15, 2), Fraction(10, 3))] == [
        "7",
        "7.5",
        "3.33",
    ]
