"""Round results: submit, replace, correct and confirm, every version kept, idempotent by key.

Checks run in the contract's order (shared/API.md): the Idempotency-Key replay, the stage being
open, the version preconditions (If-Match), then the body. A rejected request stores nothing.
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _

from scoring import rules, standings
from scoring.exports import SCORES_HEADER
from scoring.models import IdempotencyRecord, RoundResult, RoundResultVersion, Score
from tables.models import Seat, Table
from tournaments.csvfiles import ImportRejected, read_csv, whole_number
from tournaments.exceptions import StateConflict
from tournaments.models import Stage
from tournaments.services.stages import closed_message, lock_open_stage, lock_stage
from tournaments.text import folded


class PreconditionRequired(Exception):
    """428: replacing an existing result needs If-Match with its ETag."""


class PreconditionFailed(Exception):
    """412: the If-Match names a version that is no longer current."""

    def __init__(self, message: str, current: RoundResult) -> None:
        super().__init__(message)
        self.current = current


class IdempotencyKeyReused(Exception):
    """422: the Idempotency-Key was used before with another request body."""


@dataclass(frozen=True)
class RequestMeta:
    """Where a change came from, for the history."""

    source: str = "api"
    ip_address: str | None = None
    user_agent: str = ""


@dataclass
class Outcome:
    """The answer to a submission: replayed answers are the stored ones, to the letter."""

    status: int
    body: dict[str, Any]
    etag: str
    result: RoundResult | None = None
    replayed: bool = False
    changes: list[str] = field(default_factory=list)


def body_hash(*parts: object) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


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


def _score_body(score: Score) -> dict[str, Any]:
    player = score.player
    return {
        "player": player.pk,
        "number": player.number,
        "name": player.name,
        "pips": score.pips,
        "went_out": score.went_out,
    }


def _scores_of(result: RoundResult) -> list[Score]:
    """The result's scores with their players, each with its player's seat position at the table
    (`position`), in one query."""
    position = Seat.objects.filter(table_id=result.table_id, player_id=OuterRef("player_id"))
    # order_by(): sorted by the callers; the models' default orderings would join five tables.
    return list(
        result.scores.select_related("player")
        .annotate(position=Subquery(position.values("position")[:1]))
        .order_by()
    )


def result_body(result: RoundResult, scores: list[Score] | None = None) -> dict[str, Any]:
    """The API's answer for a result; scores as _scores_of gives them (read when not given)."""
    scores = _scores_of(result) if scores is None else scores
    ordered = sorted(scores, key=lambda s: s.position or 0)
    return {
        **_answer_fields(result),
        "blocked": result.blocked,
        "scores": [_score_body(s) for s in ordered],
    }


def _answer_fields(result: RoundResult) -> dict[str, Any]:
    """What the answer says of a result that Roundhouse sets, not a request (ANSWER_FIELDS)."""
    return {
        "table": result.table_id,
        "round_no": result.round_no,
        "engine": result.engine,
        "status": result.status,
        "version": result.version,
        "submitted_by": result.submitted_by.username if result.submitted_by else None,
        "confirmed_by": result.confirmed_by.username if result.confirmed_by else None,
        "updated_at": result.updated_at.isoformat(),
    }


SUBMISSION_FIELDS = ("blocked", "scores", "reason")
SCORE_FIELDS = ("player", "pips", "went_out")
# What the API's answer has besides (result_body, _score_body): a client may send back what it
# read with a change; these are set by Roundhouse and not read from a request.
ANSWER_FIELDS = (
    "table", "round_no", "engine", "status", "version", "submitted_by", "confirmed_by",
    "updated_at",
)  # fmt: skip
SCORE_ANSWER_FIELDS = ("number", "name")


