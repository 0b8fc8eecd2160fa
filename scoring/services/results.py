"""Round results: submit, replace, correct and confirm, every version kept, idempotent by key.

Checks run in the contract's order (docs/API.md, "Round results"): the Idempotency-Key replay,
the stage being open, the version preconditions (If-Match), then the body. A rejected request
stores nothing.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from scoring import rules, standings, time_called
from scoring.exceptions import NoResult, UnusualScores, VersionChanged, VersionRequired
from scoring.models import RoundResult, RoundResultVersion, Score
from scoring.services import disputes, game_close, reopen
from scoring.services.bodies import (
    ANSWER_FIELDS,
    answer_fields,
    answer_mismatches,
    parse_submission,
    result_body,
    scores_of,
)
from scoring.services.history import RequestMeta, record_version
from scoring.services.idempotency import body_hash, check_key, claim, remember, stored_answer
from tables.models import Seat, Table
from tournaments.exceptions import StateConflict
from tournaments.models import Stage
from tournaments.services.stage_changes import closed_message, lock_stage


@dataclass
class Outcome:
    """What a submission did (made the result, replaced it, or was a replay of an earlier one)
    and its answer; a replay's answer is the stored one, to the letter."""

    body: dict[str, Any]
    etag: str
    result: RoundResult | None = None
    created: bool = False
    replayed: bool = False

    @property
    def what(self) -> str:
        """ "created", "replaced" or "replayed"."""
        return "replayed" if self.replayed else "created" if self.created else "replaced"


def etag_matches(if_match: str, result: RoundResult) -> bool:
    tags = [tag.strip().removeprefix("W/") for tag in if_match.split(",")]
    return "*" in tags or result.etag in tags


def _seats_at(table: Table) -> list[Seat]:
    """The table's seats with their players, in seat order."""
    return list(Seat.objects.filter(table=table).select_related("player").order_by("position"))


def seated_for_round(
    table: Table, round_no: int, seats: list[Seat] | None = None
) -> dict[int, str]:
    """player id -> name of those who play this round at the table, in seat order."""
    seats = _seats_at(table) if seats is None else seats
    return {s.player_id: s.player.name for s in seats if s.plays_round(round_no)}


