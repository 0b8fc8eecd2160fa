"""What happens when a stage closes: the close itself (qualifying or playoff), seating the next
playoff level from its advancers, and the final placings.

Each table's top K (plus wildcards) advance; advancers who fit at one table play the final,
otherwise each playoff table's winners advance again, level by level. Closing the final places
everyone: the final table's ranking first, then the others by the level they went out at, then
by their rank there.
"""

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import translation
from django.utils.translation import gettext as _

from config import task_names
from scoring import queue, signals, standings, time_called
from scoring.models import Placing, RoundResult, StandingRow
from scoring.rules import medals
from scoring.services import games, reopen
from tables import reporting, seating
from tables import selectors as tables_selectors
from tables import services as table_services
from tables.models import SeatClaim
from tournaments.choices import Follows
from tournaments.exceptions import StateConflict
from tournaments.models import Player, Stage, Tournament
from tournaments.services.stage_changes import (
    create_stage,
    further_level,
    lock_stage,
    names_read,
    stage_name_key,
)
from tournaments.stagenames import in_every_language, name_key

logger = logging.getLogger(__name__)


class CloseRefused(StateConflict):
    """A stage that cannot close yet; `problems` lists what blocks it."""

    def __init__(self, message: str, problems: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.problems = problems


def missing_results(stage: Stage) -> list[dict[str, Any]]:
    """Every table and round of the stage without a confirmed result, in table order (each
    table's rounds up to its last once time was called)."""
    status = {
        (table_id, round_no): state
        for table_id, round_no, state in RoundResult.objects.filter(stage=stage).values_list(
            "table_id", "round_no", "status"
        )
    }
    missing = []
    last = time_called.last_rounds(stage) or {}  # once time is called, each table to its last round
    firsts = tables_selectors.first_rounds(stage)  # a table opened for late players: from its first
    for table_id, number in stage.tables.order_by("number").values_list("pk", "number"):
        for round_no in range(firsts.get(table_id, 1), last.get(number, stage.rounds) + 1):
            state = status.get((table_id, round_no), "missing")
            if state != RoundResult.Status.CONFIRMED:
                missing.append({"table": number, "round": round_no, "status": state})
    return missing


@transaction.atomic
def close_stage(*, stage: Stage, by: AbstractBaseUser) -> Stage:
    """Close a stage whose every table has every round confirmed; then seat what follows.

    Closing twice is harmless. Refused (CloseRefused, 409) while a result is missing or not
    confirmed, or while a tie the rules cannot break decides who advances.
    """
    try:  # a worker may be rebuilding the standings: wait for it (before locking the stage)
        standings.wait_for_rebuild(stage.pk)
    except standings.RebuildBusy:
        raise StateConflict(
            _("The standings of %(stage)s are being updated right now: try again in a moment.")
            % {"stage": stage.display_name}
        ) from None
    stage = lock_stage(stage.pk, alone=True)
    if stage.status == Stage.Status.CLOSED:
        transaction.on_commit(lambda: send_advance(stage.pk))
        return stage
    if stage.status == Stage.Status.PENDING:
        raise StateConflict(
            _("%(stage)s is not seated yet: there is nothing to close.")
            % {"stage": stage.display_name}
        )
    missing = missing_results(stage)
    if missing:
        listed = "; ".join(
            (
                _("table %(table)s round %(round)s is missing")
                if m["status"] == "missing"
                else _("table %(table)s round %(round)s is disputed, for an official to settle")
                if m["status"] == RoundResult.Status.DISPUTED
                else _("table %(table)s round %(round)s is not confirmed")
            )
            % m
            for m in missing[:12]
        )
        message = (
            _(
                "%(stage)s cannot close yet: %(missing)s and %(more)s more. Enter and confirm them "
                "first."
            )
            if len(missing) > 12
            else _("%(stage)s cannot close yet: %(missing)s. Enter and confirm them first.")
        )
        values = {"stage": stage.display_name, "missing": listed, "more": len(missing) - 12}
        raise CloseRefused(message % values, missing)
    meta = standings.rebuild_standings(stage=stage)  # the rebuild lock is this transaction's
    if meta.flags:
        ties = " ".join(standings.tie_message(flag) for flag in meta.flags)
        raise CloseRefused(
            _("%(stage)s cannot close yet: %(ties)s") % {"stage": stage.display_name, "ties": ties},
            meta.flags,
        )
    stage.status = Stage.Status.CLOSED
    stage.save(update_fields=["status"])
    # Its players' phones are done with it: the next stage's tables have new codes.
    reporting.end_claims(SeatClaim.objects.filter(seat__stage=stage))
    _try_what_follows(stage)
    transaction.on_commit(lambda: send_advance(stage.pk))
    return stage


def close_and_say(*, stage: Stage, by: AbstractBaseUser) -> tuple[Stage, str]:
    """close_stage, and what it set going, said to the organiser in the active language: the
    next game seated, the placings decided (a final table, or a stage that places by total),
    everyone on to the next qualifying stage, or the next playoff level seated."""
    following = games.next_game(stage)  # seated from this game by the close's follow-up
    stage = close_stage(stage=stage, by=by)
    follows = Stage.objects.what_follows(stage, tables=stage.tables.count())
    if following is not None:
        said = _("%(stage)s is closed. %(next)s is being seated now.")
    elif follows == Follows.PLACINGS:
        said = _("%(stage)s is closed. The placings are decided now.")
    elif follows == Follows.QUALIFYING:
        said = _("%(stage)s is closed. Everyone plays the next stage, seated by the organiser.")
    else:
        said = _("%(stage)s is closed. The next playoff level is being seated now.")
    return stage, said % {
        "stage": stage.display_name,
        "next": following and following.display_name,
    }


class _Trial(Exception):
    """Ends a trial run, so that its savepoint is rolled back."""


def _try_what_follows(stage: Stage) -> None:
    """Seat the next level (or place everyone) on trial, with the worker's own code, and undo
    it: a close that the worker could not follow up is refused now, saying why, instead of
    failing in the worker where nobody sees it. The callbacks the trial registers for its
    commit go with its savepoint."""
    try:
        with transaction.atomic():
            advance_from_stage(stage=stage)
            raise _Trial
    except _Trial:
        return
    except StateConflict as conflict:
        if (game := games.next_game(stage)) is not None:
            message = _("%(stage)s cannot close yet: %(next)s cannot be seated from it. %(reason)s")
            values = {"stage": stage.display_name, "next": game.display_name, "reason": conflict}
            raise StateConflict(message % values) from None
        message = _(
            "%(stage)s cannot close yet: the players who advance cannot be seated at the next "
            "level. "
            "%(reason)s"
        ) % {"stage": stage.display_name, "reason": conflict}
        again = _("Then close again.")
        raise StateConflict(f"{message} {_what_to_change(stage)} {again}") from None


def _what_to_change(stage: Stage) -> str:
    """What the organiser changes when the stage's advancers do not fit the next level."""
    following = Stage.objects.next_level_of(stage)
    if following is not None:
        return _("Change the table sizes of %(next)s on its page in the console.") % {
            "next": following.display_name
        }
    # The level would be made like the last one: the organiser makes it instead.
    return _(
        "Add the next level under Stages in the console (Add a stage), with table sizes that fit."
    )


def send_advance(stage_id: int) -> None:
    try:
        queue.send(task_names.ADVANCE_FROM_STAGE, stage_id=stage_id)
    except Exception:  # the broker is down: the beat sweeper sends it again
        logger.warning("playoffs: could not send the advance of stage %s", stage_id, exc_info=True)


def _next_playoff_stage(stage: Stage, advancers: int) -> Stage:
    """The next pending playoff stage in order, or a new level like the last playoff stage."""
    tournament = stage.tournament
    if (pending := Stage.objects.next_level_of(stage)) is not None:
        return pending
    template = tournament.stages.filter(kind=Stage.Kind.PLAYOFF).order_by("-order").first() or stage
    final = advancers <= template.table_size_max
    levels = tournament.stages.filter(kind=Stage.Kind.PLAYOFF).count()
    # Named by a worker, as a name key read in the reader's language (tournaments.stagenames);
    # a stage's name is unique in its tournament in every language, and the organiser may have
    # taken this one: then "Final (2)", and so on.
    taken = {
        stage_name_key(name)
        for stage_names in tournament.stages.values_list("name", "name_key")
        for name in names_read(*stage_names)
    }
    kind, level = ("final", None) if final else ("playoff_level", levels + 1)
    key, copy = name_key(kind, level=level), 1
    while any(stage_name_key(name) in taken for name in in_every_language(key)):
        copy += 1
        key = name_key(kind, level=level, copy=copy)
    stage = create_stage(tournament=tournament, name_key=key, **further_level(template))
    # Made here, not set up by the organiser: reopening the stage before, or a practice reset,
    # removes it (scoring.services.reopen, reset_practice).
    Stage.objects.filter(pk=stage.pk).update(made_by_close=True)
    stage.made_by_close = True
    if template.kind == Stage.Kind.PLAYOFF and template.seed_by_rating:
        # A playoff seeded by rating is seeded so at every level (the option was checked when
        # the organiser set it; tables.by_rating seats without ratings if the club let go since).
        Stage.objects.filter(pk=stage.pk).update(seed_by_rating=True)
        stage.seed_by_rating = True
    return stage


@transaction.atomic
def advance_from_stage(*, stage: Stage) -> Stage | None:
    """Seat the next playoff level from a closed stage's advancers, or place everyone after the
    final. Idempotent: run twice, it seats once. Returns the stage it seated, if any."""
    stage = lock_stage(stage.pk, alone=True)
    if stage.status != Stage.Status.CLOSED:
        return None
    if Stage.objects.filter(source_stage=stage).exists():
        return None  # seated already
    follows = Stage.objects.what_follows(stage, tables=stage.tables.count())
    if follows == Follows.QUALIFYING:
        # Everyone plays the next qualifying stage: seated here when it is a game seated from
        # this one (Stage.movement), else by the organiser.
        seated = games.seat_next_game(stage)
        if seated is not None:
            reopen.note_who_moved(stage, seated)
        return seated
    if follows == Follows.PLACINGS:
        decide_placings(final=stage)
        # The public pages are kept per snapshot: a new one draws them again, with the winners.
        standings.request_rebuild(stage)
        return None
    standings.rebuild_standings(stage=stage)  # current already unless a late correction
    advancers = list(
        StandingRow.objects.filter(stage=stage, advances=True)
        .select_related("player")
        .order_by("rank", "player__number")
    )
    apart = stage.tournament.division_playoffs == Tournament.DivisionPlayoffs.PER_DIVISION
    if apart:
        advancers = _playing_on_in_their_division(stage, advancers)
        if not advancers:  # no division has two players left to play each other
            decide_placings(final=stage)
            standings.request_rebuild(stage)
            return None
    next_stage = _next_playoff_stage(stage, len(advancers))
    entrants = [
        seating.Entrant(
            id=row.player_id,
            rank=place,
            # Divisions playing their own playoffs are seated apart (the players of no
            # division are a group of their own).
            group=(row.player.division_id or 0) if apart else None,
        )
        for place, row in enumerate(advancers, start=1)
    ]
    table_services.seat_stage(
        stage=next_stage,
        by=None,
        entrants=entrants,
        from_tables={row.player_id: row.table_number for row in advancers},
    )
    next_stage.source_stage = stage
    next_stage.save(update_fields=["source_stage"])
    reopen.note_who_moved(stage, next_stage)
    return next_stage


def _playing_on_in_their_division(stage: Stage, advancers: list[StandingRow]) -> list[StandingRow]:
    """Of a closed stage's advancers, those who play the next level of their division's own
    playoff: not a division that played its final here (a playoff level where it had one
    table), nor one with a single player advancing (its champion, placed here)."""
    finished: set[int | None] = set()
    if stage.kind == Stage.Kind.PLAYOFF:
        tables: dict[int | None, set[int]] = {}
        for division, table in stage.seats.values_list("player__division", "table_id"):
            tables.setdefault(division, set()).add(table)
        finished = {division for division, held in tables.items() if len(held) == 1}
    by_division: dict[int | None, list[StandingRow]] = {}
    for row in advancers:
        if row.player.division_id not in finished:
            by_division.setdefault(row.player.division_id, []).append(row)
    playing = {row.pk for group in by_division.values() if len(group) > 1 for row in group}
    return [row for row in advancers if row.pk in playing]


def decide_placings(*, final: Stage) -> list[Placing]:
    """Everyone's place: the final table first, then each earlier stage's players who went out
    there, deeper levels first, by their rank in that stage; and each player's place in their
    division (scoring.rules.medals). Recomputed, never incremented."""
    tournament = final.tournament
    Placing.objects.filter(tournament=tournament).delete()
    stages = [final, *tournament.stages.filter(order__lt=final.order).order_by("-order")]
    rows = StandingRow.objects.filter(stage__in=stages).order_by("rank", "player__number")
    by_stage: dict[int, list[StandingRow]] = {}
    for row in rows:
        by_stage.setdefault(row.stage_id, []).append(row)
    placed: set[int] = set()
    placings: list[Placing] = []
    for stage in stages:
        # A player who advanced and played no later stage (their division's only player to
        # advance, or its table winner at the level where it played its final) comes first.
        block = sorted(
            (row for row in by_stage.get(stage.pk, []) if row.player_id not in placed),
            key=lambda row: not row.advances,
        )
        offset = len(placings)
        previous_rank, place = None, offset
        for index, row in enumerate(block):
            if row.rank != previous_rank:
                place, previous_rank = offset + index + 1, row.rank
            placings.append(
                Placing(tournament=tournament, player_id=row.player_id, place=place, stage=stage)
            )
            placed.add(row.player_id)
    divisions = dict(tournament.players.values_list("pk", "division_id"))
    # A player who withdrew is placed overall (after those who played on) but not in a
    # division: no medal for a player who left, the next one who played on takes it.
    withdrawn = set(
        tournament.players.filter(status=Player.Status.WITHDRAWN).values_list("pk", flat=True)
    )
    in_groups = medals.places_in_groups(
        (p.player_id, p.place, divisions.get(p.player_id))
        for p in placings
        if p.player_id not in withdrawn
    )
    for placing in placings:
        placing.division_id = divisions.get(placing.player_id)
        placing.division_place = in_groups.get(placing.player_id)
    created = Placing.objects.bulk_create(placings)
    # The apps above (a club's season ladder) hear of it once committed; a trial run's
    # callbacks (_try_what_follows) go with its savepoint.
    transaction.on_commit(
        lambda: signals.placings_decided.send(sender=Placing, tournament=tournament), robust=True
    )
    return created


def follow_up_close(*, stage: Stage) -> Stage | None:
    """What a worker does after a close: advance_from_stage. What stops it (the next level's
    tables changed since the close, say) is kept on the stage for the console, in the site's
    language, and the sweeper tries again (STANDINGS_SWEEP_SECONDS), so a fix made meanwhile
    goes through."""
    with translation.override(settings.LANGUAGE_CODE):
        try:
            seated = advance_from_stage(stage=stage)
        except ValidationError as problem:
            text = " ".join(problem.messages)
        except StateConflict as problem:
            text = f"{problem} {_what_to_change(stage)}"
        else:
            text = ""
    record_advance_problem(stage, text)
    if text:
        logger.error("playoffs: what follows stage %s is not done: %s", stage.pk, text)
        return None
    return seated


def record_advance_problem(stage: Stage, text: str) -> None:
    """Keep on the stage why what follows it is not done ("" once it is). A refusal is not
    kept once the next level is seated: a run of the task sent twice may have seated it
    between this run's attempt and this write."""
    stage_row = Stage.objects.filter(pk=stage.pk).exclude(advance_problem=text)
    if text:
        stage_row = stage_row.filter(next_level__isnull=True)
    stage_row.update(advance_problem=text)


def stages_awaiting_advance() -> list[int]:
    """Closed stages whose follow-up never happened (a task lost to a broker outage): a stage of
    several tables with no next level seated, or a final with no placings."""
    waiting = set(Stage.objects.awaiting_next_level().values_list("pk", flat=True))
    unplaced = (
        Stage.objects.with_table_count()
        .filter(
            Q(table_count=1)
            | Q(decides_placings=True)
            | Q(pk__in=Stage.objects.finals_of_divisions())
        )
        .filter(status=Stage.Status.CLOSED, next_level__isnull=True)
        .exclude(tournament__placings__isnull=False)
    )
    # A closed game whose next game, seated from it, is not seated yet (scoring.services.games).
    games_waiting = Stage.objects.filter(
        status=Stage.Status.CLOSED,
        next_level__isnull=True,
        tournament__stages__order=F("order") + 1,
        tournament__stages__status=Stage.Status.PENDING,
        tournament__stages__kind=Stage.Kind.QUALIFYING,
        tournament__stages__movement__in=[Stage.Movement.MOVE, Stage.Movement.RESEAT],
    )
    waiting |= set(games_waiting.values_list("pk", flat=True))
    return sorted(waiting | set(unplaced.values_list("pk", flat=True)))