def parse_submission(data: Mapping[str, Any]) -> tuple[bool, list[rules.ScoreLine], str]:
    """(blocked, lines, reason) from a request body, or ValidationError naming the field."""
    errors: dict[str, list[str]] = {}
    for name in sorted(set(data) - set(SUBMISSION_FIELDS) - set(ANSWER_FIELDS)):
        errors[name] = [
            _("Unknown field: the fields are %(fields)s.")
            % {"fields": ", ".join(SUBMISSION_FIELDS)}
        ]
    blocked = data.get("blocked", False)
    if not isinstance(blocked, bool):
        errors["blocked"] = [_("Say whether the round was blocked: true or false.")]
    reason = data.get("reason", "") or ""
    if not isinstance(reason, str):
        errors["reason"] = [_("The reason is text.")]
    elif len(reason) > 1000:
        errors["reason"] = [_("Keep the reason under 1,000 characters.")]
    elif "\x00" in reason:
        errors["reason"] = [_("The reason contains a NUL character.")]
    raw = data.get("scores")
    lines: list[rules.ScoreLine] = []
    if not isinstance(raw, list) or not raw:
        errors["scores"] = [_("Give a score for every player at the table.")]
    else:
        for index, item in enumerate(raw):
            player = item.get("player") if isinstance(item, dict) else None
            if isinstance(player, bool) or not isinstance(player, int):
                errors.setdefault("scores", []).append(
                    _("Score %(index)s does not name a player by id.") % {"index": index + 1}
                )
                continue
            unknown = sorted(set(item) - set(SCORE_FIELDS) - set(SCORE_ANSWER_FIELDS))
            if unknown:  # a misspelt went_out would mark nobody as went out
                errors.setdefault("scores", []).append(
                    _("Score %(index)s has the unknown field %(names)s: a score has %(fields)s.")
                    % {
                        "index": index + 1,
                        "names": ", ".join(map(repr, unknown)),
                        "fields": ", ".join(SCORE_FIELDS),
                    }
                )
            lines.append(rules.ScoreLine(player, item.get("pips"), item.get("went_out", False)))
    if errors:
        raise ValidationError(errors)
    return blocked, lines, reason.strip()


def answer_mismatches(
    data: Mapping[str, Any],
    *,
    answer: Mapping[str, Any],
    seats: list[Seat],
) -> dict[str, list[str]]:
    """Errors for what a body says of the round, or of a score's player, that is not so.

    A client may send back the answer it read, changed (ANSWER_FIELDS); those fields are set by
    Roundhouse, so a value other than the answer's is a mistake that ignoring would hide: a
    round sent to another table's address, "status": "confirmed" meant as a confirmation, or a
    score whose player id is not the player it names. `answer` holds the fields a GET of the
    round would answer now (table, round_no and engine only, when it has no result yet)."""
    errors: dict[str, list[str]] = {}
    for name in ANSWER_FIELDS:
        if name not in data or _same_answer(name, data[name], answer.get(name)):
            continue
        if name not in answer and data[name] is None:
            continue  # a round with no result yet has none of these
        if name not in answer:
            message = _(
                "This round has no result yet, so it has no %(field)s: Roundhouse sets it. "
                "Leave the field out."
            )
        elif name == "status":
            message = _(
                "This round's status is %(value)s, not %(sent)s: Roundhouse sets it. A result "
                "is confirmed with its confirm address, once it is saved."
            )
        elif name in ("table", "round_no", "engine"):
            message = _(
                "This round's %(field)s is %(value)s, not %(sent)s: Roundhouse sets it. Check "
                "that you are sending to the right table and round, or leave the field out."
            )
        else:  # version, its authors, updated_at: what was read is not this round as it is
            message = _(
                "This round's %(field)s is %(value)s, not %(sent)s: Roundhouse sets it. Read "
                "the round again, or leave the field out."
            )
        shown = {"value": json.dumps(answer.get(name)), "sent": json.dumps(data[name])}
        errors[name] = [message % {"field": name, **shown}]
    players = {seat.player_id: seat.player for seat in seats}
    for index, item in enumerate(data.get("scores") or [], start=1):
        if not isinstance(item, dict) or (player := players.get(item.get("player"))) is None:
            continue  # not a score, or not a seated player's: said elsewhere
        sent = {name: item[name] for name in SCORE_ANSWER_FIELDS if name in item}
        if sent and sent != {name: getattr(player, name) for name in sent}:
            errors.setdefault("scores", []).append(
                _(
                    "Score %(index)s is for player %(id)s, who is #%(number)s %(name)s, not "
                    "%(sent)s: check which player this score is for."
                )
                % {
                    "index": index,
                    "id": player.pk,
                    "number": player.number,
                    "name": player.name,
                    "sent": ", ".join(json.dumps(value) for value in sent.values()),
                }
            )
    return errors


def _same_answer(name: str, sent: Any, value: Any) -> bool:
    """Whether a sent-back field says what the answer says: updated_at as an instant, however
    its offset is written ("Z" or "+00:00")."""
    if name == "updated_at" and isinstance(sent, str) and isinstance(value, str):
        try:
            return datetime.fromisoformat(sent) == datetime.fromisoformat(value)
        except ValueError:
            return False
    return sent == value


