"""The Celery workers seen lately, for the console and the readiness check."""

from django.db import models


class WorkerHeartbeat(models.Model):
    """When a Celery worker last ran a task: the console and readiness check show live workers."""

    hostname = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField()
    tasks_seen = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.hostname} at {self.seen_at:%H:%M:%S}"
