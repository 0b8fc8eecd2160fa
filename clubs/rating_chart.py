"""The geometry of a member's small rating chart, no ORM: the displayed rating (the ordinal)
after each event, drawn by templates/clubs/_rating_chart.html as an inline SVG.

The events are spaced evenly (club nights bunch up in the calendar; the order is what matters),
the rating's axis gets two to five round ticks, and the points while the rating was still
provisional are drawn hollow. The chart is a picture of the table beside it, which has every
figure: it needs no script and prints.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass

# The drawing's own units (viewBox): it scales to the width it is given, 390 px phones included.
WIDTH, HEIGHT = 360, 180
LEFT, RIGHT, TOP, BOTTOM = 48, 14, 14, 30  # room for the axis labels
INSET = 10  # the first and last points stand clear of the axis labels
STEPS = (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000)
MAX_TICKS = 5


@dataclass(frozen=True)
class ChartInput:
    """One event's point: its name and date (for the point's tooltip), the rating after it."""

    name: str
    day: datetime.date
    rating: int
    provisional: bool


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    entry: ChartInput


@dataclass(frozen=True)
class Tick:
    y: float
    value: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: float  # x of the plot's right edge
    points: tuple[ChartPoint, ...]
    ticks: tuple[Tick, ...]
    line: str  # the polyline's points attribute
    first_day: datetime.date
    last_day: datetime.date
    bottom: float  # y of the plot's bottom edge

    @property
    def has_provisional(self) -> bool:
        return any(point.entry.provisional for point in self.points)


def _axis(low: int, high: int) -> tuple[int, int, int]:
    """A round range holding [low, high] and its step: at most MAX_TICKS ticks."""
    for step in STEPS:
        start = math.floor(low / step) * step
        end = math.ceil(high / step) * step
        if end == start:
            end = start + step
        if (end - start) // step + 1 <= MAX_TICKS:
            return start, end, step
    step = 10 ** math.ceil(math.log10(max(abs(low), abs(high), 1)))
    start, end = math.floor(low / step) * step, math.ceil(high / step) * step
    return start, max(end, start + step), step


def rating_chart(entries: Sequence[ChartInput]) -> Chart | None:
    """The chart of `entries` (oldest first); None when there is nothing to draw."""
    if not entries:
        return None
    ratings = [entry.rating for entry in entries]
    start, end, step = _axis(min(ratings), max(ratings))
    plot_width = WIDTH - LEFT - RIGHT - 2 * INSET
    plot_height = HEIGHT - TOP - BOTTOM

    def y_of(value: float) -> float:
        return round(TOP + plot_height * (end - value) / (end - start), 1)

    count = len(entries)
    points = tuple(
        ChartPoint(
            x=round(
                LEFT + INSET + (plot_width * i / (count - 1) if count > 1 else plot_width / 2), 1
            ),
            y=y_of(entry.rating),
            entry=entry,
        )
        for i, entry in enumerate(entries)
    )
    ticks = tuple(Tick(y=y_of(value), value=value) for value in range(start, end + 1, step))
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        points=points,
        ticks=ticks,
        line=" ".join(f"{p.x},{p.y}" for p in points),
        first_day=entries[0].day,
        last_day=entries[-1].day,
        bottom=HEIGHT - BOTTOM,
    )
