"""The season ladder's ranking (clubs.ladder), without a database: each rule, its tie-breaks
broken and shared and the notes that say so, min rounds, and the rules it refuses."""

from fractions import Fraction

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from clubs.ladder import (
    AVERAGE,
    BEST_N,
    EVERYONE,
    MEMBERS,
    POINTS,
    Entrant,
    Played,
    Rule,
    check_rule,
    notes_text,
    places_among_members,
    rank,
    rule_words,
)

TABLE = (10, 8, 6, 5, 4, 3, 2, 1)
NAMES = {1: "Ann Lee", 2: "Bob Ortiz", 3: "Cy Park", 4: "Di Nash", 5: "Ed Hughes"}


def entrant(member_id: int, *played: tuple) -> Entrant:
    return Entrant(member_id, NAMES[member_id], tuple(Played(*p) for p in played))


def table(lines) -> list[tuple]:
    """(place, shared, name, value) of each line, in order."""
    return [(line.place, line.shared, line.name, line.value) for line in lines]


def notes(line) -> str:
    with translation.override("en"):
        return notes_text(line.notes, NAMES)


# ---- points --------------------------------------------------------------------------------------


def test_points_rank_the_highest_first_and_a_place_beyond_the_table_scores_nothing():
    rule = Rule(POINTS, events=(1, 2), points_table=(10, 8, 6))
    lines = rank(
        [
            entrant(1, (1, 2, 4, 40), (2, 4, 4, 60)),  # 8 + 0
            entrant(2, (1, 1, 4, 20), (2, 3, 4, 50)),  # 10 + 6
            entrant(3, (2, 5, 1, 30)),  # 5th: beyond the table, 0
        ],
        rule,
    )
    assert table(lines) == [
        (1, False, "Bob Ortiz", 16),
        (2, False, "Ann Lee", 8),
        (3, False, "Cy Park", 0),
    ]
    assert [line.events for line in lines] == [2, 2, 1]
    assert all(line.notes == [] for line in lines)  # no tie: nothing to explain


def test_an_event_that_placed_a_member_nowhere_counts_no_event_and_no_round():
    # The row said "Events 2, Rounds 8" for a member whose second event had not placed them.
    rule = Rule(AVERAGE, events=(1, 2))
    ann = entrant(1, (1, 1, 4, 20), (2, None, 4, 80))
    cy = entrant(3, (2, None, 4, 10))  # nothing placed: not on the ladder
    lines = rank([ann, cy], rule)
    assert [(line.name, line.events, line.rounds, line.pips) for line in lines] == [
        ("Ann Lee", 1, 4, 20)
    ]
    assert lines[0].value == 5


def test_members_with_no_points_share_the_place_after_those_who_scored_with_no_note():
    # Every 0-point row read "Ahead of ...: more 9th places (1 to 0)": nothing won, nothing to
    # break a tie on.
    rule = Rule(POINTS, events=(1, 2), points_table=(10, 8))
    ann = entrant(1, (1, 1, 4, 20))
    bob = entrant(2, (1, 3, 4, 30), (2, 3, 4, 30))  # two 3rd places: 0
    cy = entrant(3, (1, 4, 4, 10))  # a 4th place, a better average: still 0
    di = entrant(4, (2, 2, 4, 40))
    lines = rank([ann, bob, cy, di], rule)
    assert table(lines) == [
        (1, False, "Ann Lee", 10),
        (2, False, "Di Nash", 8),
        (3, True, "Bob Ortiz", 0),
        (3, True, "Cy Park", 0),
    ]
    assert [line.notes for line in lines] == [[], [], [], []]
    assert [line.events for line in lines] == [1, 1, 2, 1]


# ---- places among members ------------------------------------------------------------------------


def test_places_among_members_leave_the_guests_out():
    # A guest won the night and two more came 2nd and 3rd: the club's best member was 4th of
    # the night, 1st among members.
    ann = entrant(1, (1, 4, 4, 30))
    bob = entrant(2, (1, 6, 4, 50))
    cy = entrant(3, (1, 6, 4, 50))  # level with Bob
    di = entrant(4, (1, 9, 4, 80))
    rule = Rule(POINTS, events=(1,), points_table=(10, 8, 6, 5), places=MEMBERS)
    lines = rank([ann, bob, cy, di], rule)
    assert table(lines) == [
        (1, False, "Ann Lee", 10),
        (2, True, "Bob Ortiz", 8),
        (2, True, "Cy Park", 8),
        (4, False, "Di Nash", 5),
    ]
    everyone = rank([ann, bob, cy, di], Rule(POINTS, events=(1,), points_table=(10, 8, 6, 5)))
    assert [line.value for line in everyone] == [5, 0, 0, 0]


