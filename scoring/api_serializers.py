"""The shapes the scoring API reads and answers, as serializers: a round's body (defined where
it is read, scoring/services/bodies.py), and what the OpenAPI schema names for every answer (a
generated client gets a typed model for each: a round, its versions, the standings, the
placings, a close, a 412's `current`)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api import NamesUnusedFields
from scoring.models import RoundResult, RoundResultVersion, TiebreakDecision
from scoring.services.bodies import (  # a round's body: defined once, where it is read
    RoundResultInput as RoundResultInput,
)
from scoring.services.bodies import ScoreInput as ScoreInput
from tables import reporting
from tournaments.api import StageSerializer


class ScoreOutput(serializers.Serializer):
    player = serializers.IntegerField()
    number = serializers.IntegerField()
    name = serializers.CharField()
    pips = serializers.IntegerField()
    went_out = serializers.BooleanField()
    checked = serializers.BooleanField(help_text="The official confirmed this unusual score.")


class WarningOutput(serializers.Serializer):
    player = serializers.IntegerField()
    code = serializers.CharField(help_text="more_than_a_hand")
    pips = serializers.IntegerField()
    limit = serializers.IntegerField(help_text="The most a hand of the tiles dealt holds.")
    tiles = serializers.IntegerField(help_text="The tiles dealt to each player at the table.")
    average = serializers.IntegerField(help_text="What a hand of the tiles dealt holds on average.")
    checked = serializers.BooleanField(help_text="The official confirmed the score as it is.")
    message = serializers.CharField()


class RoundResultOutput(serializers.Serializer):
    table = serializers.IntegerField()
    round_no = serializers.IntegerField()
    engine = serializers.IntegerField()
    blocked = serializers.BooleanField()
    status = serializers.ChoiceField(choices=RoundResult.Status.choices)
    version = serializers.IntegerField()
    scores = ScoreOutput(many=True)
    submitted_by = serializers.CharField(
        allow_null=True, help_text="The official's username; null unless you are staff here."
    )
    confirmed_by = serializers.CharField(
        allow_null=True, help_text="The official's username; null unless you are staff here."
    )
    updated_at = serializers.DateTimeField()
    warnings = WarningOutput(
        many=True,
        help_text="Scores the deal makes unusual (legal, stored, but more than a hand of the "
        "tiles dealt holds without drawing); empty when none.",
    )


@extend_schema_field(ScoreOutput(many=True))
class StoredScores(serializers.JSONField):
    """A version's scores as stored (and answered) then, typed in the schema."""


@extend_schema_field(WarningOutput(many=True))
class StoredWarnings(serializers.JSONField):
    """A version's warnings as stored then, typed in the schema."""


class SeatRef(serializers.Serializer):
    """The seat whose phone made a version (tables/reporting.py seat_named)."""

    position = serializers.IntegerField(help_text="The seat's position at the table.")
    player = serializers.CharField(help_text="The player's name.")
    name = serializers.CharField(help_text='How the pages name the seat: "Seat 3 (Ana)".')


class VersionOutput(serializers.ModelSerializer):
    """A version of a round. `seat` names the seat whose phone made it (null for an official);
    context `seats` maps a user's id to the seat they claimed, read once for all the versions."""

    by = serializers.CharField(source="by.username")
    scores = StoredScores()
    warnings = StoredWarnings()
    seat = serializers.SerializerMethodField(
        help_text="The seat whose phone made this version; null for an official."
    )

    @extend_schema_field(SeatRef(allow_null=True))
    def get_seat(self, version: RoundResultVersion) -> dict | None:
        seat = self.context.get("seats", {}).get(version.by_id)
        if seat is None:
            return None
        return {
            "position": seat.position,
            "player": seat.player.name,
            "name": reporting.seat_named(seat),
        }

    class Meta:
        model = RoundResultVersion
        fields = [
            "version",
            "action",
            "status",
            "blocked",
            "scores",
            "by",
            "at",
            "source",
            "ip_address",
            "user_agent",
            "reason",
            "warnings",
            "seat",
        ]


class PreconditionFailedOutput(serializers.Serializer):
    """A 412: the If-Match names an older version. `current` is the result as it is now (its
    ETag is in the answer's ETag header): show it, and edit that version."""

    detail = serializers.CharField()
    current = RoundResultOutput()


