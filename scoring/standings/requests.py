"""Asking for a rebuild: a change marks its stage stale in its transaction and sends one
rebuild after the commit; the sweeper finds the stages still stale."""

import logging

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config import task_names
from scoring import queue
from scoring.models import StageStandings
from scoring.standings.cache import pending_key
from tables.models import Seat
from tournaments.models import Stage

logger = logging.getLogger(__name__)


def mark_changed(stage: Stage, *, results: bool = False) -> None:
    """Record, in this transaction, that the stage's standings are owed a rebuild. `results`:
    the change is round results alone, and the rebuild names their tables to the live pages
    (scoring.announce); any other change may show on every public page, and the rebuild that
    includes it tells them all to fetch again."""
    changes = {"change_seq": F("change_seq") + 1, "changed_at": timezone.now()}
    if not results:
        changes["every_page_seq"] = F("change_seq") + 1
    updated = StageStandings.objects.filter(stage=stage).update(**changes)
    if not updated:
        StageStandings.objects.bulk_create([StageStandings(stage=stage)], ignore_conflicts=True)


def request_rebuild(stage: Stage, *, results: bool = False) -> None:
    """Mark the stage stale now (mark_changed) and send a rebuild after the commit; never fails
    the caller."""
    mark_changed(stage, results=results)
    stage_id = stage.pk
    transaction.on_commit(lambda: send_rebuild(stage_id))


def send_rebuild(stage_id: int) -> None:
    """Send one rebuild for a burst of changes. With Redis or the broker down, the result is safe
    in PostgreSQL and the stage is marked stale there: the beat sweeper sends the rebuild when
    the broker is back."""
    queue.send_once(
        pending_key(stage_id), task_names.REBUILD_STANDINGS, pending=30, countdown=0.2,
        queue=rebuild_queue(stage_id), stage_id=stage_id,
    )  # fmt: skip


def rebuild_queue(stage_id: int) -> str | None:
    """The queue of a stage's rebuilds: settings.STANDINGS_SMALL_QUEUE for a stage of at most
    STANDINGS_SMALL_PLAYERS seated players when that queue is set (a worker of its own takes
    them: a club night's result never waits behind a 500-player event's rebuild, which holds a
    worker two to three times as long; docs/PERFORMANCE.md, "Saturday"), else None: the default
    queue."""
    small = settings.STANDINGS_SMALL_QUEUE
    if not small:
        return None
    seated = Seat.objects.filter(stage_id=stage_id).count()
    return small if seated <= settings.STANDINGS_SMALL_PLAYERS else None


def stale_stage_ids() -> list[int]:
    return list(
        StageStandings.objects.filter(built_seq__lt=F("change_seq")).values_list(
            "stage_id", flat=True
        )
    )