def _save(
    *,
    table: Table,
    round_no: int,
    data: Mapping[str, Any],
    by: AbstractBaseUser,
    if_match: str | None,
    meta: RequestMeta,
    ask_unusual: bool = False,
) -> Outcome:
    stage = _lock_for_results(table, by=by)
    reopening = stage.status == Stage.Status.CLOSED  # an organiser's correction after the close
    existing = (  # the result's row only: the ordering joins the stage, shared-locked above
        RoundResult.objects.select_for_update(of=("self",))
        .filter(table=table, round_no=round_no)
        .first()
    )
    if existing is not None:
        existing.table = table
        disputes.check_seat_replaces(existing, by=by)  # a seat changes no confirmed round
        current = {
            "round": round_no,
            "table": table.number,
            "version": existing.version,
            # The label, lowercased, is the status itself in English: "submitted", "confirmed".
            "status": existing.get_status_display().lower(),
        }
        if not if_match:
            raise VersionRequired(
                _(
                    "Round %(round)s at table %(table)s already has a result (version "
                    "%(version)s, %(status)s). Send If-Match with its ETag to replace it."
                )
                % current
            )
        if not etag_matches(if_match, existing):
            raise VersionChanged(
                _(
                    "Round %(round)s at table %(table)s changed since you loaded it: it is now "
                    "version %(version)s (%(status)s). Check it and edit that version."
                )
                % current,
                existing,
            )
    checked = _check(table=table, stage=stage, round_no=round_no, data=data, existing=existing)
    blocked, lines, reason, seats = checked.blocked, checked.lines, checked.reason, checked.seats
    engine, errors, warnings = checked.engine, checked.errors, checked.warnings
    was_confirmed = existing is not None and existing.status == RoundResult.Status.CONFIRMED
    unasked = ask_unusual and not all(w.checked for w in warnings)
    if errors and unasked:
        # The entry page says every problem at once: the errors and the scores to check.
        raise UnusualScores(
            _(
                "Not saved: correct the scores marked, and check the unusual ones with the "
                'players (send them again with "checked": true on each, or correct them).'
            ),
            warnings,
            checked.seated,
            errors=errors,
        )
    if errors:
        raise ValidationError(errors)
    if unasked:
        raise UnusualScores(
            _(
                "Not saved: some scores are unusual for the deal. Check them with the players, "
                'then send them again with "checked": true on each, or correct them.'
            ),
            warnings,
            checked.seated,
        )

    if reopening:  # what its close made is undone, in this transaction: all of it or none
        stage = reopen.reopen_locked(stage)
    if existing is None:
        result = RoundResult.objects.create(
            stage=stage,
            table=table,
            round_no=round_no,
            engine=engine,
            blocked=blocked,
            submitted_by=by,
            warnings=[w.as_dict() for w in warnings],
        )
        action, created = RoundResultVersion.Action.SUBMITTED, True
    else:
        result = existing
        result.scores.all().delete()
        result.blocked, result.version = blocked, result.version + 1
        result.warnings = [w.as_dict() for w in warnings]
        result.status, result.confirmed_by, result.submitted_by = (
            RoundResult.Status.SUBMITTED,
            None,
            by,
        )
        result.save()
        action = (
            RoundResultVersion.Action.CORRECTED
            if was_confirmed
            else RoundResultVersion.Action.REPLACED
        )
        created = False
    # The scores as written, with the players and positions read above: the history and the
    # answer need no second reading.
    seat_of = {seat.player_id: seat for seat in seats}
    scores = Score.objects.bulk_create(
        Score(
            result=result,
            player=seat_of[line.player_id].player,
            pips=rules.parse_pips(line.pips),
            went_out=line.went_out,
        )
        for line in lines
    )
    for score in scores:
        score.position = seat_of[score.player_id].position
    record_version(result, scores=scores, action=action, by=by, meta=meta, reason=reason)
    if was_confirmed:
        standings.request_rebuild(stage, results=True)
    body = result_body(result, scores)
    return Outcome(body=body, etag=result.etag, result=result, created=created)


def _lock_for_results(table: Table, *, by: AbstractBaseUser) -> Stage:
    """The stage of a result being entered or corrected, locked: shared while it is open; a
    closed stage `alone`, as its reopen needs, when `by` may correct it (reopen.check_correction:
    an organiser, while no later stage has a result), else refused (StateConflict). The stage
    as the caller read it says which lock to take, at no extra query."""
    closed = table.stage.status == Stage.Status.CLOSED
    stage = lock_stage(table.stage_id, alone=closed)
    if stage.status == Stage.Status.CLOSED:
        reopen.check_correction(stage, by=by)
        if not closed:  # closed between the reading and the lock: the lock a reopen needs
            stage = lock_stage(table.stage_id, alone=True)
    return stage


@dataclass
class _Checked:
    """A round's body read and judged (_check): what it says, and what is wrong with it."""

    blocked: bool
    lines: list[rules.ScoreLine]
    reason: str
    engine: int
    seats: list[Seat]
    seated: dict[int, str]
    errors: dict[str, list[str]]
    # The unusual scores among those with no error of their own: asked about with the errors.
    warnings: list[rules.PipsWarning]


