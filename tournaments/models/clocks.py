"""A time-limited stage's clock: started, paused and called from the console, read by every
table's page from the server's time (so a reload or a tablet back from offline shows the same)."""

from datetime import datetime, timedelta

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models.stages import Stage


class StageClock(models.Model):
    stage = models.OneToOneField(
        Stage, on_delete=models.CASCADE, primary_key=True, related_name="clock"
    )
    running_since = models.DateTimeField(
        null=True, blank=True, help_text=_("When the clock last started; empty while paused.")
    )
    used_seconds = models.PositiveIntegerField(
        default=0, help_text=_("Time the clock ran before it last started.")
    )
    called_at = models.DateTimeField(null=True, blank=True)
    rounds_at_call = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Each table's last round, fixed when time was called: {table number: round}."),
    )

    def __str__(self) -> str:
        return f"Clock of {self.stage}"

    @property
    def started(self) -> bool:
        return self.running_since is not None or self.used_seconds > 0

    @property
    def running(self) -> bool:
        return self.running_since is not None and self.called_at is None

    def used(self, now: datetime) -> timedelta:
        """Time the clock has run by `now`."""
        run = now - self.running_since if self.running_since is not None else timedelta()
        return timedelta(seconds=self.used_seconds) + max(run, timedelta())

    def remaining(self, now: datetime) -> timedelta | None:
        """Time left by `now` (never below zero); None for a stage without a time limit."""
        if self.stage.time_limit_minutes is None:
            return None
        left = timedelta(minutes=self.stage.time_limit_minutes) - self.used(now)
        return max(left, timedelta())
