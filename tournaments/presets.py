"""Rule presets: the domino sets, deals and round engines of the rules documents, as pure data.

A preset maps a domino set (double-N) to its deal: players at a table -> tiles dealt to each.
The players a preset deals for are the table size bounds of a stage played with it.
"""

from dataclasses import dataclass, field

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

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
class StageSettings:
    """A stage a preset creates with one set: what tournaments.services.create_stage takes."""

    name_key: str  # tournaments.stagenames: said in the reader's language
    kind: str
    rounds: int
    starting_double: int
    table_size_min: int
    table_size_max: int


@dataclass(frozen=True)
class StageTemplate:
    """A stage a preset fills in when a tournament is created from it, with whichever set it
    deals: the stage starts from the set's highest double; `rounds` None plays one round per
    double down to double-blank (N+1 with double-N), a number plays that many announced rounds
    (no more than the set has doubles); its tables are the preset's deal for the set, narrowed to
    `table_sizes` where the stage asks for tables of its own."""

    name_key: str
    kind: str
    rounds: int | None = None
    table_sizes: tuple[int, int] | None = None

    def settings(self, domino_set: int, deal_bounds: tuple[int, int]) -> StageSettings:
        low, high = deal_bounds
        if self.table_sizes is not None:
            low, high = max(low, self.table_sizes[0]), min(high, self.table_sizes[1])
        if low > high:
            raise ValueError(
                f"The {self.name_key} stage's tables of {self.table_sizes} are not dealt for "
                f"with a double-{domino_set} set ({deal_bounds})."
            )
        full_game = domino_set + 1
        rounds = full_game if self.rounds is None else min(self.rounds, full_game)
        return StageSettings(self.name_key, self.kind, rounds, domino_set, low, high)


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    # The title of its rules document, as the document names itself (in /work/shared/seeds):
    # a title, so said as written in every language.
    source: str
    description: str | Promise  # one line, lazy: in the reader's language
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

    def stages_for(self, domino_set: int) -> tuple[StageSettings, ...]:
        """The stages this preset creates with the set (ValueError for a set it does not deal)."""
        bounds = self.table_bounds(domino_set)
        return tuple(template.settings(domino_set, bounds) for template in self.stages)

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


# Each preset's rounds, as its document says:
# - 002 (samboree), rule 2: "For Samboree tournament, unless stated by the game official, there
#   will be four (4) rounds played, starting with the double (12)"; rule 9: the playoff's
#   "starting double and number of rounds" are announced by the official, four until then.
# - 000 (parsons): "Each new game thereafter should begin with the next-lowest double being
#   played as the engine, with the 0-0 tile being the final engine for the last game".
# - 001 (pagat): "In the following rounds, the next highest double will be used, and so forth
#   until the [0-0] tile is played" ("thirteen rounds with a double twelve set").
# - 004 (online): "Each round starts off with the highest double that hasn't been used to start
#   a round yet", the doubles from 12 down.
# The titles are the documents' own first lines: 000 "Mexican Train", 002 "MEXICAN TRAIN", 004
# "The Rules"; 001 has no title line and opens "Mexican Train is a member of the Trains family".
PRESETS: dict[str, Preset] = {
    "samboree": Preset(
        key="samboree",
        label="Samboree (RV rally tournament)",
        source="Mexican Train",
        description=_(
            "Four rounds from double-12 at tables of 3 or 4, then the table winners' playoff."
        ),
        default_set=12,
        # 2-4 players 12 tiles, 5-6 players 10, "7 or more" 8. We stop at 10 players: 80 of the
        # 90 tiles left beside the engine, so the boneyard still has tiles to draw.
        deals={12: {**_flat(range(2, 5), 12), **_flat(range(5, 7), 10), **_flat(range(7, 11), 8)}},
        stages=(
            StageTemplate("qualifying", "qualifying", rounds=4, table_sizes=(3, 4)),
            StageTemplate("playoff", "playoff", rounds=4),
        ),
    ),
    "parsons": Preset(
        key="parsons",
        label="Parsons / Puremco rules",
        source="Mexican Train",
        description=_(
            "One round per double, from the set's highest down to double-blank; hands of 16 "
            "tiles at 2 players down to 9 at 8."
        ),
        default_set=12,
        # Deals are given for double-12 only: "For double-9, 15 or 18 sets, adjustments can be
        # made", with no numbers, so those sets are not offered.
        deals={12: _by_players(2, [16, 15, 14, 12, 11, 10, 9])},
        stages=(StageTemplate("game", "qualifying"),),
    ),
    "pagat": Preset(
        key="pagat",
        label="Detailed rules (pagat.com)",
        source="Mexican Train",
        description=_(
            "One round per double, from the set's highest down to double-blank, with its own "
            "deal for each set from double-6 to double-15."
        ),
        default_set=12,
        deals={
            6: _by_players(2, [9, 8, 6]),
            9: _by_players(2, [9, 9, 9, 7, 7, 7, 6]),
            12: _by_players(2, [15, 15, 15, 12, 12, 11, 11]),
            15: _by_players(2, [15, 15, 15, 15, 15, 13, 13, 11, 11, 11, 11]),
        },
        stages=(StageTemplate("game", "qualifying"),),
    ),
    "online": Preset(
        key="online",
        label="Online game rules",
        source="The Rules",
        description=_(
            "One round per double, from the set's highest down to double-blank: double-9 for 2 "
            "or 3 players at a table, double-12 for 4 to 8."
        ),
        default_set=12,
        deals={9: _flat(range(2, 4), 10), 12: {**_flat(range(4, 7), 10), **_flat(range(7, 9), 8)}},
        stages=(StageTemplate("game", "qualifying"),),
    ),
}


def get_preset(key: str) -> Preset:
    try:
        return PRESETS[key]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"Unknown preset {key!r}: choose one of {known}.") from None
