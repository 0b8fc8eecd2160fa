"""Rule presets: the domino sets, deals and round engines of the rules documents, as pure data.

A preset maps a domino set (double-N) to its deal: players at a table -> tiles dealt to each.
The players a preset deals for are the table size bounds of a stage played with it.
"""

from dataclasses import dataclass, field

from django.utils.translation import pgettext_lazy

DOMINO_SETS = (6, 9, 12, 15, 18)


def tiles_in_set(domino_set: int) -> int:
    """Tiles in a double-N set: (N+1)(N+2)/2."""
    return (domino_set + 1) * (domino_set + 2) // 2


def total_pips(domino_set: int) -> int:
    """Pips on every tile of a double-N set: N(N+1)(N+2)/2."""
    if domino_set < 0:
        raise ValueError(f"No double-{domino_set} set")
    return domino_set * (domino_set + 1) * (domino_set + 2) // 2


def engine_for_round(starting_double: int, round_no: int) -> int:
    """Round n (1-based) is played with the double below the previous round's."""
    if round_no < 1 or round_no > starting_double + 1:
        raise ValueError(
            f"Round {round_no} does not exist when starting from double-{starting_double}."
        )
    return starting_double - (round_no - 1)


def max_round_total(domino_set: int, engine: int) -> int:
    """The most pips the players' hands can hold in one round: the set less the engine double."""
    if not 0 <= engine <= domino_set:
        raise ValueError(f"A double-{domino_set} set has no {engine} engine")
    return total_pips(domino_set) - 2 * engine


@dataclass(frozen=True)
class StageTemplate:
    """A stage a preset fills in when a tournament is created from it."""

    name: str  # lazy: named in the language of whoever creates the tournament
    kind: str
    rounds: int
    starting_double: int
    table_size_min: int
    table_size_max: int


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    source: str
    default_set: int
    deals: dict[int, dict[int, int]]
    stages: tuple[StageTemplate, ...] = field(default=())

    def sets(self) -> tuple[int, ...]:
        return tuple(sorted(self.deals))

    def deal(self, domino_set: int) -> dict[int, int]:
        if domino_set not in self.deals:
            sets = ", ".join(f"double-{n}" for n in self.sets())
            raise ValueError(
                f"The {self.key} preset deals only with {sets}, not double-{domino_set}."
            )
        return self.deals[domino_set]

    def table_bounds(self, domino_set: int) -> tuple[int, int]:
        """The fewest and most players at a table this preset deals for with the set."""
        players = self.deal(domino_set)
        return min(players), max(players)

    def tiles_dealt(self, domino_set: int, players: int) -> int:
        deal = self.deal(domino_set)
        if players not in deal:
            low, high = self.table_bounds(domino_set)
            raise ValueError(
                f"The {self.key} preset with a double-{domino_set} set is played by "
                f"{low} to {high} players at a table, not {players}."
            )
        return deal[players]


def _flat(players: range, tiles: int) -> dict[int, int]:
    return dict.fromkeys(players, tiles)


def _by_players(first: int, tiles: list[int]) -> dict[int, int]:
    return {first + i: count for i, count in enumerate(tiles)}


PRESETS: dict[str, Preset] = {
    "samboree": Preset(
        key="samboree",
        label="Samboree (RV rally tournament)",
        source="seed 002",
        default_set=12,
        # 2-4 players 12 tiles, 5-6 players 10, "7 or more" 8. We stop at 10 players: 80 of the
        # 90 tiles left beside the engine, so the boneyard still has tiles to draw.
        deals={12: {**_flat(range(2, 5), 12), **_flat(range(5, 7), 10), **_flat(range(7, 11), 8)}},
        stages=(
            StageTemplate(pgettext_lazy("stage name", "Qualifying"), "qualifying", 4, 12, 3, 4),
            StageTemplate(pgettext_lazy("stage name", "Playoff"), "playoff", 4, 12, 2, 10),
        ),
    ),
    "parsons": Preset(
        key="parsons",
        label="Parsons / Puremco rules",
        source="seed 000",
        default_set=12,
        deals={12: _by_players(2, [16, 15, 14, 12, 11, 10, 9])},
        stages=(StageTemplate(pgettext_lazy("stage name", "Game"), "qualifying", 13, 12, 2, 8),),
    ),
    "pagat": Preset(
        key="pagat",
        label="Long rules write-up (pagat)",
        source="seed 001",
        default_set=12,
        deals={
            6: _by_players(2, [9, 8, 6]),
            9: _by_players(2, [9, 9, 9, 7, 7, 7, 6]),
            12: _by_players(2, [15, 15, 15, 12, 12, 11, 11]),
            15: _by_players(2, [15, 15, 15, 15, 15, 13, 13, 11, 11, 11, 11]),
        },
        stages=(StageTemplate(pgettext_lazy("stage name", "Game"), "qualifying", 13, 12, 2, 8),),
    ),
    "online": Preset(
        key="online",
        label="Online game rules",
        source="seed 004",
        default_set=12,
        deals={9: _flat(range(2, 4), 10), 12: {**_flat(range(4, 7), 10), **_flat(range(7, 9), 8)}},
        stages=(StageTemplate(pgettext_lazy("stage name", "Game"), "qualifying", 13, 12, 4, 8),),
    ),
}


def get_preset(key: str) -> Preset:
    try:
        return PRESETS[key]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"Unknown preset {key!r}: choose one of {known}.") from None
