"""Seating maths, no ORM: balanced tables (sizes within bounds, differing by at most one), seated
at random from a seed (households apart, few repeat pairs of former tablemates, and tables
balanced by strength when asked) or by rank in snake order. One module per part:

- sizes: table sizes and the table a late entry joins;
- outcome: entrants, the seating, its warnings, household and tablemate checks;
- shuffled (random seating), swaps + repeats (the local search), balance (by strength);
- seeded: playoff seating by rank;
- movement: tables that move between games (tables.game_seating seats a game with it).
"""

from tables.seating.balance import spread
from tables.seating.outcome import (
    Entrant,
    Seating,
    SeatingWarning,
    household_conflict_text,
    household_key,
    tablemate_pairs,
    warning_text,
)
from tables.seating.seeded import seat_seeded
from tables.seating.shuffled import seat_random
from tables.seating.sizes import NoBalancedSplit, late_entry_table, table_sizes

__all__ = [
    "Entrant",
    "NoBalancedSplit",
    "Seating",
    "SeatingWarning",
    "household_conflict_text",
    "household_key",
    "late_entry_table",
    "seat_random",
    "seat_seeded",
    "spread",
    "table_sizes",
    "tablemate_pairs",
    "warning_text",
]