def test_places_among_members_count_ties_on_places_among_members_too():
    rule = Rule(POINTS, events=(1, 2), points_table=(10, 8, 6), places=MEMBERS)
    ann = entrant(1, (1, 3, 4, 20), (2, 7, 4, 40))  # 1st of the members, then 2nd
    bob = entrant(2, (1, 5, 4, 20), (2, 2, 4, 40))  # 2nd, then 1st
    lines = rank([ann, bob], rule)
    assert [line.value for line in lines] == [18, 18]
    assert notes(lines[0]).startswith("Shares 1st place with")


def test_places_among_members_and_an_unknown_choice_is_refused():
    with pytest.raises(ValidationError) as refused:
        check_rule(Rule(POINTS, events=(1,), points_table=TABLE, places="guests"))
    assert "places" in refused.value.message_dict


@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 10)), st.booleans()), max_size=12))
def test_places_among_members_keep_the_order_and_count_those_strictly_ahead(field):
    # An event's places are a competition ranking of everyone who played (members and guests,
    # by score, lowest first; None: not placed): the members' places are some of them.
    scores = [score for score, _member in field if score is not None]
    places = [
        None if score is None else 1 + sum(other < score for other in scores)
        for score, member in field
        if member
    ]
    entrants = [Entrant(i, f"M{i}", (Played(1, place),)) for i, place in enumerate(places)]
    among = [e.played[0].place for e in places_among_members(entrants)]
    for mine, theirs in zip(places, among, strict=True):
        if mine is None:
            assert theirs is None
            continue
        assert theirs == 1 + sum(other is not None and other < mine for other in places)
        assert 1 <= theirs <= sum(p is not None for p in places) and theirs <= mine


def test_points_tie_is_broken_on_first_places_and_both_are_told():
    rule = Rule(POINTS, events=(1, 2, 3), points_table=TABLE)
    ann = entrant(1, (1, 1, 4, 30), (2, 4, 4, 40), (3, 4, 4, 40))  # 10 + 5 + 5 = 20
    bob = entrant(2, (1, 2, 4, 10), (2, 2, 4, 10), (3, 7, 4, 10))  # 8 + 8 + 2 = 18
    cy = entrant(3, (1, 3, 4, 10), (2, 3, 4, 10), (3, 1, 4, 10))  # 6 + 6 + 10 = 22
    di = entrant(4, (1, 2, 4, 30), (2, 1, 4, 30), (3, 8, 4, 30))  # 8 + 10 + 1 = 19
    ed = entrant(5, (1, 4, 4, 30), (2, 5, 4, 30), (3, 1, 4, 30))  # 5 + 4 + 10 = 19
    lines = rank([ann, bob, cy, di, ed], rule)
    assert table(lines)[:1] == [(1, False, "Cy Park", 22)]
    assert [line.name for line in lines] == [
        "Cy Park",
        "Ann Lee",
        "Di Nash",
        "Ed Hughes",
        "Bob Ortiz",
    ]
    # Di and Ed: 19 each, one 1st place each; Di has a 2nd place, Ed none.
    di_line, ed_line = lines[2], lines[3]
    assert (di_line.place, ed_line.place) == (3, 4)
    assert notes(di_line) == "Ahead of Ed Hughes: more 2nd places (1 to 0)."
    assert notes(ed_line) == "Behind Di Nash: fewer 2nd places (0 to 1)."


def test_points_tie_on_places_is_broken_on_the_average_per_round():
    rule = Rule(POINTS, events=(1, 2), points_table=TABLE)
    ann = entrant(1, (1, 1, 4, 30))  # 10, average 7.5
    bob = entrant(2, (2, 1, 4, 20))  # 10, average 5
    lines = rank([ann, bob], rule)
    assert table(lines) == [(1, False, "Bob Ortiz", 10), (2, False, "Ann Lee", 10)]
    assert notes(lines[0]) == "Ahead of Ann Lee: lower average per round (5.00 to 7.50)."
    assert notes(lines[1]) == "Behind Bob Ortiz: higher average per round (7.50 to 5.00)."