def _record_version(
    result: RoundResult,
    *,
    scores: list[Score],
    action: str,
    by: AbstractBaseUser,
    meta: RequestMeta,
    reason: str = "",
) -> None:
    """Keep this version in the history; scores with their players, as _scores_of gives them."""
    RoundResultVersion.objects.create(
        result=result,
        version=result.version,
        action=action,
        status=result.status,
        blocked=result.blocked,
        scores=[_score_body(s) for s in sorted(scores, key=lambda s: s.player.number)],
        by=by,
        source=meta.source,
        ip_address=meta.ip_address,
        user_agent=meta.user_agent[:300],
        reason=reason,
    )


def _save(
    *,
    table: Table,
    round_no: int,
    data: Mapping[str, Any],
    by: AbstractBaseUser,
    if_match: str | None,
    meta: RequestMeta,
) -> Outcome:
    stage = lock_open_stage(table.stage_id, change="results")
    existing = (  # the result's row only: the ordering joins the stage, shared-locked above
        RoundResult.objects.select_for_update(of=("self",))
        .filter(table=table, round_no=round_no)
        .first()
    )
    if existing is not None:
        current = {
            "round": round_no,
            "table": table.number,
            "version": existing.version,
            # The label, lowercased, is the status itself in English: "submitted", "confirmed".
            "status": existing.get_status_display().lower(),
        }
        if not if_match:
            raise PreconditionRequired(
                _(
                    "Round %(round)s at table %(table)s already has a result (version "
                    "%(version)s, %(status)s). Send If-Match with its ETag to replace it."
                )
                % current
            )
        if not etag_matches(if_match, existing):
            raise PreconditionFailed(
                _(
                    "Round %(round)s at table %(table)s changed since you loaded it: it is now "
                    "version %(version)s (%(status)s). Check it and edit that version."
                )
                % current,
                existing,
            )
    blocked, lines, reason = parse_submission(data)
    if not 1 <= round_no <= stage.rounds:
        message = _("%(stage)s has rounds 1 to %(rounds)s.")
        raise ValidationError(
            {"round_no": [message % {"stage": stage.name, "rounds": stage.rounds}]}
        )
    engine = stage.engine(round_no)
    seats = _seats_at(table)
    errors = rules.validate_round(
        seated=seated_for_round(table, round_no, seats),
        lines=lines,
        blocked=blocked,
        domino_set=stage.domino_set,
        engine=engine,
    )
    answer: dict[str, Any] = {}
    if not set(data).isdisjoint(ANSWER_FIELDS):  # sent back: its users are read only then
        answer = (
            _answer_fields(existing)
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
    if errors:
        raise ValidationError(errors)

    if existing is None:
        result = RoundResult.objects.create(
            stage=stage,
            table=table,
            round_no=round_no,
            engine=engine,
            blocked=blocked,
            submitted_by=by,
        )
        action, status = RoundResultVersion.Action.SUBMITTED, 201
    else:
        result = existing
        result.scores.all().delete()
        result.blocked, result.version = blocked, result.version + 1
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
        status = 200
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
    _record_version(result, scores=scores, action=action, by=by, meta=meta, reason=reason)
    if was_confirmed:
        standings.request_rebuild(stage)
    body = result_body(result, scores)
    return Outcome(status=status, body=body, etag=result.etag, result=result)


IDEMPOTENCY_KEY_LENGTH = IdempotencyRecord._meta.get_field("key").max_length


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
) -> Outcome:
    """Create or replace a table's result for a round.

    With an Idempotency-Key, the key is stored in the same transaction as the result: the same
    key and body replay the stored answer; another body raises IdempotencyKeyReused. A concurrent
    request with the same key waits on the key's row and then replays; two different requests
    racing for a new round leave one result (the database's unique constraint), the other 428.
    """
    if idempotency_key is not None and (
        len(idempotency_key) > IDEMPOTENCY_KEY_LENGTH or not idempotency_key.isprintable()
    ):  # the header's length is checked by the API; a form's hidden key is made by its page
        raise ValidationError(
            {
                "idempotency_key": _(
                    "This entry's key is not one the page made: reload the page and enter the "
                    "round again."
                )
            }
        )
    digest = body_hash(request_path, data)
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                record = None
                if idempotency_key:
                    stored = IdempotencyRecord.objects.filter(user=by, key=idempotency_key).first()
                    if stored is not None:
                        return _replay(stored, digest)
                    # Claim the key first: a concurrent duplicate blocks here until we commit.
                    record = IdempotencyRecord.objects.create(
                        user=by,
                        key=idempotency_key,
                        method="PUT",
                        path=request_path,
                        body_hash=digest,
                        response_status=0,
                        response_body={},
                    )
                outcome = _save(
                    table=table, round_no=round_no, data=data, by=by, if_match=if_match, meta=meta
                )
                if record is not None:
                    record.response_status, record.response_body = outcome.status, outcome.body
                    record.response_etag = outcome.etag
                    record.save(update_fields=["response_status", "response_body", "response_etag"])
                return outcome
        except IntegrityError:
            if attempt == 2:
                raise
            # Another request committed first (the same key, or the same table and round): the
            # second attempt sees its row and replays it, or asks for If-Match.
    raise AssertionError("unreachable")