def _check(
    *,
    table: Table,
    stage: Stage,
    round_no: int,
    data: Mapping[str, Any],
    existing: RoundResult | None,
) -> _Checked:
    """Every problem of the body for the round, found without writing anything. Raises
    ValidationError only for a body that cannot be read or a round the stage does not have."""
    blocked, lines, reason = parse_submission(data)
    if not 1 <= round_no <= stage.rounds:
        message = _("%(stage)s has rounds 1 to %(rounds)s.")
        raise ValidationError(
            {"round_no": [message % {"stage": stage.display_name, "rounds": stage.rounds}]}
        )
    time_called.refuse_unplayed_round(stage, table.number, round_no)  # time called before it
    engine = stage.engine(round_no)
    seats = _seats_at(table)
    first = min((seat.from_round for seat in seats), default=1)
    if round_no < first:  # a table opened for late players has no round before its first
        message = _(
            "Table %(table)s joined %(stage)s at round %(first)s: it has no round %(round)s."
        )
        values = {"table": table.number, "stage": stage.display_name, "first": first}
        raise ValidationError({"round_no": [message % {**values, "round": round_no}]})
    seated = seated_for_round(table, round_no, seats)
    errors = rules.validate_round(
        seated=seated,
        lines=lines,
        blocked=blocked,
        domino_set=stage.domino_set,
        engine=engine,
    )
    if not blocked and time_called.round_in_play_as_stands(stage, table.number, round_no):
        errors.setdefault("blocked", []).append(time_called.AS_STANDS_MESSAGE)
    answer: dict[str, Any] = {}
    if not set(data).isdisjoint(ANSWER_FIELDS):  # sent back: its users are read only then
        answer = (
            answer_fields(existing)
            if existing is not None
            else {"table": table.pk, "round_no": round_no, "engine": engine}
        )
    for name, messages in answer_mismatches(data, answer=answer, seats=seats).items():
        errors.setdefault(name, []).extend(messages)
    was_confirmed = existing is not None and existing.status == RoundResult.Status.CONFIRMED
    if was_confirmed and not reason:
        errors.setdefault("reason", []).append(
            _("This result was confirmed: say why it is being corrected.")
        )
    judged = [line for line in lines if f"scores.{line.player_id}" not in errors]
    warnings = unusual_scores(table, stage, judged, players=len(seated))
    return _Checked(blocked, lines, reason, engine, seats, seated, errors, warnings)


def check_round_result(
    *, table: Table, round_no: int, data: Mapping[str, Any]
) -> tuple[dict[str, list[str]], list[rules.PipsWarning], dict[int, str]]:
    """What submitting `data` for the round would refuse, without storing or locking anything:
    (errors, unusual scores, player id -> name). The entry page checks a draft kept on the
    tablet with it when it puts the draft back. Not a promise: the stage may close, or another
    device save, before the draft is sent."""
    stage = Stage.objects.get(pk=table.stage_id)
    existing = RoundResult.objects.filter(table=table, round_no=round_no).first()
    checked = _check(table=table, stage=stage, round_no=round_no, data=data, existing=existing)
    return checked.errors, checked.warnings, checked.seated


def submit_round_result(
    *,
    table: Table,
    round_no: int,
    data: Mapping[str, Any],
    by: AbstractBaseUser,
    if_match: str | None = None,
    idempotency_key: str | None = None,
    request_path: str = "",
    meta: RequestMeta = RequestMeta(),
    ask_unusual: bool = False,
) -> Outcome:
    """Create or replace a table's result for a round.

    Scores the deal makes unusual (rules.plausibility) are stored with their warnings, `checked`
    where the body says the official confirmed them; with `ask_unusual`, a result with one not
    checked is refused (UnusualScores) and nothing is stored: the entry page asks first.

    With an Idempotency-Key, the key is stored in the same transaction as the result: the same
    key and body replay the stored answer; another body raises KeyReused. A concurrent request
    with the same key waits on the key's row and then replays; two different requests racing for
    a new round leave one result (the database's unique constraint), the other VersionRequired.
    """
    check_key(idempotency_key)
    digest = body_hash(request_path, data)
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                record = None
                if idempotency_key:
                    stored = stored_answer(user=by, key=idempotency_key, digest=digest)
                    if stored is not None:
                        return Outcome(
                            body=stored.response_body,
                            etag=stored.response_etag,
                            created=stored.created,
                            replayed=True,
                        )
                    record = claim(user=by, key=idempotency_key, path=request_path, digest=digest)
                outcome = _save(
                    table=table,
                    round_no=round_no,
                    data=data,
                    by=by,
                    if_match=if_match,
                    meta=meta,
                    ask_unusual=ask_unusual,
                )
                if record is not None:
                    remember(record, created=outcome.created, body=outcome.body, etag=outcome.etag)
                return outcome
        except IntegrityError:
            if attempt == 2:
                raise
            # Another request committed first (the same key, or the same table and round): the
            # second attempt sees its row and replays it, or asks for If-Match.
    raise AssertionError("unreachable")


