import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from clubs.rating import (
    EMPTY,
    PROVISIONAL_ROUNDS,
    NoRatingYet,
    RoundKey,
    RoundOutOfOrder,
    TableRound,
    rate,
    rating_of,
    recompute_from,
    series_of,
    update,
)

DAY = datetime.date(2026, 1, 3)


def key(event: int, round_no: int = 1, table: int = 1, stage: int = 1) -> RoundKey:
    # Two events share each date: the event id orders them.
    return RoundKey(DAY + datetime.timedelta(days=7 * (event // 2)), event, stage, round_no, table)


@st.composite
def histories(draw: st.DrawFn) -> list[TableRound]:
    """A random club history: events of one or two stages of a few rounds, tables of 2 to 8
    members drawn from a small club, pips 0 to 150 (ties likely among few values)."""
    members = draw(st.integers(8, 14))
    pips = st.one_of(st.integers(0, 150), st.sampled_from([0, 5, 10]))
    history = []
    for event in range(draw(st.integers(1, 5))):
        for stage in range(1, draw(st.integers(1, 2)) + 1):
            for round_no in range(1, draw(st.integers(1, 3)) + 1):
                for table in range(1, draw(st.integers(1, 3)) + 1):
                    size = draw(st.integers(2, 8))
                    seated = draw(st.permutations(range(1, members + 1)))[:size]
                    results = tuple((m, draw(pips)) for m in seated)
                    history.append(TableRound(key(event, round_no, table, stage), results))
    return history


# ---------------------------------------------------------------- reproducibility


@settings(max_examples=60, deadline=None)
@given(history=histories(), data=st.data())
def test_update_event_by_event_equals_rate_of_the_whole(history, data):
    whole = rate(history)

    state = EMPTY
    for event in sorted({r.key.event for r in history}):
        state = update(state, [r for r in history if r.key.event == event])
    assert state == whole  # exact: float for float, every point of every series

    # Any other batching, the rounds given in any order within a batch, the same floats.
    shuffled = data.draw(st.permutations(history))
    cuts = []
    if len(history) > 1:
        cuts = sorted(data.draw(st.sets(st.integers(1, len(history) - 1), max_size=4)))
    ordered = sorted(history, key=lambda r: r.key)
    state = EMPTY
    for start, end in zip([0, *cuts], [*cuts, len(history)], strict=True):
        batch = ordered[start:end]
        state = update(state, [r for r in shuffled if r in batch])
    assert state == whole


@settings(max_examples=60, deadline=None)
@given(history=histories(), data=st.data())
def test_recompute_from_a_correction_equals_a_full_recompute(history, data):
    old = rate(history)
    index = data.draw(st.integers(0, len(history) - 1))
    wrong = history[index]
    # The table's winner (or a tied winner) becomes its lone last: the ranking changes.
    member, _ = wrong.results[0]
    worst = wrong.results[-1][1]
    fixed_results = tuple((m, worst + 1 if m == member else p) for m, p in wrong.results)
    corrected = [*history[:index], TableRound(wrong.key, fixed_results), *history[index + 1 :]]

    new = recompute_from(old, corrected, wrong.key)

    assert new == rate(corrected)
    # Before the corrected event nothing moves; from it on, the corrected member does.
    for member_id, points in old.series.items():
        before = [p for p in points if p.event < wrong.key.event]
        assert [p for p in new.series.get(member_id, ()) if p.event < wrong.key.event] == before
    assert rating_of(new, member) != rating_of(old, member)
    assert new.last_key == old.last_key


def test_recompute_from_keeps_members_who_only_played_earlier_and_drops_none():
    history = [
        TableRound(key(0), ((1, 10), (2, 20))),
        TableRound(key(1), ((3, 10), (4, 20))),
        TableRound(key(2), ((1, 5), (3, 6))),
    ]
    old = rate(history)
    corrected = [*history[:1], TableRound(key(1), ((3, 30), (4, 20))), history[2]]
    new = recompute_from(old, corrected, key(1))
    assert new == rate(corrected)
    assert series_of(new, 2) == series_of(old, 2)  # played only before the correction
    assert rating_of(new, 4).mu > rating_of(old, 4).mu  # lost, now won


def test_update_refuses_a_round_at_or_before_the_last_one():
    state = rate([TableRound(key(1, round_no=2), ((1, 10), (2, 20)))])
    for late in (key(1, round_no=2), key(1, round_no=1), key(0, round_no=9)):
        with pytest.raises(RoundOutOfOrder, match="recompute_from"):
            update(state, [TableRound(late, ((1, 10), (2, 20)))])
    assert state == rate([TableRound(key(1, round_no=2), ((1, 10), (2, 20)))])


def test_update_refuses_the_same_round_twice():
    with pytest.raises(ValueError, match="given twice"):
        rate([TableRound(key(0), ((1, 10), (2, 20))), TableRound(key(0), ((3, 1), (4, 2)))])


# ---------------------------------------------------------------- against openskill itself


def test_a_small_history_matches_openskill_called_directly():
    history = [
        TableRound(key(0, 1), ((1, 35), (2, 0), (3, 12), (4, 80))),
        TableRound(key(0, 2), ((1, 3), (2, 40), (3, 40))),  # 2 and 3 tie
        TableRound(key(1, 1), ((4, 0), (1, 55), (5, 21), (2, 9), (3, 9))),  # 2 and 3 tie again
    ]
    model = PlackettLuce()
    players = {m: model.rating() for m in range(1, 6)}

    def play(order: list[int], ranks: list[int]) -> None:
        rated = model.rate([[players[m]] for m in order], ranks=ranks)
        for m, (rating,) in zip(order, rated, strict=True):
            players[m] = rating

    play([2, 3, 1, 4], [1, 2, 3, 4])
    play([1, 2, 3], [1, 2, 2])
    play([4, 2, 3, 5, 1], [1, 2, 2, 4, 5])

    state = rate(history)
    for m, expected in players.items():
        got = rating_of(state, m)
        assert (got.mu, got.sigma) == (expected.mu, expected.sigma)
    assert rating_of(state, 2).rounds == 3 and rating_of(state, 5).rounds == 1
    # The winner of the first round went up, its last went down, from openskill's prior.
    first = rate(history[:1])
    assert rating_of(first, 2).mu > 25 > rating_of(first, 4).mu


def test_ties_share_a_rank_and_the_same_change():
    table_round = TableRound(key(0), ((7, 10), (8, 0), (9, 10), (6, 25)))
    assert table_round.results == ((8, 0), (7, 10), (9, 10), (6, 25))
    assert table_round.ranks == [1, 2, 2, 4]
    assert TableRound(key(0), ((1, 4), (2, 4))).ranks == [1, 1]

    state = rate([table_round])
    assert rating_of(state, 7).mu == rating_of(state, 9).mu
    assert rating_of(state, 8).mu > rating_of(state, 7).mu > rating_of(state, 6).mu


@settings(max_examples=40, deadline=None)
@given(history=histories(), data=st.data())
def test_seat_order_does_not_change_a_rating(history, data):
    reseated = [TableRound(r.key, data.draw(st.permutations(r.results))) for r in history]
    assert reseated == history  # the same results, kept in one order
    assert rate(reseated) == rate(history)


@pytest.mark.parametrize(
    ("results", "message"),
    [
        (((1, 10),), "two players"),
        (((1, 10), (1, 20)), "more than once"),
        (((1, 10), (2, -1)), "negative"),
    ],
)
def test_a_table_round_refuses_bad_results(results, message):
    with pytest.raises(ValueError, match=message):
        TableRound(key(0), results)


# ---------------------------------------------------------------- reading a rating


def test_rating_of_a_member_with_no_rounds_is_a_clear_error_that_changes_nothing():
    state = rate([TableRound(key(0), ((1, 10), (2, 20)))])
    before = dict(state.series)
    with pytest.raises(NoRatingYet, match="Member 42 has no rated rounds") as raised:
        rating_of(state, 42)
    assert raised.value.member_id == 42
    assert isinstance(raised.value, ValueError)
    assert 42 not in state and state.series == before
    with pytest.raises(NoRatingYet):
        rating_of(EMPTY, 1)


def test_a_rating_is_provisional_below_the_threshold_of_rounds():
    history = [
        TableRound(key(0, round_no=n), ((1, n % 7), (2, 3))) for n in range(1, PROVISIONAL_ROUNDS)
    ]
    state = rate(history)
    assert rating_of(state, 1).rounds == PROVISIONAL_ROUNDS - 1
    assert rating_of(state, 1).provisional
    last = TableRound(key(1), ((1, 0), (2, 3)))
    state = update(state, [last])
    assert rating_of(state, 1).rounds == PROVISIONAL_ROUNDS
    assert not rating_of(state, 1).provisional


def test_the_series_has_a_point_per_event_played_with_its_ordinal():
    history = [
        TableRound(key(0, 1), ((1, 10), (2, 20))),
        TableRound(key(0, 2), ((1, 10), (2, 20))),
        TableRound(key(1, 1), ((2, 10), (3, 20))),  # member 1 sits out event 1
        TableRound(key(2, 1), ((1, 10), (3, 20))),
    ]
    state = rate(history)
    points = series_of(state, 1)
    assert [p.event for p in points] == [key(0).event, key(2).event]
    assert [p.rounds for p in points] == [2, 3]
    assert points[0] == rating_of(rate(history[:2]), 1)
    assert points[-1] == rating_of(state, 1)
    assert points[-1].ordinal == 40 * (points[-1].mu - 3 * points[-1].sigma)
    assert series_of(state, 99) == ()
    # A new member is at openskill's prior, ordinal 0: one round puts its winner above, its loser
    # below.
    first = rate(history[:1])
    assert rating_of(first, 1).ordinal > 0 > rating_of(first, 2).ordinal