def _replay(stored: IdempotencyRecord, digest: str) -> Outcome:
    if stored.body_hash != digest:
        raise IdempotencyKeyReused(
            _(
                "This Idempotency-Key was already used for a different request. Use a new key "
                "for a new entry."
            )
        )
    return Outcome(
        status=stored.response_status,
        body=stored.response_body,
        etag=stored.response_etag,
        replayed=True,
    )


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
    result = (
        RoundResult.objects.select_for_update(of=("self",))
        .select_related("table", "submitted_by")  # the answer names who submitted
        .get(pk=result.pk)
    )
    result.stage = stage
    if result.status == RoundResult.Status.CONFIRMED:
        return result
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "results"))
    if if_match and not etag_matches(if_match, result):
        raise PreconditionFailed(
            _(
                "Round %(round)s at table %(table)s changed since you checked it: it is now "
                "version %(version)s. Check the totals again before confirming."
            )
            % {"round": result.round_no, "table": result.table.number, "version": result.version},
            result,
        )
    if result.stage.requires_second_person and result.submitted_by_id == by.pk:
        raise ValidationError(
            _(
                "Another official must confirm this result: in this stage the person who entered "
                "it cannot confirm it."
            )
        )
    result.status, result.confirmed_by = RoundResult.Status.CONFIRMED, by
    result.version += 1
    result.save(update_fields=["status", "confirmed_by", "version", "updated_at"])
    scores = _scores_of(result)
    _record_version(
        result, scores=scores, action=RoundResultVersion.Action.CONFIRMED, by=by, meta=meta
    )
    standings.request_rebuild(result.stage)
    return result


# ---- scores from paper: the back office's CSV upload -------------------------------------------

SCORE_COLUMNS = (*SCORES_HEADER, "blocked")  # the export's columns, and optionally blocked
SCORE_REQUIRED = ("stage", "table", "round", "number", "pips", "went_out")
YES = {"yes", "y", "true", "1", "x"}
NO = {"no", "n", "false", "0", ""}


@dataclass
class _Group:
    """The lines of one table's round in an uploaded file."""

    stage: Stage
    table: Table
    round_no: int
    lines: list = field(default_factory=list)  # (CsvRecord, Player, went_out)
    confirm: bool = False
    blocked: bool | None = None


def _flag(value: str, column: str, problems: list[str]) -> bool | None:
    text = value.strip().lower()
    if text in YES:
        return True
    if text in NO:
        return False
    problems.append(
        _("%(column)s %(value)s is not yes or no") % {"column": column, "value": repr(value)}
    )
    return None


