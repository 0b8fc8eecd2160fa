"""A round result's body: read from what the API, the entry page and the CSV import send (the
contract's checks, docs/API.md), and written as the API answers it."""

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _

from scoring import rules
from scoring.models import RoundResult, Score
from tables.models import Seat


def score_body(score: Score, checked: bool = False) -> dict[str, Any]:
    """A score as answered; `checked` when the official confirmed it as unusual (its warning
    says so too): a client sending the answer back with a change keeps it confirmed."""
    player = score.player
    return {
        "player": player.pk,
        "number": player.number,
        "name": player.name,
        "pips": score.pips,
        "went_out": score.went_out,
        "checked": checked,
    }


def checked_players(result: RoundResult) -> set[int]:
    """The players whose unusual score the official confirmed."""
    return {w["player"] for w in result.warnings if w.get("checked")}


def scores_of(result: RoundResult) -> list[Score]:
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
    """The API's answer for a result; scores as scores_of gives them (read when not given)."""
    scores = scores_of(result) if scores is None else scores
    ordered = sorted(scores, key=lambda s: s.position or 0)
    names = {s.player_id: s.player.name for s in scores}
    checked = checked_players(result)
    return {
        **answer_fields(result),
        "blocked": result.blocked,
        "scores": [score_body(s, s.player_id in checked) for s in ordered],
        "warnings": warnings_body(result.warnings, names),
    }


def warnings_body(warnings: list[dict], names: dict[int, str]) -> list[dict[str, Any]]:
    """The warnings as the API answers them: each stored one with its message, in the request's
    language (docs/API.md: `warnings`, empty when none)."""
    return [
        {
            **w,
            "message": rules.warning_message(
                names.get(w["player"], str(w["player"])), rules.PipsWarning.from_dict(w)
            ),
        }
        for w in warnings
    ]


def answer_fields(result: RoundResult) -> dict[str, Any]:
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
# checked: the official confirmed the score as it is, though the deal makes it unusual.
SCORE_FIELDS = ("player", "pips", "went_out", "checked")
# Worked out from the scores: a client may send back the answer it read, whatever these say.
WORKED_OUT_FIELDS = ("warnings",)
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
    known = {*SUBMISSION_FIELDS, *ANSWER_FIELDS, *WORKED_OUT_FIELDS}
    for name in sorted(set(data) - known):
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
            checked = item.get("checked", False)
            if not isinstance(checked, bool):
                errors.setdefault("scores", []).append(
                    _("Score %(index)s: say whether the official checked it: true or false.")
                    % {"index": index + 1}
                )
            lines.append(
                rules.ScoreLine(player, item.get("pips"), item.get("went_out", False), checked)
            )
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
