"""Time called: a time-limited stage's clock, started, paused and called by the organisers.

The clock counts from the server's time (StageClock), so every page and tablet reads the same
time left, after a reload or back from offline. When time is called, each table's last round is
fixed (`rounds_at_call`): the round in play, one more than the highest round with any result at
that table (at most the stage's rounds). Later rounds are not played; the stage closes with each
table's rounds up to its last; the overall ranking counts the rounds every table played (the
fewest), each table's own ranking all of its rounds; the round in play is entered normally
(FINISH_ROUND) or as a blocked round (AS_STANDS).
"""

import math
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import standings
from scoring.models import RoundResult
from scoring.time_called import called_after, clock_of
from tables import selectors as tables_selectors
from tournaments.exceptions import StateConflict
from tournaments.models import Stage, StageClock
from tournaments.services.stage_changes import lock_stage


def _locked_clock(stage: Stage) -> tuple[Stage, StageClock]:
    """The stage and its clock (made when first needed), both locked until the transaction ends."""
    stage = lock_stage(stage.pk, alone=True)
    StageClock.objects.get_or_create(stage=stage)
    clock = StageClock.objects.select_for_update().get(stage=stage)
    clock.stage = stage
    return stage, clock


def _refuse_unless_playing(stage: Stage) -> None:
    if stage.status == Stage.Status.PENDING:
        raise StateConflict(
            _("%(stage)s is not seated yet: its clock starts once it is.")
            % {"stage": stage.display_name}
        )
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(
            _("%(stage)s is closed: its clock no longer runs.") % {"stage": stage.display_name}
        )


def _refuse_if_called(clock: StageClock) -> None:
    if clock.called_at is not None:
        raise StateConflict(
            _("Time was called already in %(stage)s.") % {"stage": clock.stage.display_name}
        )


@transaction.atomic
def start_clock(stage: Stage, by: AbstractBaseUser | None = None) -> StageClock:
    """Start (or resume) the stage's clock. Refused (409) for a stage not in play, without a
    time limit, already running, or whose time was called."""
    stage, clock = _locked_clock(stage)
    _refuse_unless_playing(stage)
    if stage.time_limit_minutes is None:
        raise StateConflict(
            _("%(stage)s has no time limit: set one in its settings first.")
            % {"stage": stage.display_name}
        )
    _refuse_if_called(clock)
    if clock.running:
        raise StateConflict(
            _("The clock of %(stage)s is already running.") % {"stage": stage.display_name}
        )
    clock.running_since = timezone.now()
    clock.save(update_fields=["running_since"])
    return clock


@transaction.atomic
def pause_clock(stage: Stage, by: AbstractBaseUser | None = None) -> StageClock:
    """Pause the running clock, keeping the time it ran. Refused (409) when it is not running."""
    stage, clock = _locked_clock(stage)
    _refuse_if_called(clock)
    if not clock.running:
        raise StateConflict(
            _("The clock of %(stage)s is not running: there is nothing to pause.")
            % {"stage": stage.display_name}
        )
    _stop(clock, timezone.now())
    clock.save(update_fields=["used_seconds", "running_since"])
    return clock


@transaction.atomic
def call_time(stage: Stage, by: AbstractBaseUser | None = None) -> StageClock:
    """Call time: the clock stops and each table's last round is fixed. Allowed before the limit
    runs out (the organiser decides). Refused (409) when the clock never started, or twice."""
    stage, clock = _locked_clock(stage)
    _refuse_unless_playing(stage)
    _refuse_if_called(clock)
    if not clock.started:
        raise StateConflict(
            _("The clock of %(stage)s never started: start the clock first.")
            % {"stage": stage.display_name}
        )
    now = timezone.now()
    _stop(clock, now)
    clock.called_at = now
    played = dict(
        RoundResult.objects.filter(stage=stage)
        .values("table_id")
        .annotate(last=Max("round_no"))
        .values_list("table_id", "last")
    )
    # A table opened for late players that has reported nothing yet plays its first round.
    firsts = tables_selectors.first_rounds(stage)
    clock.rounds_at_call = {
        str(number): min(
            max(played.get(table_id, 0), firsts.get(table_id, 1) - 1) + 1, stage.rounds
        )
        for table_id, number in stage.tables.order_by("number").values_list("pk", "number")
    }
    clock.save(update_fields=["used_seconds", "running_since", "called_at", "rounds_at_call"])
    standings.request_rebuild(stage)  # the ranking now counts the rounds each table plays
    return clock


def clock_state(stage: Stage, now: datetime | None = None) -> dict[str, Any]:
    """What the pages and the API show of the stage's clock, from the server's time."""
    now = now or timezone.now()
    clock = clock_of(stage)
    limit = stage.time_limit_minutes
    if clock is None:
        remaining = None if limit is None else limit * 60
        running = started = False
        called_at, rounds_at_call = None, {}
    else:
        left = clock.remaining(now)
        remaining = None if left is None else int(left.total_seconds())
        running, started = clock.running, clock.started
        called_at, rounds_at_call = clock.called_at, clock.rounds_at_call
    called = called_at is not None
    return {
        "stage": stage.pk,
        "time_limit_minutes": limit,
        "time_rule": stage.time_rule,
        "started": started,
        "running": running,
        "called": called,
        "called_at": called_at,
        "remaining_seconds": remaining,
        "time_up": bool(limit) and remaining == 0 and not called,
        "rounds_at_call": {
            str(k): v for k, v in sorted(rounds_at_call.items(), key=lambda kv: int(kv[0]))
        },
        "server_time": now,
    }


def _clock_text(seconds: int) -> str:
    """23:41, or 1:05:00 for an hour or more."""
    hours, rest = divmod(max(seconds, 0), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def page_clock(stage: Stage, now: datetime | None = None) -> dict[str, Any] | None:
    """The clock as the pages show it (templates/scoring/_clock.html, static scoring/clock.js):
    the state, the time left and the sentence for it; None for a stage without a time limit.
    Each sentence is also given with %(time)s in it, for the script that counts down."""
    if stage.time_limit_minutes is None:
        return None
    now_state = clock_state(stage, now)
    texts = {
        "running": _("Time left: %(time)s"),
        "paused": _("Clock paused: %(time)s left"),
        "waiting": _("Time limit: %(time)s (the clock has not started)"),
        "up": _("Time is up: the organiser calls time"),
        "called": _("Time called"),
    }
    if now_state["called"]:
        mode = "called"
    elif now_state["running"]:
        mode = "up" if now_state["time_up"] else "running"
    else:
        mode = "paused" if now_state["started"] else "waiting"
    remaining = now_state["remaining_seconds"] or 0
    return {
        **now_state,
        "mode": mode,
        "texts": texts,
        "text": texts[mode] % {"time": _clock_text(remaining)}
        if "%(" in texts[mode]
        else texts[mode],
        "called_after": called_after(stage) if now_state["called"] else {},
    }


def _stop(clock: StageClock, now: datetime) -> None:
    """Stop the clock at `now`, keeping the seconds it ran, a part second counted whole: a clock
    stopped within its first second has started (else the pages would say it never did)."""
    clock.used_seconds = math.ceil(clock.used(now).total_seconds())
    clock.running_since = None
