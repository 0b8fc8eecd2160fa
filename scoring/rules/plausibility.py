"""Plausibility of a score from the deal: a soft warning, never a refusal (docs/DESIGN.md).

A hand of k tiles from a double-N set holds, before any draw, at most the pips of the k heaviest
tiles of the set, and on average k x N (the mean tile of a double-N set holds N pips). A player
who drew holds more tiles, so an unusual score may be right: the official is asked, and a score
they confirm is stored with its warning ("checked"). The hard limit (validation.py: the set less
the engine double) stays a refusal.

The rule: a score warns when it reaches the heaviest hand of the deal, `heaviest_hand(set, k)`,
k the tiles dealt to each player at a table of that size. Holding exactly the k heaviest tiles at
the end of a round means being dealt them and never playing nor drawing: as unlikely as a typo.
So 250 in a double-12 round dealt 12 tiles is asked about (25 typed with an extra 0), and so is
520, while an ordinary hand (144 on average, 200 after a few draws) is not.

The lines of every set and deal the presets have (tournaments.presets), k: average / line:

- double-6:  6: 36 / 61; 8: 48 / 77; 9: 54 / 85
- double-9:  6: 54 / 97; 7: 63 / 111; 9: 81 / 139; 10: 90 / 152
- double-12: 8: 96 / 173; 9: 108 / 193; 10: 120 / 212; 11: 132 / 231; 12: 144 / 250;
  13: 156 / 268; 14: 168 / 286; 15: 180 / 304; 16: 192 / 322
- double-15: 11: 165 / 297; 13: 195 / 346; 15: 225 / 394

A table size the tournament's preset has no deal for (a late entry made the table bigger) takes
the deal of the nearest size it has; a set the preset has no deal for takes the most tiles any
preset deals with that set. A set no preset deals with (double-18) has no line: no warnings.
"""

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext, gettext_lazy

from scoring.rules.validation import ScoreLine, grouped, parse_pips
from tournaments.presets import PRESETS

MORE_THAN_A_HAND = "more_than_a_hand"  # the warning's code in the API
ARE_YOU_SURE = gettext_lazy("Are you sure?")


@functools.cache
def heaviest_hand(domino_set: int, tiles: int) -> int:
    """The pips of the `tiles` heaviest tiles of a double-N set: the most a hand dealt that many
    tiles holds before any draw (12 double-12 tiles: 250)."""
    pips = sorted(
        (high + low for high in range(domino_set + 1) for low in range(high + 1)), reverse=True
    )
    return sum(pips[:tiles])


def average_hand(domino_set: int, tiles: int) -> int:
    """The pips a hand of `tiles` tiles of a double-N set holds on average: N per tile."""
    return domino_set * tiles


def _nearest(deal: Mapping[int, int], players: int) -> int:
    """The tiles a deal gives at `players`, or at its nearest table size (the bigger of two)."""
    size = min(deal, key=lambda listed: (abs(listed - players), -listed))
    return deal[size]


def tiles_dealt(preset: str, domino_set: int, players: int) -> int | None:
    """The tiles each of `players` at a table is dealt with the preset and the set; None when no
    preset deals with the set."""
    own = PRESETS[preset].deals.get(domino_set) if preset in PRESETS else None
    if own:
        return _nearest(own, players)
    others = [p.deals[domino_set] for p in PRESETS.values() if p.deals.get(domino_set)]
    return max((_nearest(deal, players) for deal in others), default=None)


@dataclass(frozen=True)
class PipsWarning:
    """A score that reaches the heaviest hand of the deal."""

    player: int
    pips: int
    limit: int  # the heaviest hand: the warning line
    tiles: int
    average: int
    checked: bool = False  # the official confirmed the score as it is
    code: str = MORE_THAN_A_HAND

    def as_dict(self) -> dict:
        return {
            "player": self.player,
            "code": self.code,
            "pips": self.pips,
            "limit": self.limit,
            "tiles": self.tiles,
            "average": self.average,
            "checked": self.checked,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> "PipsWarning":
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


def unusual_scores(
    lines: Sequence[ScoreLine], *, domino_set: int, tiles: int | None
) -> list[PipsWarning]:
    """The scores of a round that reach the heaviest hand of `tiles` tiles, in the lines' order;
    [] without a deal. Each is `checked` when its line says the official confirmed it."""
    if tiles is None:
        return []
    limit, average = heaviest_hand(domino_set, tiles), average_hand(domino_set, tiles)
    warnings = []
    for line in lines:
        pips = parse_pips(line.pips)
        if pips is not None and pips >= limit:
            warnings.append(
                PipsWarning(line.player_id, pips, limit, tiles, average, line.checked is True)
            )
    return warnings


def warning_message(name: str, warning: PipsWarning) -> str:
    """The warning in the active language: "Ann: 250 pips is more than a hand of 12 tiles
    usually holds (144 on average, at most 250 without drawing)." """
    return gettext(
        "%(name)s: %(pips)s pips is more than a hand of %(tiles)s tiles usually holds "
        "(%(average)s on average, at most %(limit)s without drawing)."
    ) % {
        "name": name,
        "pips": grouped(warning.pips),
        "tiles": warning.tiles,
        "average": grouped(warning.average),
        "limit": grouped(warning.limit),
    }


def flag_message(name: str, warning: PipsWarning) -> str:
    """What the history and the console say of a stored warning."""
    values = {"name": name, "pips": grouped(warning.pips)}
    if warning.checked:
        return gettext("Unusual score checked by the official: %(name)s %(pips)s pips.") % values
    return gettext("Unusual score, not checked by an official: %(name)s %(pips)s pips.") % values
