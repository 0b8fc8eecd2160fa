"""Every state change of tournaments, staff, players and stages, one module for each; the names
other apps use are importable from here."""

from tournaments.exceptions import StateConflict
from tournaments.services.players import (
    IMPORT_COLUMNS,
    create_player,
    import_players,
    parse_players_csv,
    record_change,
    update_player,
)
from tournaments.services.stages import (
    STAGE_FIELDS,
    check_not_finished,
    create_stage,
    further_level,
    remove_stage,
    stage_name_key,
    update_stage,
    validate_stage,
)
from tournaments.services.tournaments import (
    DETAIL_FIELDS,
    check_days,
    create_tournament,
    update_details,
)

__all__ = [
    "DETAIL_FIELDS",
    "IMPORT_COLUMNS",
    "STAGE_FIELDS",
    "StateConflict",
    "check_days",
    "check_not_finished",
    "create_player",
    "create_stage",
    "create_tournament",
    "further_level",
    "import_players",
    "parse_players_csv",
    "record_change",
    "remove_stage",
    "stage_name_key",
    "update_details",
    "update_player",
    "update_stage",
    "validate_stage",
]
