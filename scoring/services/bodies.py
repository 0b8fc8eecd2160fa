"""A round result's body: read from what the API, the entry page and the CSV import send (the
contract's checks, docs/API.md), and written as the API answers it."""

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

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


# Worked out from the scores: a client may send back the answer it read, whatever these say.
WORKED_OUT_FIELDS = ("warnings",)
# What the API's answer has besides (result_body, _score_body): a client may send back what it
# read with a change; these are set by Roundhouse and not read from a request.
ANSWER_FIELDS = (
    "table", "round_no", "engine", "status", "version", "submitted_by", "confirmed_by",
    "updated_at",
)  # fmt: skip
SCORE_ANSWER_FIELDS = ("number", "name")


# The body's one definition: the serializers below are what the OpenAPI schema shows, and what
# reads the body of the API, of the entry page and of the CSV import (parse_submission). Their
# checks are the contract's (docs/API.md), each said once: DRF's own fields would read "yes",
# 1 or "on" as true and 7 as the text "7", and answer a score's problems nested by position.
# A score's pips and went_out are passed on as sent: the rules (rules.validate_round) judge
# them, naming the player.


class StrictBooleanField(serializers.BooleanField):
    """true or false, and nothing DRF's BooleanField would read as one ("yes", 1, "on")."""

    def run_validation(self, data: Any = serializers.empty) -> bool:
        if data is serializers.empty:
            return self.get_default()
        return self.to_internal_value(data)  # null too: it is not false

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class ReasonField(serializers.CharField):
    """The text a correction needs: left out, null or empty is none; stripped once checked."""

    default_error_messages = {
        "invalid": _lazy("The reason is text."),
        "max_length": _lazy("Keep the reason under 1,000 characters."),
        "null_characters": _lazy("The reason contains a NUL character."),
    }

    def run_validation(self, data: Any = serializers.empty) -> str:
        if data is serializers.empty or not data:
            return ""
        if not isinstance(data, str):
            self.fail("invalid")
        if len(data) > self.max_length:
            self.fail("max_length")
        if "\x00" in data:
            self.fail("null_characters")
        return data.strip()


@extend_schema_field({"type": "integer", "minimum": 0})
class PipsField(serializers.Field):
    """A score's pips as sent (an int, a form's or a CSV file's digits): rules.validate_round
    judges them, naming the player (a blank one is missing, not mistyped)."""

    def run_validation(self, data: Any = serializers.empty) -> Any:
        return None if data is serializers.empty else data


@extend_schema_field({"type": "boolean", "default": False})
class WentOutField(serializers.Field):
    """Whether the player went out, as sent: rules.validate_round judges it, naming the player."""

    def run_validation(self, data: Any = serializers.empty) -> Any:
        return False if data is serializers.empty else data


class ScoreInputList(serializers.ListSerializer):
    """The scores: a list with one at least, each score's problems said in one list under
    `scores`, numbered from 1 as the official counts them."""

    default_error_messages = {"empty": _lazy("Give a score for every player at the table.")}

    def run_validation(self, data: Any = serializers.empty) -> list[rules.ScoreLine]:
        if not isinstance(data, list) or not data:
            self.fail("empty")
        lines, errors = [], []
        for index, item in enumerate(data, start=1):
            try:
                lines.append(self.child.line(item, index))
            except serializers.ValidationError as error:
                errors.extend(error.detail)
        if errors:
            raise serializers.ValidationError(errors)
        return lines


class ScoreInput(serializers.Serializer):
    player = serializers.IntegerField(help_text="The player's id.")
    pips = PipsField()
    went_out = WentOutField(required=False)
    checked = StrictBooleanField(
        default=False,
        help_text="The official checked this score with the players: an unusual score is stored "
        "with its warning marked checked.",
    )

    class Meta:
        list_serializer_class = ScoreInputList

    def line(self, item: Any, index: int) -> rules.ScoreLine:
        """The score numbered `index` (from 1) as a line for the rules, or ValidationError
        with a list of its problems."""
        player = item.get("player") if isinstance(item, dict) else None
        if isinstance(player, bool) or not isinstance(player, int):
            message = _("Score %(index)s does not name a player by id.") % {"index": index}
            raise serializers.ValidationError([message])
        errors = []
        unknown = sorted(set(item) - set(self.fields) - set(SCORE_ANSWER_FIELDS))
        if unknown:  # a misspelt went_out would mark nobody as went out
            errors.append(
                _("Score %(index)s has the unknown field %(names)s: a score has %(fields)s.")
                % {
                    "index": index,
                    "names": ", ".join(map(repr, unknown)),
                    "fields": ", ".join(self.fields),
                }
            )
        try:
            checked = self.fields["checked"].run_validation(item.get("checked", False))
        except serializers.ValidationError:
            checked = False
            errors.append(
                _("Score %(index)s: say whether the official checked it: true or false.")
                % {"index": index}
            )
        if errors:
            raise serializers.ValidationError(errors)
        pips = self.fields["pips"].run_validation(item.get("pips", serializers.empty))
        went_out = self.fields["went_out"].run_validation(item.get("went_out", serializers.empty))
        return rules.ScoreLine(player, pips, went_out, checked)


class RoundResultInput(serializers.Serializer):
    """A round's scores. A result read from this address may be sent back with a change: the
    answer's other fields (table, round_no, engine, status, version, submitted_by,
    confirmed_by, updated_at, and a score's number and name) are accepted when they are what
    the round's answer says now, and refused with a 400 naming the field otherwise."""

    blocked = StrictBooleanField(
        default=False,
        help_text="Blocked, or time was called.",
        error_messages={"invalid": _lazy("Say whether the round was blocked: true or false.")},
    )
    scores = ScoreInput(many=True)
    reason = ReasonField(
        required=False,
        allow_blank=True,
        max_length=1000,
        help_text="Needed to correct a confirmed result.",
    )

    # The order the problems are said in: the fields in the contract's order of checks.
    CHECKED_IN_ORDER = ("blocked", "reason", "scores")

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            return super().to_internal_value(data)  # DRF's: not an object
        known = {*self.fields, *ANSWER_FIELDS, *WORKED_OUT_FIELDS}
        errors: dict[str, Any] = {
            name: [
                _("Unknown field: the fields are %(fields)s.") % {"fields": ", ".join(self.fields)}
            ]
            for name in sorted(set(data) - known)
        }
        values: dict[str, Any] = {}
        for name in self.CHECKED_IN_ORDER:
            field = self.fields[name]
            sent = data.get(name, serializers.empty)
            try:
                values[name] = field.run_validation(sent)
            except serializers.ValidationError as error:
                errors[name] = error.detail
        if errors:
            raise serializers.ValidationError(errors)
        return values


SUBMISSION_FIELDS = tuple(RoundResultInput().fields)
SCORE_FIELDS = tuple(ScoreInput().fields)


def parse_submission(data: Mapping[str, Any]) -> tuple[bool, list[rules.ScoreLine], str]:
    """(blocked, lines, reason) from a request body (RoundResultInput), or ValidationError
    naming the field."""
    body = RoundResultInput(data=data)
    if not body.is_valid():
        raise ValidationError(
            {name: [str(message) for message in messages] for name, messages in body.errors.items()}
        )
    values = body.validated_data
    return values["blocked"], values["scores"], values["reason"]


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
