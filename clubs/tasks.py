"""The clubs' Celery tasks: a season's ladder and a club's ratings, rebuilt by a worker."""

import logging

from celery import shared_task
from django.core.exceptions import ValidationError
from django.db import OperationalError

from clubs import ladder_services, rating_store
from clubs.models import Club, Season
from scoring import queue

logger = logging.getLogger(__name__)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rate_club(*, club_id: int, tournament_id: int | None = None) -> None:
    """Rate the club's members again from the tournament's event on (None: from the start)."""
    queue.run_started(rating_store.pending_key(club_id, tournament_id), "ratings")
    if Club.objects.filter(pk=club_id).exists():  # else deleted after the run was queued
        rating_store.rate_club(club_id=club_id, tournament_id=tournament_id)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rebuild_ladder(*, season_id: int) -> None:
    """Rebuild the season's ladder; safe to run twice. A rule it cannot be built by (its events
    taken away since) clears it: the organisers' season page says why."""
    queue.run_started(ladder_services.pending_key(season_id), "ladder")
    season = Season.objects.filter(pk=season_id).first()
    if season is None:  # deleted after the rebuild was queued
        return
    try:
        ladder_services.build_ladder(season=season)
    except ValidationError as refused:
        # Its events were taken away (or best N now exceeds them): the old ladder counted what
        # no longer counts, so it goes; the organisers' season page says why.
        ladder_services.clear_ladder(season=season)
        logger.warning("ladder: season %s cleared: %s", season_id, " ".join(refused.messages))


@shared_task
def sweep_clubs() -> int:
    """Beat's safety net: every club rated again from nothing and every season's ladder rebuilt
    (each run sent on its own, as a change sends it). Returns how many runs it sent."""
    sent = 0
    for club_id in Club.objects.values_list("pk", flat=True):
        rating_store.send_rating(club_id, None)
        sent += 1
    for season_id in Season.objects.values_list("pk", flat=True):
        ladder_services.send_ladder(season_id)
        sent += 1
    return sent