def test_points_still_equal_share_the_place_and_the_next_place_is_skipped():
    rule = Rule(POINTS, events=(1, 2), points_table=TABLE)
    ann = entrant(1, (1, 1, 4, 20))
    bob = entrant(2, (2, 1, 4, 20))
    cy = entrant(3, (1, 2, 4, 10), (2, 2, 4, 10))  # 16: first alone
    di = entrant(4, (1, 3, 4, 10))
    lines = rank([ann, bob, cy, di], rule)
    assert table(lines) == [
        (1, False, "Cy Park", 16),
        (2, True, "Ann Lee", 10),
        (2, True, "Bob Ortiz", 10),
        (4, False, "Di Nash", 6),
    ]
    assert notes(lines[1]) == (
        "Shares 2nd place with Bob Ortiz: equal on points, places and average per round."
    )
    assert notes(lines[2]) == (
        "Shares 2nd place with Ann Lee: equal on points, places and average per round."
    )
    assert notes(lines[0]) == "" and notes(lines[3]) == ""


def test_a_shared_place_behind_a_broken_tie_says_both():
    rule = Rule(POINTS, events=(1, 2, 3), points_table=(10, 5))
    ann = entrant(1, (1, 1, 2, 10))  # 10 with a win
    bob = entrant(2, (1, 2, 2, 10), (2, 2, 2, 10))  # 10 from two 2nd places
    cy = entrant(3, (2, 2, 2, 10), (3, 2, 2, 10))  # the same as Bob
    lines = rank([ann, bob, cy], rule)
    assert table(lines) == [
        (1, False, "Ann Lee", 10),
        (2, True, "Bob Ortiz", 10),
        (2, True, "Cy Park", 10),
    ]
    assert notes(lines[0]) == "Ahead of Bob Ortiz and Cy Park: more 1st places (1 to 0)."
    assert notes(lines[1]) == (
        "Behind Ann Lee: fewer 1st places (0 to 1). Shares 2nd place with Cy Park: equal on "
        "points, places and average per round."
    )


def test_notes_read_in_spanish():
    rule = Rule(POINTS, events=(1, 2), points_table=TABLE)
    lines = rank([entrant(1, (1, 1, 4, 20)), entrant(2, (2, 1, 4, 20))], rule)
    with translation.override("es"):
        text = notes_text(lines[0].notes, NAMES)
        assert "1.er" in text and "Bob Ortiz" in text  # the place as Spanish writes it


# ---- best N of M ---------------------------------------------------------------------------------


def test_best_n_counts_each_members_best_events_only():
    rule = Rule(BEST_N, events=(1, 2, 3, 4), points_table=TABLE, best_n=2)
    ann = entrant(1, (1, 1, 4, 20), (2, 8, 4, 20), (3, 2, 4, 20), (4, 5, 4, 20))  # 10 + 8
    bob = entrant(2, (1, 2, 4, 20), (2, 2, 4, 20), (3, 3, 4, 20))  # 8 + 8 (not 6)
    cy = entrant(3, (4, 1, 4, 20))  # one event: 10
    lines = rank([ann, bob, cy], rule)
    assert table(lines) == [
        (1, False, "Ann Lee", 18),
        (2, False, "Bob Ortiz", 16),
        (3, False, "Cy Park", 10),
    ]
    assert lines[0].counted == (1, 3) and lines[0].events == 4
    assert lines[1].counted == (1, 2)  # equal events: the earlier one
    assert lines[2].counted == (4,)


def test_best_n_ties_count_places_in_the_counted_events_only():
    rule = Rule(BEST_N, events=(1, 2, 3), points_table=(10, 8, 6), best_n=1)
    ann = entrant(1, (1, 1, 4, 40), (2, 2, 4, 40))  # best: a win (10)
    bob = entrant(2, (1, 1, 4, 10), (2, 1, 4, 10))  # best: a win; the other win not counted
    lines = rank([ann, bob], rule)
    # On the counted events both have one 1st place: the average decides (all events played).
    assert [line.name for line in lines] == ["Bob Ortiz", "Ann Lee"]
    assert notes(lines[0]) == "Ahead of Ann Lee: lower average per round (2.50 to 10.00)."