def unusual_scores(
    table: Table, stage: Stage, lines: list[rules.ScoreLine], *, players: int
) -> list[rules.PipsWarning]:
    """The round's scores the deal makes unusual: the tiles dealt at a table of `players` with
    the tournament's preset and the stage's set (rules.plausibility). Every path's one check:
    the tablet, the API and the CSV import."""
    tiles = rules.tiles_dealt(table.stage.tournament.preset, stage.domino_set, players)
    return rules.unusual_scores(lines, domino_set=stage.domino_set, tiles=tiles)


def needs_another_confirmer(stage: Stage, *, entered_by: int | None, by: int) -> bool:
    """The second-official rule: in a stage that requires it, who entered a result cannot
    confirm it."""
    return stage.requires_second_person and entered_by == by


@transaction.atomic
def confirm_round_result(
    *,
    result: RoundResult,
    by: AbstractBaseUser,
    if_match: str | None = None,
    meta: RequestMeta = RequestMeta(),
) -> RoundResult:
    """Confirm a submitted result. Confirming twice is harmless.

    With If-Match, a result changed since it was read is refused (412): nobody confirms numbers
    the players did not see.
    """
    stage = lock_stage(result.stage_id)  # the stage first, then the result: one order
    result = _locked(RoundResult.objects.filter(pk=result.pk))
    _confirm(stage, result, by=by, if_match=if_match, meta=meta)
    return result


@transaction.atomic
def confirm_table_round(
    *,
    table: Table,
    round_no: int,
    by: AbstractBaseUser,
    if_match: str | None = None,
    meta: RequestMeta = RequestMeta(),
) -> tuple[RoundResult, list[Score] | None]:
    """confirm_round_result for the API, which names a table's round: the result is read once,
    under the stage's lock (NoResult when the table has none for the round), and the scores the
    confirmation read come back for the answer (None when it was confirmed before: nothing
    read)."""
    stage = lock_stage(table.stage_id)
    try:
        result = _locked(RoundResult.objects.filter(table=table, round_no=round_no))
    except RoundResult.DoesNotExist:
        raise NoResult from None
    return result, _confirm(stage, result, by=by, if_match=if_match, meta=meta)


def _locked(results) -> RoundResult:
    """The one result of `results`, its row locked, with what the answer names (its table, who
    submitted it)."""
    return results.select_for_update(of=("self",)).select_related("table", "submitted_by").get()


def _confirm(
    stage: Stage,
    result: RoundResult,
    *,
    by: AbstractBaseUser,
    if_match: str | None,
    meta: RequestMeta,
) -> list[Score] | None:
    """The confirmation of a result locked with its stage: its scores as recorded, or None when
    it was confirmed already (nothing done)."""
    result.stage = stage
    if result.status == RoundResult.Status.CONFIRMED:
        return None
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "results"))
    if if_match and not etag_matches(if_match, result):
        raise VersionChanged(
            _(
                "Someone changed round %(round)s at table %(table)s after you opened this page. "
                "Check the totals with the players again, then confirm."
            )
            % {"round": result.round_no, "table": result.table.number, "version": result.version},
            result,
        )
    disputes.check_seat_confirms(result, by=by)  # a seat never confirms its own entry
    if needs_another_confirmer(stage, entered_by=result.submitted_by_id, by=by.pk):
        raise ValidationError(
            _(
                "Another official must confirm this result: in this stage the person who entered "
                "it cannot confirm it."
            )
        )
    result.status, result.confirmed_by = RoundResult.Status.CONFIRMED, by
    result.version += 1
    result.save(update_fields=["status", "confirmed_by", "version", "updated_at"])
    scores = scores_of(result)
    record_version(
        result, scores=scores, action=RoundResultVersion.Action.CONFIRMED, by=by, meta=meta
    )
    standings.request_rebuild(result.stage, results=True)
    game_close.after_confirm(stage)  # the last round of a game seated on from: close it
    return scores
