"""Every state change of tournaments, staff, players and stages, one module for each; the names
other apps use are importable from here."""

from tournaments.exceptions import StateConflict
from tournaments.services.divisions import (
    DIVISION_FIELDS,
    create_division,
    division_for_age,
    division_named,
    move_division,
    remove_division,
    set_division_playoffs,
    update_division,
)
from tournaments.services.players import (
    IMPORT_COLUMNS,
    UPDATED_FIELDS,
    FieldChange,
    PlayersUpdate,
    create_player,
    import_players,
    parse_players_csv,
    record_change,
    update_player,
    update_players_from_csv,
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
    "DIVISION_FIELDS",
    "IMPORT_COLUMNS",
    "STAGE_FIELDS",
    "UPDATED_FIELDS",
    "FieldChange",
    "PlayersUpdate",
    "StateConflict",
    "check_days",
    "check_not_finished",
    "create_division",
    "create_player",
    "create_stage",
    "create_tournament",
    "division_for_age",
    "division_named",
    "further_level",
    "import_players",
    "move_division",
    "parse_players_csv",
    "record_change",
    "remove_division",
    "remove_stage",
    "set_division_playoffs",
    "stage_name_key",
    "update_details",
    "update_division",
    "update_player",
    "update_players_from_csv",
    "update_stage",
    "validate_stage",
]
