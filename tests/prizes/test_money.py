"""The money of a prize table (prizes.money), pure: a pot shared out by percentages and rounded
down never pays more than the pot, and every cent is somewhere (a prize or the house); tied
players share equally."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prizes import money
from prizes.money import Award, Offered

D = Decimal
cents = st.integers(min_value=0, max_value=10_000_000).map(lambda c: D(c) / 100)
percents = st.lists(
    st.integers(min_value=1, max_value=10_000).map(lambda p: D(p) / 100), max_size=8
).filter(lambda ps: sum(ps, D(0)) <= 100)
steps = st.sampled_from([D("0.01"), D(1), D(5), D(10)])


@given(pot=cents, shares=percents, step=steps, to=st.sampled_from([money.HOUSE, money.FIRST]))
def test_a_split_never_pays_more_than_the_pot_and_every_cent_is_accounted_for(
    pot, shares, step, to
):
    split = money.split_pot(pot, shares, step, to)
    paid = sum(split.amounts, D(0))
    assert paid + split.house == pot  # every cent is a prize or the house's
    assert paid <= pot * sum(shares, D(0)) / 100  # never more than the percentages give
    assert split.house >= pot * (100 - sum(shares, D(0))) / 100 - D("0.01")
    assert all(a >= 0 and a == a.quantize(D("0.01")) for a in split.amounts)
    assert 0 <= split.remainder < step * max(len(shares), 1)
    for place, (amount, percent) in enumerate(zip(split.amounts, shares, strict=True)):
        exact = pot * percent / 100
        if place == 0 and to == money.FIRST:
            assert amount == money.down(exact, step) + split.remainder
        else:
            assert amount == money.down(exact, step)  # rounded down to the step
            assert amount % step == 0


def test_the_remainder_of_the_rounding_is_stated_and_goes_where_the_organiser_said():
    # 437.00 shared 50/30/20, to the whole unit: 218.50, 131.10, 87.40 exactly.
    kept = money.split_pot(D("437.00"), [D(50), D(30), D(20)], D(1), money.HOUSE)
    assert kept.amounts == (D(218), D(131), D(87))
    assert kept.remainder == D(1) and kept.house == D(1)
    first = money.split_pot(D("437.00"), [D(50), D(30), D(20)], D(1), money.FIRST)
    assert first.amounts == (D(219), D(131), D(87))
    assert first.remainder == D(1) and first.house == D(0)
    # 60% shared: the house keeps the other 40% as well as the rounding.
    part = money.split_pot(D(100), [D(35), D(25)], D(10), money.HOUSE)
    assert part.amounts == (D(30), D(20)) and part.house == D(50) and part.remainder == D(10)


@pytest.mark.parametrize(
    "shares", [[D(101)], [D(0)], [D(-5)], [D(60), D(41)]], ids=["over", "zero", "negative", "sum"]
)
def test_percentages_out_of_range_or_over_100_in_all_are_refused(shares):
    with pytest.raises(ValueError):
        money.split_pot(D(100), shares, D(1))


@given(amount=cents, among=st.integers(min_value=1, max_value=12))
def test_a_tie_shares_equally_to_the_cent_and_never_more_than_the_prize(amount, among):
    each, left = money.share(amount, among)
    assert each * among + left == amount
    assert 0 <= left < D("0.01") * among


def test_two_tied_second_share_the_second_and_third_prizes_and_the_next_is_fourth():
    offered = [Offered(1, D(100)), Offered(2, D(50), "Medal"), Offered(3, D(25), "Medal")]
    placed = [(11, 1), (12, 2), (13, 2), (14, 4)]
    got, left = money.awards(offered, placed)
    assert got == [
        Award(11, 1, D(100), ()),
        Award(12, 2, D("37.50"), ("Medal", "Medal"), shared_by=2),
        Award(13, 2, D("37.50"), ("Medal", "Medal"), shared_by=2),
    ]
    assert left == 0


def test_three_tied_for_a_prize_leave_the_odd_cent_to_the_house():
    got, left = money.awards([Offered(1, D(100))], [(1, 1), (2, 1), (3, 1)])
    assert [a.cash for a in got] == [D("33.33")] * 3 and left == D("0.01")


def test_the_booby_prize_goes_to_the_last_place_unless_a_place_prize_reaches_it():
    offered = [Offered(1, D(100)), Offered(None, None, "Wooden spoon")]
    got, _left = money.awards(offered, [(1, 1), (2, 2), (3, 3), (4, 3)])
    assert got[1:] == [
        Award(3, 3, None, ("Wooden spoon",), shared_by=2, booby=True),
        Award(4, 3, None, ("Wooden spoon",), shared_by=2, booby=True),
    ]
    # One player only, first and last: the first prize, no booby on top.
    got, _left = money.awards(offered, [(1, 1)])
    assert got == [Award(1, 1, D(100), ())]


def test_nobody_placed_wins_nothing():
    assert money.awards([Offered(1, D(100))], []) == ([], D(0))
