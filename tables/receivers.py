"""What tables does when tournaments tells it something (tournaments/signals.py)."""

from tables import reporting
from tournaments.models import Stage


def reporting_changed(sender: type[Stage], stage: Stage, **kwargs) -> None:
    """Who enters the stage's rounds changed: the seats' phones follow at once."""
    reporting.stage_reporting_changed(stage)
