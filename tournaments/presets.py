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
    carry_forward: bool = False
    decides_placings: bool = False
    time_limit_minutes: int | None = None
    movement: str = ""
    move_count: int = 0


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
    # A later game of a day starts below the doubles the games before it played: this many
    # doubles below the set's highest.
    doubles_played_before: int = 0
    carry_forward: bool = False
    decides_placings: bool = False
    time_limit_minutes: int | None = None
    movement: str = ""  # tournaments.models.Stage.Movement
    move_count: int = 0

    def settings(self, domino_set: int, deal_bounds: tuple[int, int]) -> StageSettings:
        low, high = deal_bounds
        if self.table_sizes is not None:
            low, high = max(low, self.table_sizes[0]), min(high, self.table_sizes[1])
        if low > high:
            raise ValueError(
                f"The {self.name_key} stage's tables of {self.table_sizes} are not dealt for "
                f"with a double-{domino_set} set ({deal_bounds})."
            )
        starting_double = domino_set - self.doubles_played_before
        full_game = starting_double + 1
        rounds = full_game if self.rounds is None else min(self.rounds, full_game)
        return StageSettings(
            self.name_key,
            self.kind,
            rounds,
            starting_double,
            low,
            high,
            carry_forward=self.carry_forward,
            decides_placings=self.decides_placings,
            time_limit_minutes=self.time_limit_minutes,
            movement=self.movement,
            move_count=self.move_count,
        )


@dataclass(frozen=True)
class DivisionTemplate:
    """A division a preset creates: an age category."""

    name: str
    age_min: int | None = None
    age_max: int | None = None


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    # Where its rules come from, named here in the preset: the title of the rules document as
    # the document names itself (said as written in every language), or the event page that
    # publishes them, described in words (lazy: in the reader's language).
    source: str | Promise
    description: str | Promise  # one line, lazy: in the reader's language
    default_set: int
    deals: dict[int, dict[int, int]]
    stages: tuple[StageTemplate, ...] = field(default=())
    divisions: tuple[DivisionTemplate, ...] = field(default=())
    document: bool = True  # `source` names a rules document, else the event that publishes it

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


# The events the web publishes, each preset as its page says (docs/DESIGN.md):
# - senior_games, a county Silver Games: "Age Categories: 50-59, 60-69, 70-79, 80+", double-12,
#   "2, 3 or 4 players draw 15, 5 or 6 draw 12, 7 or 8 draw 11"; gold, silver and bronze in each
#   category, by the lowest totals of the game.
# - senior_olympics, a state Senior Olympics: "The winners of the first game (limited to 60
#   minutes) will play each other for another 60 minutes. The winner of the final game (lowest
#   score) will win the gold medal, the next lowest score the silver, the third lowest score the
#   bronze", each player drawing 15, no age groups.
# - eleven_three, a retirement community's club day on double-15: "11-3 Rule: draw 11 dominos
#   and the three lowest scores move to another table". Four games of four rounds (15 down to
#   double-blank), totals carried, placed by total after the last.
# - championship_day, a community's event: "a complete game of six rounds"; "the player with
#   the lowest score at each table will go on to play a second game in the Championship Round".
# - rv_club, an RV club chapter: double-12, 2 players 16 tiles, 3: 15, 4: 14, 5: 13, 6: 12, 7:
#   11, 8: 10.
EVENT_PRESETS: dict[str, Preset] = {
    "senior_games": Preset(
        key="senior_games",
        label="Senior games with age categories",
        source=_("A county Silver Games' Mexican Train rules"),
        description=_(
            "Age categories 50-59, 60-69, 70-79 and 80+; one game from double-12; gold, silver "
            "and bronze in each category by the lowest totals."
        ),
        default_set=12,
        document=False,
        deals={12: {**_flat(range(2, 5), 15), **_flat(range(5, 7), 12), **_flat(range(7, 9), 11)}},
        stages=(StageTemplate("game", "qualifying", table_sizes=(3, 4), decides_placings=True),),
        divisions=(
            DivisionTemplate("50-59", 50, 59),
            DivisionTemplate("60-69", 60, 69),
            DivisionTemplate("70-79", 70, 79),
            DivisionTemplate("80+", 80, None),
        ),
    ),
    "senior_olympics": Preset(
        key="senior_olympics",
        label="Senior Olympics: two timed games",
        source=_("A state Senior Olympics' Mexican Train rules"),
        description=_(
            "A first game limited to 60 minutes; its table winners play a final of 60 minutes, "
            "whose three lowest totals win gold, silver and bronze. 15 tiles each."
        ),
        default_set=12,
        document=False,
        deals={12: _flat(range(2, 6), 15)},
        stages=(
            StageTemplate("game_number:1", "qualifying", table_sizes=(3, 5), time_limit_minutes=60),
            StageTemplate("playoff", "playoff", time_limit_minutes=60),
        ),
    ),
    "eleven_three": Preset(
        key="eleven_three",
        label="Club day: the 11-3 rule",
        source=_("A retirement community's Mexican Train club (its 11-3 rule)"),
        description=_(
            "Double-15, 11 tiles each; after each game the three lowest totals at a table move "
            "up a table and the three highest down; placed by the total of four games."
        ),
        default_set=15,
        document=False,
        deals={15: _flat(range(6, 9), 11)},
        stages=tuple(
            StageTemplate(
                f"game_number:{game}",
                "qualifying",
                rounds=4,
                doubles_played_before=4 * (game - 1),
                carry_forward=game > 1,
                decides_placings=game == 4,
                movement="move" if game > 1 else "",
                move_count=3 if game > 1 else 0,
            )
            for game in range(1, 5)
        ),
    ),
    "championship_day": Preset(
        key="championship_day",
        label="A day with a championship game",
        source=_("A community's Mexican Train tournament day"),
        description=_(
            "A game of six rounds in the morning; the lowest total at each table plays the "
            "championship game of six rounds in the afternoon."
        ),
        default_set=12,
        document=False,
        deals={12: _by_players(2, [16, 15, 14, 12, 11, 10, 9])},
        stages=(
            StageTemplate("game", "qualifying", rounds=6, table_sizes=(4, 6)),
            StageTemplate("playoff", "playoff", rounds=6),
        ),
    ),
    "rv_club": Preset(
        key="rv_club",
        label="RV club rally",
        source=_("An RV club chapter's Mexican Train rules"),
        description=_(
            "A game from double-12 with the club's deal (16 tiles at 2 players down to 10 at "
            "8), then the table winners' playoff."
        ),
        default_set=12,
        document=False,
        deals={12: _by_players(2, [16, 15, 14, 13, 12, 11, 10])},
        stages=(
            StageTemplate("game", "qualifying", table_sizes=(4, 6)),
            StageTemplate("playoff", "playoff"),
        ),
    ),
}
PRESETS.update(EVENT_PRESETS)


def get_preset(key: str) -> Preset:
    try:
        return PRESETS[key]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"Unknown preset {key!r}: choose one of {known}.") from None