class PlayerRef(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    name = serializers.CharField()


class TiebreakExplained(serializers.Serializer):
    """How a tie-break placed the player against the players next to them on the same total."""

    scope = serializers.ChoiceField(choices=["overall", "table"])
    side = serializers.ChoiceField(choices=["ahead", "behind"])
    players = serializers.ListField(child=serializers.IntegerField(), help_text="Their ids.")
    rule = serializers.ChoiceField(choices=["rounds_won", "countback", "decision"])
    mine = serializers.IntegerField(required=False, help_text="Rounds won, or pips in `round`.")
    theirs = serializers.IntegerField(required=False)
    round = serializers.IntegerField(required=False, help_text="The round countback compared.")
    method = serializers.CharField(required=False, help_text="The officials' decision's method.")
    text = serializers.CharField(help_text="The same, said in the request's language.")


class StandingsRowOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    player = PlayerRef()
    table = serializers.IntegerField(allow_null=True, help_text="The table's number.")
    table_rank = serializers.IntegerField(allow_null=True)
    total = serializers.IntegerField()
    carried = serializers.IntegerField(help_text="Pips carried from the stage before.")
    rounds_won = serializers.IntegerField()
    rounds_played = serializers.IntegerField(
        help_text="Every confirmed round the player played (a late entry's missed rounds not)."
    )
    rounds_counted = serializers.IntegerField(
        help_text="Of them, the rounds that total and rank count: to ranked_through_round."
    )
    scores = serializers.DictField(
        child=serializers.IntegerField(), help_text="Pips by round number, confirmed rounds."
    )
    tied = serializers.BooleanField()
    advances = serializers.BooleanField()
    note = serializers.CharField(allow_blank=True)
    tiebreaks = TiebreakExplained(many=True)
    division = serializers.CharField(
        allow_null=True, help_text="The player's division's name; null for none."
    )


class TableCalled(serializers.Serializer):
    table = serializers.IntegerField(help_text="The table's number.")
    after_round = serializers.IntegerField(help_text="The last round the table played.")


class TimeCalled(serializers.Serializer):
    ranked_through_round = serializers.IntegerField(
        help_text="The rounds every table played, which the ranking counts."
    )
    tables = TableCalled(
        many=True, help_text="Each table that played fewer rounds than the stage's, with its last."
    )


class StandingsOutput(serializers.Serializer):
    stage = serializers.IntegerField(allow_null=True, help_text="The stage's id.")
    computed_at = serializers.DateTimeField(allow_null=True)
    results_counted = serializers.IntegerField()
    results_expected = serializers.IntegerField()
    ranked_through_round = serializers.IntegerField(
        help_text="The rounds the ranking counts: 1 to this (every table has confirmed them)."
    )
    stale = serializers.BooleanField(help_text="A rebuild is on its way.")
    flags = serializers.ListField(
        child=serializers.DictField(),
        help_text='Ties only the officials can break: {"players", "names", ...}.',
    )
    time_called = TimeCalled(
        allow_null=True, help_text="Null unless time was called on the stage's clock."
    )
    rows = StandingsRowOutput(many=True)


class PlacingOutput(serializers.Serializer):
    place = serializers.IntegerField(help_text="The place among everyone.")
    player = PlayerRef()
    went_out_in = serializers.CharField(help_text="The last stage the player played.")
    division = serializers.CharField(
        allow_null=True, help_text="The player's division's name; null for none."
    )
    division_place = serializers.IntegerField(
        allow_null=True,
        help_text=(
            "The place among the players of the same division (or of none: in a tournament "
            "without divisions, the place); null for a player who withdrew."
        ),
    )
    medal = serializers.ChoiceField(
        choices=["gold", "silver", "bronze"],
        allow_null=True,
        help_text="The first three of the division win gold, silver and bronze.",
    )


class ClosedOutput(serializers.Serializer):
    detail = serializers.CharField(help_text="What happens next (seating, or the placings).")
    stage = StageSerializer()


class TiebreakDecisionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(allow_null=True)
    order = serializers.ListField(child=serializers.IntegerField())
    method = serializers.ChoiceField(choices=TiebreakDecision.Method.choices)
    note = serializers.CharField(allow_blank=True)
    by = serializers.CharField()


class ClockOutput(serializers.Serializer):
    stage = serializers.IntegerField(help_text="The stage's id.")
    time_limit_minutes = serializers.IntegerField(
        allow_null=True, help_text="The stage's time limit; null for none."
    )
    time_rule = serializers.ChoiceField(
        choices=["finish_round", "as_stands"],
        help_text="When time is called, the round in play is finished (no new round starts), or "
        "scored as it stands, like a blocked round.",
    )
    started = serializers.BooleanField()
    running = serializers.BooleanField()
    called = serializers.BooleanField(help_text="Time was called.")
    called_at = serializers.DateTimeField(allow_null=True)
    remaining_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="Time left by the server's clock (never below 0); null for no time limit. "
        "Count down from when this answer arrived, not from the device's own clock.",
    )
    time_up = serializers.BooleanField(
        help_text="The time ran out and the organiser has not called time yet."
    )
    rounds_at_call = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Once time is called, each table's last round: {table number: round}.",
    )
    server_time = serializers.DateTimeField()


class ClockInput(NamesUnusedFields, serializers.Serializer):
    action = serializers.ChoiceField(
        choices=["start", "pause", "call"],
        help_text="start (or resume), pause, or call time (each table's last round is fixed).",
    )