def _scores_groups(tournament, records) -> tuple[dict[tuple, _Group], list]:
    stages = list(tournament.stages.all())
    by_name: dict[str, list[Stage]] = {}
    for stage in stages:
        by_name.setdefault(stage.name.lower(), []).append(stage)
    by_order = {str(stage.order): stage for stage in stages}
    tables = {(t.stage_id, t.number): t for t in Table.objects.filter(stage__in=stages)}
    players = {p.number: p for p in tournament.players.all()}
    groups: dict[tuple, _Group] = {}
    errors: list[tuple[int, str]] = []
    for record in records:
        values, problems = record.values, record.problems
        named = by_name.get(values["stage"].lower(), [])
        stage = by_order.get(values["stage"]) or (named[0] if len(named) == 1 else None)
        if stage is None:
            problems.append(
                _("stage %(stage)s is ambiguous: use its order number")
                % {"stage": repr(values["stage"])}
                if len(named) > 1
                else _("there is no stage %(stage)s") % {"stage": repr(values["stage"])}
            )
        table = round_no = player = None
        if stage is not None:
            table = tables.get((stage.pk, whole_number(values["table"])))
            if table is None:
                problems.append(
                    _("%(stage)s has no table %(table)s")
                    % {"stage": stage.name, "table": repr(values["table"])}
                )
            if not 1 <= (whole_number(values["round"]) or 0) <= stage.rounds:
                problems.append(
                    _("%(stage)s has rounds 1 to %(rounds)s, not %(round)s")
                    % {"stage": stage.name, "rounds": stage.rounds, "round": repr(values["round"])}
                )
            else:
                round_no = int(values["round"])
                engine = values["engine"]
                if engine and engine != str(stage.engine(round_no)):
                    problems.append(
                        _("round %(round)s is played with the %(engine)s engine, not %(given)s")
                        % {"round": round_no, "engine": stage.engine(round_no), "given": engine}
                    )
        player = players.get(whole_number(values["number"]))
        if player is None:
            problems.append(
                _("there is no player number %(number)s") % {"number": repr(values["number"])}
            )
        else:
            name = values["name"]
            if name and folded(name) != folded(player.name):  # "Martinez" is Martínez
                problems.append(
                    _("number %(number)s is %(name)s, not %(given)s")
                    % {"number": player.number, "name": player.name, "given": repr(name)}
                )
        went_out = _flag(values["went_out"], "went_out", problems)
        blocked = _flag(values["blocked"], "blocked", problems) if values["blocked"] else None
        status = values["status"].lower() or RoundResult.Status.SUBMITTED
        if status not in RoundResult.Status.values:
            problems.append(
                _("status %(status)s is not submitted or confirmed")
                % {"status": repr(values["status"])}
            )
        if problems:
            errors.append((record.line, record.message()))
            if table is None or round_no is None or player is None:
                continue
            # The line still names its table, round and player: its round is checked with it, so
            # every problem is reported in one upload, and its player is not called missing.
        group = groups.setdefault((table.pk, round_no), _Group(stage, table, round_no))
        group.lines.append((record, player, went_out))
        group.confirm = group.confirm or status == RoundResult.Status.CONFIRMED
        if blocked is not None:
            group.blocked = blocked
    return groups, errors


def _check_group(group: _Group, by: AbstractBaseUser) -> list[tuple[int, str]]:
    first = group.lines[0][0].line
    where = {"table": group.table.number, "round": group.round_no, "stage": group.stage.name}
    if RoundResult.objects.filter(table=group.table, round_no=group.round_no).exists():
        message = _(
            "table %(table)s, round %(round)s already has a result: correct it on its page, "
            "with a reason."
        )
        return [(first, message % where)]
    if group.stage.status == Stage.Status.CLOSED:
        return [(first, closed_message(group.stage, "results"))]
    if group.confirm and group.stage.requires_second_person:
        message = _(
            "table %(table)s, round %(round)s: in %(stage)s another official must confirm; "
            "import it as submitted."
        )
        return [(first, message % where)]
    blocked = group.blocked if group.blocked is not None else not any(w for _, _, w in group.lines)
    lines = [rules.ScoreLine(p.pk, record.values["pips"], bool(w)) for record, p, w in group.lines]
    problems = rules.validate_round(
        seated=seated_for_round(group.table, group.round_no),
        lines=lines,
        blocked=blocked,
        domino_set=group.stage.domino_set,
        engine=group.stage.engine(group.round_no),
    )
    line_of = {p.pk: record.line for record, p, _ in group.lines}
    errors = []
    for key, messages in problems.items():
        player_id = int(key.split(".")[1]) if key.startswith("scores.") else None
        line = line_of.get(player_id, first)
        errors.extend(
            (line, _("table %(table)s, round %(round)s: %(message)s.") % {**where, "message": m})
            for m in messages
        )
    group.blocked = blocked
    return errors


@transaction.atomic
def import_scores(
    *, tournament, content: bytes, by: AbstractBaseUser, meta: RequestMeta = RequestMeta("csv")
) -> int:
    """Enter round results from a scores.csv (the export's columns), all or none.

    Every line is checked as if entered on the tablet; ImportRejected lists every bad line.
    Rows marked confirmed are confirmed by the uploader. Returns the number of results made.
    """
    records = read_csv(content, columns=SCORE_COLUMNS, required=SCORE_REQUIRED, what="scores")
    groups, errors = _scores_groups(tournament, records)
    for group in groups.values():
        errors.extend(_check_group(group, by))
    if errors:
        raise ImportRejected(sorted(errors))
    for group in groups.values():
        data = {
            "blocked": group.blocked,
            "scores": [
                {"player": p.pk, "pips": record.values["pips"], "went_out": bool(w)}
                for record, p, w in group.lines
            ],
        }
        outcome = submit_round_result(
            table=group.table, round_no=group.round_no, data=data, by=by, meta=meta
        )
        if group.confirm:
            confirm_round_result(result=outcome.result, by=by, meta=meta)
    return len(groups)