def test_best_n_above_the_seasons_events_is_refused_clearly():
    rule = Rule(BEST_N, events=(1, 2, 3), points_table=TABLE, best_n=4)
    with pytest.raises(ValidationError) as refused, translation.override("en"):
        rank([entrant(1, (1, 1, 4, 20))], rule)
    assert refused.value.message_dict == {
        "best_n": ["Best 4 of 3 events: N cannot be more than the season's 3 events."]
    }


def test_best_n_of_zero_or_none_is_refused():
    for best_n in (None, 0):
        with pytest.raises(ValidationError) as refused:
            check_rule(Rule(BEST_N, events=(1,), points_table=TABLE, best_n=best_n))
        assert "best_n" in refused.value.message_dict


# ---- lowest average ------------------------------------------------------------------------------


def test_average_ranks_the_lowest_first_and_lists_those_short_of_min_rounds_after():
    rule = Rule(AVERAGE, events=(1, 2), min_rounds=8)
    ann = entrant(1, (1, 2, 4, 40), (2, 1, 4, 24))  # 64 / 8 = 8
    bob = entrant(2, (1, 1, 4, 10), (2, 3, 5, 35))  # 45 / 9 = 5
    cy = entrant(3, (1, 3, 3, 3))  # 3 rounds: needs 5 more
    di = entrant(4, (2, 4, 1, 0))  # 1 round: needs 7 more
    lines = rank([ann, bob, cy, di], rule)
    assert table(lines) == [
        (1, False, "Bob Ortiz", 5),
        (2, False, "Ann Lee", 8),
        (None, False, "Cy Park", 1),
        (None, False, "Di Nash", 0),
    ]
    assert notes(lines[2]) == "Not ranked: needs 5 more rounds."
    assert notes(lines[3]) == "Not ranked: needs 7 more rounds."
    assert (lines[0].rounds, lines[0].pips) == (9, 45)


def test_average_tie_is_broken_on_places_before_rounds_played():
    # The rule's words (and the guide) say places first: a better night beats more nights.
    rule = Rule(AVERAGE, events=(1, 2))
    ann = entrant(1, (1, 1, 4, 20))  # 5 over 4 rounds, a 1st place
    bob = entrant(2, (1, 2, 4, 20), (2, 2, 4, 20))  # 5 over 8 rounds, two 2nd places
    lines = rank([ann, bob], rule)
    assert [(line.place, line.name) for line in lines] == [(1, "Ann Lee"), (2, "Bob Ortiz")]
    assert notes(lines[0]) == "Ahead of Bob Ortiz: more 1st places (1 to 0)."


def test_average_tie_on_places_is_broken_on_more_rounds_then_shared():
    rule = Rule(AVERAGE, events=(1, 2))
    ann = entrant(1, (1, 2, 4, 20))  # 5 over 4 rounds
    bob = entrant(2, (1, 2, 8, 40))  # 5 over 8 rounds, the same 2nd place: ahead
    cy = entrant(3, (2, 2, 4, 20))  # as Ann: a 2nd place, 4 rounds, 5
    lines = rank([ann, bob, cy], rule)
    assert table(lines) == [
        (1, False, "Bob Ortiz", 5),
        (2, True, "Ann Lee", 5),
        (2, True, "Cy Park", 5),
    ]
    assert notes(lines[0]) == "Ahead of Ann Lee and Cy Park: more rounds played (8 to 4)."
    assert notes(lines[2]) == (
        "Behind Bob Ortiz: fewer rounds played (4 to 8). Shares 2nd place with Ann Lee: equal "
        "on average per round, places and rounds played."
    )


def test_average_with_no_minimum_still_needs_a_round():
    lines = rank([entrant(1, (1, 1, 0, 0))], Rule(AVERAGE, events=(1,)))
    assert lines[0].place is None and notes(lines[0]) == "Not ranked: needs 1 more round."


# ---- rules refused, words ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [POINTS, BEST_N, AVERAGE])
def test_a_rule_with_no_events_is_refused(kind):
    with pytest.raises(ValidationError) as refused, translation.override("en"):
        rank([], Rule(kind, events=(), points_table=TABLE, best_n=1))
    assert refused.value.message_dict["events"] == [
        "The season counts no events yet: choose at least one of the club's tournaments for it "
        "to count."
    ]


def test_points_need_a_table_of_points_not_negative():
    with pytest.raises(ValidationError) as empty:
        check_rule(Rule(POINTS, events=(1,)))
    with pytest.raises(ValidationError) as negative:
        check_rule(Rule(POINTS, events=(1,), points_table=(10, -1)))
    assert "points_table" in empty.value.message_dict
    assert negative.value.message_dict["points_table"] == ["Points cannot be negative."]


