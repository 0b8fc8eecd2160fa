"""A rally's chapter points, no ORM: each event's places give points by the rally's table, and
a chapter's total is the sum over its players in every event.

- An event's place p scores points_table[p - 1]; a place beyond the table scores 0.
- Ties for a place: k players sharing place p (the placings say 1, 2, 2, 4) split the points of
  the places they cover, p to p + k - 1, evenly: two tied 2nd share (8 + 6) / 2 = 7 each. An
  event's players together always score what its places are worth, tied or not.
- A player of no chapter (a guest, or a chapter the rally does not have) scores for nobody; the
  places are still theirs (a guest who wins takes the 1st place's points from everyone).
- An event not decided yet gives no points.
- The chapters are ranked by their total, most first; equal totals share the place (1, 1, 3).
  "Most points", once the rally is finished, is the chapter (or chapters, equal) ranked 1st,
  if any has points at all."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from django.utils import formats

from clubs.ladder import to_decimal


@dataclass(frozen=True)
class EventPlaces:
    """One event's placings: player -> (their place, their chapter's name or None)."""

    event_id: int
    decided: bool
    places: Mapping[Hashable, tuple[int, str | None]] = field(default_factory=dict)


@dataclass
class ChapterLine:
    name: str
    place: int
    shared: bool
    total: Fraction
    by_event: dict[int, Fraction]  # event id -> the chapter's points in it (decided events)
    players: int  # its placed players, over the decided events

    @property
    def total_decimal(self):
        return to_decimal(self.total, 2)


def place_points(places: Mapping[Hashable, int], table: Sequence[int]) -> dict[Hashable, Fraction]:
    """Each player's points for their place, ties splitting the places they cover."""
    counts = Counter(places.values())
    worth = {}
    for place, k in counts.items():
        covered = [table[p - 1] if 1 <= p <= len(table) else 0 for p in range(place, place + k)]
        worth[place] = Fraction(sum(covered), k)
    return {player: worth[place] for player, place in places.items()}


def standings(
    chapters: Sequence[str], events: Sequence[EventPlaces], table: Sequence[int]
) -> list[ChapterLine]:
    """Every chapter's line, most points first (then by name); chapters are matched by name
    without regard to case."""
    named = {name.casefold(): name for name in chapters}
    totals = {name: Fraction(0) for name in chapters}
    by_event: dict[str, dict[int, Fraction]] = {name: {} for name in chapters}
    players = Counter()
    for event in events:
        if not event.decided:
            continue
        points = place_points({p: place for p, (place, _c) in event.places.items()}, table)
        for name in chapters:
            by_event[name][event.event_id] = Fraction(0)
        for player, (_place, chapter) in event.places.items():
            name = named.get((chapter or "").strip().casefold())
            if name is None:
                continue
            totals[name] += points[player]
            by_event[name][event.event_id] += points[player]
            players[name] += 1
    order = sorted(chapters, key=lambda name: (-totals[name], name.casefold()))
    lines: list[ChapterLine] = []
    for index, name in enumerate(order):
        place = index + 1
        if lines and totals[lines[-1].name] == totals[name]:
            place = lines[-1].place
        lines.append(ChapterLine(name, place, False, totals[name], by_event[name], players[name]))
    for line in lines:
        line.shared = sum(1 for other in lines if other.place == line.place) > 1
    return lines


def most_points(lines: Sequence[ChapterLine]) -> list[str]:
    """The chapter or chapters with the most points (none when no chapter has a point)."""
    return [line.name for line in lines if line.place == 1 and line.total > 0]


def points_text(value: Fraction) -> str:
    """Points as people read them: 7, 7.5, 3.33 (two decimals at most; 7,5 in Spanish)."""
    if value.denominator == 1:
        return formats.number_format(value.numerator)
    return formats.number_format(to_decimal(value, 2).normalize())
