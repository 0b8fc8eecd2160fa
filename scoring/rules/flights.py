"""Splitting players into flights by their order: pure rules, no database.

The players come ranked, strongest first (by rating, or by the standings of a closed stage:
scoring.services.flights says which). Flight A takes the first of them, flight B the next, and
so on: each flight a run of the ranking, so nobody in flight B is ranked above anybody in flight
A. The flights are as equal in size as the players allow: they differ by one at most, and the
larger ones come first (25 players in two flights: 13 in A, 12 in B). The same ranking always
makes the same flights.
"""

from collections.abc import Sequence
from string import ascii_uppercase
from typing import TypeVar

T = TypeVar("T")

MAX_FLIGHTS = len(ascii_uppercase)  # named A to Z


def flight_name(index: int) -> str:
    """The name of the flight at `index` from the top (0): "A", "B", ..."""
    return ascii_uppercase[index]


def split(ranked: Sequence[T], count: int) -> list[list[T]]:
    """`ranked` (strongest first) cut into `count` runs of sizes differing by one at most, the
    larger first. ValueError for fewer than 2 flights, more than MAX_FLIGHTS, or more flights than
    players (a flight of nobody)."""
    if not 2 <= count <= MAX_FLIGHTS:
        raise ValueError(f"flights: 2 to {MAX_FLIGHTS}, not {count}")
    if count > len(ranked):
        raise ValueError(f"{count} flights for {len(ranked)} players")
    size, extra = divmod(len(ranked), count)
    flights, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        flights.append(list(ranked[start:end]))
        start = end
    return flights
