"""Celery tasks of the tournaments app."""

from celery import shared_task
from django.db import OperationalError
from django.db.models import F
from django.utils import timezone

from tournaments.models import WorkerHeartbeat


@shared_task(bind=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def record_heartbeat(self) -> None:
    """Note that this worker is alive; safe to run twice (it only moves the time forward)."""
    hostname = self.request.hostname or "inline"
    updated = WorkerHeartbeat.objects.filter(hostname=hostname).update(
        seen_at=timezone.now(), tasks_seen=F("tasks_seen") + 1
    )
    if not updated:
        WorkerHeartbeat.objects.get_or_create(
            hostname=hostname, defaults={"seen_at": timezone.now(), "tasks_seen": 1}
        )
