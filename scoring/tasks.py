"""Celery tasks of scoring: ids in, one service call."""

from celery import shared_task
from django.db import OperationalError

from scoring import queue, standings
from scoring.services import closing, game_close
from tournaments.models import Stage


@shared_task(bind=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rebuild_standings(self, *, stage_id: int) -> None:
    """Rebuild a stage's standings; safe to run twice and in parallel."""
    queue.run_started(standings.pending_key(stage_id), "standings")
    stage = Stage.objects.filter(pk=stage_id).first()
    if stage is None:  # deleted after the task was queued
        return
    try:
        standings.rebuild_standings(stage=stage)
    except standings.RebuildBusy:
        raise self.retry(countdown=0.5, max_retries=40) from None


@shared_task
def sweep_stale_standings() -> int:
    """Resend what a Redis outage lost: rebuilds of stale standings, seating of next levels, the
    close of a finished game whose next game is seated from it."""
    stage_ids = standings.stale_stage_ids()
    for stage_id in stage_ids:
        rebuild_standings.delay(stage_id=stage_id)
    waiting = closing.stages_awaiting_advance()
    for stage_id in waiting:
        advance_from_stage.delay(stage_id=stage_id)
    finished = game_close.games_awaiting_close()
    for stage_id in finished:
        close_game.delay(stage_id=stage_id)
    return len(stage_ids) + len(waiting) + len(finished)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def advance_from_stage(*, stage_id: int) -> None:
    """Seat the next playoff level from a closed stage, or decide the placings; idempotent."""
    stage = Stage.objects.filter(pk=stage_id).first()
    if stage is not None:
        closing.follow_up_close(stage=stage)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def close_game(*, stage_id: int) -> None:
    """Close a game whose last table has confirmed its last round, when the next game is seated
    from it (its follow-up seats that game); idempotent."""
    stage = Stage.objects.filter(pk=stage_id).first()
    if stage is not None:
        game_close.close_finished_game(stage=stage)
