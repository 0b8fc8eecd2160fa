"""The money of a prize table, pure: a pot shared out by percentages, rounded down, and a tied
place's prizes shared equally. No database, no request: what the pages, the API, the export and
the results print is worked out here, once (tests/prizes/test_money.py holds it to its rules).

Every amount is a Decimal with two places (cents); nothing here pays out more than it was given:
what rounding leaves is stated as the remainder, and goes where the organiser said (the house,
meaning the organiser keeps it, or the first place)."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

CENT = Decimal("0.01")
HUNDRED = Decimal(100)
HOUSE, FIRST = "house", "first"


@dataclass(frozen=True)
class Split:
    """A pot shared out: each place's amount (in the order of the percentages), what rounding
    left (stated; in the first place's amount when it goes to first), and what the house keeps
    (the pot less every amount: the percentages' rest and, unless given to first, the remainder)."""

    amounts: tuple[Decimal, ...]
    remainder: Decimal
    house: Decimal


def down(amount: Decimal, step: Decimal) -> Decimal:
    """The amount rounded down to a multiple of step (a cent, a whole unit, 5, 10)."""
    return ((amount / step).to_integral_value(rounding=ROUND_DOWN) * step).quantize(CENT)


def check_percents(percents: Sequence[Decimal]) -> None:
    """Each percentage above 0 and at most 100, and all of them at most 100: a ValueError says
    which is wrong (the services say it to the organiser, with the row)."""
    for percent in percents:
        if not 0 < percent <= HUNDRED:
            raise ValueError(f"{percent} is not above 0 and at most 100")
    if sum(percents, Decimal(0)) > HUNDRED:
        raise ValueError("the percentages add up to more than 100")


def split_pot(
    pot: Decimal, percents: Sequence[Decimal], step: Decimal, remainder_to: str = HOUSE
) -> Split:
    """The pot shared by the percentages, each share rounded down to `step`. What the rounding
    left (to the cent) goes to the first share when `remainder_to` is FIRST, else stays with
    the house; the house also keeps what the percentages do not give (100 less their sum)."""
    check_percents(percents)
    if pot < 0:
        raise ValueError("a pot is never negative")
    if step <= 0:
        raise ValueError("the rounding step is above 0")
    pot = pot.quantize(CENT, rounding=ROUND_DOWN)
    exact = [pot * percent / HUNDRED for percent in percents]
    amounts = [down(share, step) for share in exact]
    remainder = down(sum(exact, Decimal(0)) - sum(amounts, Decimal(0)), CENT)
    if remainder_to == FIRST and amounts:
        amounts[0] += remainder
    return Split(tuple(amounts), remainder, pot - sum(amounts, Decimal(0)))


def share(amount: Decimal, among: int) -> tuple[Decimal, Decimal]:
    """A sum shared equally among tied players, to the cent, rounded down: (each one's share,
    the cents left over, fewer than the players)."""
    if among < 1:
        raise ValueError("shared among one player at least")
    each = down(amount / among, CENT)
    return each, amount - each * among


@dataclass(frozen=True)
class Offered:
    """One prize of a table, its cash worked out: a place's (place 1, 2, ...) or the booby
    prize's (place None)."""

    place: int | None
    cash: Decimal | None
    item: str = ""


@dataclass(frozen=True)
class Award:
    """What a placed player gets: the cash (their share when tied; None: no cash), the items,
    how many share it (1: not tied), and whether it is the booby prize."""

    player: int
    place: int
    cash: Decimal | None
    items: tuple[str, ...]
    shared_by: int = 1
    booby: bool = False


def awards(
    offered: Sequence[Offered], placed: Sequence[tuple[int, int]]
) -> tuple[list[Award], Decimal]:
    """Who gets what: `placed` is (player, place) for each placed player of the scope, ties
    sharing a place as the placings do (two players 2nd, the next 4th). Players tied on a place
    share equally the cash of the places they cover (two 2nd: the prizes of 2nd and 3rd, halved,
    to the cent) and each is shown the items of those places, shared. The booby prize goes to
    the last place, shared the same way when tied, unless a place prize already reaches it (a
    table with as many prizes as players gives no booby). Returns the awards, by place, and the
    cents the equal shares left over (which the house keeps)."""
    by_place = {o.place: o for o in offered if o.place is not None}
    booby = next((o for o in offered if o.place is None), None)
    groups: dict[int, list[int]] = {}
    for player, place in sorted(placed, key=lambda p: (p[1], p[0])):
        groups.setdefault(place, []).append(player)
    result: list[Award] = []
    left = Decimal(0)
    reached = False  # whether the last place's group got a place prize
    last = max(groups, default=None)
    for place, players in groups.items():
        covered = [by_place[p] for p in range(place, place + len(players)) if p in by_place]
        if not covered:
            continue
        reached = reached or place == last
        result += _shared(place, players, covered, booby=False)
        cash = [o.cash for o in covered if o.cash is not None]
        if cash:
            left += share(sum(cash, Decimal(0)), len(players))[1]
    if booby is not None and last is not None and not reached:
        players = groups[last]
        result += _shared(last, players, [booby], booby=True)
        if booby.cash is not None:
            left += share(booby.cash, len(players))[1]
    return result, left


def _shared(place: int, players: list[int], covered: list[Offered], *, booby: bool) -> list[Award]:
    cash = [o.cash for o in covered if o.cash is not None]
    each = share(sum(cash, Decimal(0)), len(players))[0] if cash else None
    items = tuple(o.item for o in covered if o.item)
    return [Award(player, place, each, items, len(players), booby) for player in players]
