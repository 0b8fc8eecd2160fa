"""Tournaments, their staff, players and stages; every invariant has a constraint behind it.

One module for each concern; every model and name other modules use is importable from here (the
migrations name the default and validator functions as tournaments.models.<name>)."""

# In the order the models were defined before, the app registry's order.
# isort: off
from tournaments.models.tournaments import (
    Tournament,
    available_time_zones,
    default_tiebreaks,
    default_time_zone,
    validate_time_zone,
)
from tournaments.models.staff import Invitation, Staff, StaffEvent, new_invitation_key
from tournaments.models.divisions import Division
from tournaments.models.players import HistoricalPlayer, Player, PlayerChange
from tournaments.models.stages import Stage, StageQuerySet
from tournaments.models.workers import WorkerHeartbeat
from tournaments.models.clocks import StageClock

# isort: on

__all__ = [
    "Division",
    "HistoricalPlayer",
    "Invitation",
    "Player",
    "PlayerChange",
    "Staff",
    "StaffEvent",
    "Stage",
    "StageClock",
    "StageQuerySet",
    "Tournament",
    "WorkerHeartbeat",
    "available_time_zones",
    "default_tiebreaks",
    "default_time_zone",
    "new_invitation_key",
    "validate_time_zone",
]
