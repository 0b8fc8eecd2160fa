"""Scoring's pages: `entry` (the officials' tablet pages), `player` (a player's public page and
the search for one), `screen` (the projector), `practice` (a practice tournament's reset),
`flights` (the console's split by rating) and `stages` (a stage's progress, tie-break decisions
and close, scores from paper, the bracket)."""

from scoring.views.entry import check_round, enter_home, enter_round, enter_table, history_page
from scoring.views.flights import split_flights
from scoring.views.player import find_player, player_page
from scoring.views.practice import reset_practice_page
from scoring.views.screen import screen
from scoring.views.stage_pages import (
    bracket,
    clock_page,
    close_stage_page,
    import_scores_page,
    progress,
    record_tiebreak_page,
    reopen_stage_page,
)

__all__ = [
    "bracket",
    "check_round",
    "clock_page",
    "close_stage_page",
    "enter_home",
    "enter_round",
    "enter_table",
    "find_player",
    "history_page",
    "import_scores_page",
    "player_page",
    "progress",
    "record_tiebreak_page",
    "reopen_stage_page",
    "reset_practice_page",
    "screen",
    "split_flights",
]