def test_the_rule_in_words():
    with translation.override("en"):
        words = rule_words(Rule(BEST_N, events=(1, 2, 3), points_table=(10, 8, 6), best_n=2))
        average = rule_words(Rule(AVERAGE, events=(1,), min_rounds=12))
    assert "10, 8, 6 for 1st, 2nd, 3rd" in words
    assert "best 2 events of the season's 3 count" in words
    assert "a member needs 12 rounds to be ranked" in average
    assert words.endswith("Each event's places are its own, guests included.")
    with translation.override("en"):
        members = rule_words(Rule(POINTS, events=(1,), points_table=(3, 1), places=MEMBERS))
    assert "Members with no points share the place after those who scored." in members
    assert "places are counted among the club's members who played it" in members


# ---- properties ----------------------------------------------------------------------------------


@st.composite
def seasons(draw: st.DrawFn) -> tuple[list[Entrant], Rule]:
    events = tuple(range(1, draw(st.integers(1, 5)) + 1))
    kind = draw(st.sampled_from([POINTS, BEST_N, AVERAGE]))
    rule = Rule(
        kind,
        events=events,
        points_table=tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))),
        best_n=draw(st.integers(1, len(events))),
        min_rounds=draw(st.integers(0, 6)),
        places=draw(st.sampled_from([MEMBERS, EVERYONE])),
    )
    entrants = []
    for member_id in draw(st.sets(st.integers(1, 40), max_size=10)):
        played = draw(st.lists(st.sampled_from(events), unique=True))
        entrants.append(
            Entrant(
                member_id,
                f"M{member_id}",
                tuple(
                    Played(
                        event_id,
                        draw(st.one_of(st.none(), st.integers(1, 4))),
                        rounds := draw(st.integers(0, 3)),
                        draw(st.integers(0, 3)) * rounds,
                    )
                    for event_id in played
                ),
            )
        )
    return entrants, rule


@settings(max_examples=300)
@given(seasons())
def test_the_ladder_is_a_permutation_ranked_in_order_with_shared_places_equal(season):
    entrants, rule = season
    lines = rank(entrants, rule)
    # Everyone an event of the season placed, once.
    placed = [e.member_id for e in entrants if any(p.place is not None for p in e.played)]
    assert sorted(line.member_id for line in lines) == sorted(placed)
    ranked = [line for line in lines if line.place is not None]
    assert lines[: len(ranked)] == ranked  # the unranked come last
    assert [line.place for line in ranked] == sorted(line.place for line in ranked)
    for index, line in enumerate(ranked):
        # A place is 1 + the number ahead of it (1, 2=, 2=, 4).
        assert line.place == 1 + sum(other.place < line.place for other in ranked)
        sharing = [o for o in ranked if o.place == line.place and o is not line]
        assert line.shared == bool(sharing)
        assert all(o.value == line.value for o in sharing)
        if index:  # the value never gets better down the ladder
            before = ranked[index - 1].value
            assert before <= line.value if rule.kind == AVERAGE else before >= line.value
    names = {e.member_id: e.name for e in entrants}
    for line in lines:
        equal = [o for o in ranked if o is not line and o.value == line.value]
        # Every tie on the value is explained; a line with no tie needs no note, nor one with
        # no points (all of those share one place).
        no_points = rule.kind != AVERAGE and line.value == 0
        if line.place is not None:
            assert bool(line.notes) == (bool(equal) and not no_points)
        if no_points:
            assert all(o.place == line.place for o in equal)
        assert "?" not in notes_text(line.notes, names)


@settings(max_examples=100)
@given(seasons())
def test_the_ladder_does_not_depend_on_the_order_entrants_come_in(season):
    entrants, rule = season
    forward = rank(entrants, rule)
    backward = rank(list(reversed(entrants)), rule)
    assert [(line.member_id, line.place, line.notes) for line in forward] == [
        (line.member_id, line.place, line.notes) for line in backward
    ]


def test_values_are_exact():
    lines = rank([entrant(1, (1, 1, 3, 10))], Rule(AVERAGE, events=(1,)))
    assert lines[0].value == Fraction(10, 3)
    assert str(lines[0].value_decimal) == "3.333"
