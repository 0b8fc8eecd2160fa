"""What calling time fixes, read by the results, the close, the standings and the pages: each
table's last round (StageClock.rounds_at_call), the rounds the overall ranking counts, and the
round in play scored as it stands. The clock's actions are scoring.services.clock's."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring import rules
from scoring.models import RoundResult
from tables import selectors as tables_selectors
from tournaments.exceptions import StateConflict
from tournaments.models import Stage, StageClock

AS_STANDS_MESSAGE = gettext_lazy(
    "Time was called during this round: it is scored as it stands, as a blocked round (nobody "
    "went out). Mark it as blocked."
)


def clock_of(stage: Stage) -> StageClock | None:
    try:
        return stage.clock
    except StageClock.DoesNotExist:
        return None


def called_clock(stage: Stage) -> StageClock | None:
    """The stage's clock when time was called, else None. A stage without a time limit has no
    clock to call (and costs no query: every result entry asks)."""
    if stage.time_limit_minutes is None:
        return None
    clock = clock_of(stage)
    return clock if clock is not None and clock.called_at is not None else None


def last_rounds(stage: Stage) -> dict[int, int] | None:
    """table number -> the last round it plays, once time was called; None before."""
    clock = called_clock(stage)
    if clock is None:
        return None
    return {int(number): last for number, last in clock.rounds_at_call.items()}


def last_round_of(stage: Stage, table_number: int) -> int:
    """The last round a table plays: the stage's rounds, or fewer once time was called."""
    last = last_rounds(stage)
    if last is None:
        return stage.rounds
    return last.get(table_number, stage.rounds)


def rounds_every_table_plays(stage: Stage) -> int:
    """The rounds the overall ranking counts once every table is in: the stage's rounds, or the
    fewest of the tables' last rounds once time was called."""
    last = last_rounds(stage)
    return min(last.values(), default=stage.rounds) if last else stage.rounds


def unplayed_text(last: int, table_number: int, round_no: int) -> str:
    return _(
        "Time was called after round %(last)s at table %(table)s: round %(round)s is not played."
    ) % {"last": last, "table": table_number, "round": round_no}


def refuse_unplayed_round(stage: Stage, table_number: int, round_no: int) -> None:
    """A result for a round after its table's last round, once time was called: 409."""
    last = last_round_of(stage, table_number)
    if round_no > last:
        raise StateConflict(unplayed_text(last, table_number, round_no))


def round_in_play_as_stands(stage: Stage, table_number: int, round_no: int) -> bool:
    """Whether this round is the round in play at the call, scored as it stands (AS_STANDS): it is
    entered as a blocked round."""
    clock = called_clock(stage)
    if clock is None or stage.time_rule != Stage.TimeRule.AS_STANDS:
        return False
    if round_no != last_round_of(stage, table_number):
        return False
    # A table that had finished (or entered this round) before the call had no round in play.
    return not RoundResult.objects.filter(
        stage=stage,
        table__number=table_number,
        round_no=round_no,
        created_at__lte=clock.called_at,
    ).exists()


def called_after(stage: Stage) -> dict[int, int]:
    """table number -> N for each table whose time was called after round N below the stage's
    rounds ("Time called after round N")."""
    last = last_rounds(stage) or {}
    return {number: n for number, n in last.items() if n < stage.rounds}


def results_expected(stage: Stage) -> int:
    """The results the stage needs: every table's rounds (from its first, for a table opened for
    late players), up to its last once time was called."""
    last = last_rounds(stage)
    tables = stage.tables.count()
    # A table opened for late players has no rounds before its first.
    before = sum(first - 1 for first in tables_selectors.first_rounds(stage).values())
    if last is None:
        return tables * stage.rounds - before
    return sum(last.values()) + stage.rounds * max(tables - len(last), 0) - before


def decided(stage: Stage, through: int, *, counted: int, expected: int) -> bool:
    """Whether the standings say who advances rather than who would: every round counted
    (rules.decided), or, once time was called, every table's rounds up to its last confirmed."""
    if called_clock(stage) is not None:
        return expected > 0 and counted >= expected
    return rules.decided(through, stage.rounds)


def time_called_summary(stage: Stage | None) -> dict[str, Any] | None:
    """For the standings notes once time was called: the rounds every table played (`through`)
    and, per table that played fewer than the stage's rounds, "time called after round N"."""
    last = last_rounds(stage) if stage is not None else None
    if not last:
        return None
    return {
        "through": min(last.values()),
        "after": sorted(called_after(stage).items()),
    }
