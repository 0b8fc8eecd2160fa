"""Sending scoring's Celery tasks by name: the modules the tasks call (the standings, the stages)
send them without importing scoring.tasks, which imports those modules."""

from typing import Any

from celery import current_app

REBUILD_STANDINGS = "scoring.tasks.rebuild_standings"
ADVANCE_FROM_STAGE = "scoring.tasks.advance_from_stage"
CLOSE_GAME = "scoring.tasks.close_game"


def send(name: str, *, countdown: float | None = None, **kwargs: Any) -> None:
    """Queue the task `name` with keyword arguments (run at once where tasks run inline)."""
    current_app.tasks[name].apply_async(kwargs=kwargs, countdown=countdown)
