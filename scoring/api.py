"""The v1 API of scoring: round results, standings, placings and CSV exports."""

from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import MISSING, NamesUnusedFields, found
from scoring import exports, selectors, services, stages, standings
from scoring.exceptions import UnusualScores, VersionChanged
from scoring.models import Placing, RoundResult, RoundResultVersion, TiebreakDecision
from tables.models import Table
from tournaments.api import CsvUploadApi, StageSerializer, tournament_or_404, upload_schema
from tournaments.models import Stage
from tournaments.permissions import is_staff_of, require_organiser, require_staff


class FirstRendererNegotiation(BaseContentNegotiation):
    """CSV is CSV whatever the Accept header says; errors still render as JSON."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ExportCsvApi(APIView):
    permission_classes = [IsAuthenticated]
    content_negotiation_class = FirstRendererNegotiation

    @extend_schema(
        responses={(200, "text/csv"): OpenApiTypes.STR},
        parameters=[
            OpenApiParameter("name", str, OpenApiParameter.PATH, enum=list(exports.EXPORTS))
        ],
    )
    def get(self, request: Request, slug: str, name: str) -> StreamingHttpResponse:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        header, rows = exports.EXPORTS[name]
        response = StreamingHttpResponse(
            exports.csv_lines(header, rows(tournament)), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{tournament.slug}-{name}.csv"'
        return response


# ---- round results ------------------------------------------------------------------------------


class ScoreInput(serializers.Serializer):
    player = serializers.IntegerField(help_text="The player's id.")
    pips = serializers.IntegerField(min_value=0)
    went_out = serializers.BooleanField(default=False)
    checked = serializers.BooleanField(
        default=False,
        help_text="The official checked this score with the players: an unusual score is stored "
        "with its warning marked checked.",
    )


class RoundResultInput(serializers.Serializer):
    """A round's scores. A result read from this address may be sent back with a change: the
    answer's other fields (table, round_no, engine, status, version, submitted_by,
    confirmed_by, updated_at, and a score's number and name) are accepted when they are what
    the round's answer says now, and refused with a 400 naming the field otherwise."""

    blocked = serializers.BooleanField(default=False, help_text="Blocked, or time was called.")
    scores = ScoreInput(many=True)
    reason = serializers.CharField(
        required=False, allow_blank=True, help_text="Needed to correct a confirmed result."
    )


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
    status = serializers.CharField()
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


class VersionOutput(serializers.ModelSerializer):
    by = serializers.CharField(source="by.username")
    scores = serializers.JSONField()

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
        ]


def request_meta(request: Request, source: str = "api") -> services.RequestMeta:
    """Who sent a change, for the history. A request signed in by the session comes from
    Roundhouse's own pages (the tablet's entry page sends its rounds here, and resends them
    when the network is back): the history says the web pages, as for a confirmation there.
    Scripts and integrations sign in with a token: the API."""
    if source == "api" and isinstance(request.successful_authenticator, SessionAuthentication):
        source = "web"
    return services.RequestMeta(
        source=source,
        ip_address=request.META.get("REMOTE_ADDR") or None,
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
    )


def staffed_table(request: Request, table_id: int) -> Table:
    table = found(Table.objects.select_related("stage__tournament"), pk=table_id)
    require_staff(request.user, table.stage.tournament)
    return table


def result_response(body: dict, etag: str, *, status: int = 200) -> Response:
    response = Response(body, status=status)
    response["ETag"] = etag
    return response


class AnswersVersionChanged:
    """A view whose 412 (VersionChanged) carries the result as it is now, and its ETag: the
    client shows it and edits that version (shared/API.md)."""

    def answer_refusal(self, error: Exception, response: Response) -> None:
        if isinstance(error, VersionChanged):
            response.data["current"] = services.result_body(error.current)
            response["ETag"] = error.current.etag


def asks_first(request: Request) -> bool:
    """`Prefer: handling=strict` (RFC 7240): the sender wants unusual scores not yet checked
    refused, not stored with their warnings (the entry page, which then asks the official)."""
    prefer = request.headers.get("Prefer", "")
    return "handling=strict" in {part.strip().lower() for part in prefer.split(",")}


class RoundResultApi(AnswersVersionChanged, APIView):
    permission_classes = [AllowAny]

    def answer_refusal(self, error: Exception, response: Response) -> None:
        super().answer_refusal(error, response)
        if isinstance(error, UnusualScores):
            response.data["warnings"] = services.warnings_body(
                [w.as_dict() for w in error.warnings], error.names
            )

    @extend_schema(responses=RoundResultOutput)
    def get(self, request: Request, table_id: int, round_no: int) -> Response:
        result = found(
            RoundResult.objects.select_related("stage__tournament"),
            table_id=table_id,
            round_no=round_no,
        )
        if is_staff_of(request.user, result.stage.tournament):
            return result_response(services.result_body(result), result.etag)
        # Anyone else reads what the public score sheet shows: a confirmed round (a submitted
        # one answers as not reported yet, as a round with no result does), without the
        # officials' usernames, which are their sign-in names.
        if result.status != RoundResult.Status.CONFIRMED:
            raise exceptions.NotFound(MISSING["roundresult"])
        body = services.result_body(result) | {"submitted_by": None, "confirmed_by": None}
        return result_response(body, result.etag)

    @extend_schema(
        request=RoundResultInput,
        responses={201: RoundResultOutput, 200: RoundResultOutput},
        parameters=[
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER),
            OpenApiParameter("If-Match", str, OpenApiParameter.HEADER),
            OpenApiParameter(
                "Prefer",
                str,
                OpenApiParameter.HEADER,
                description="handling=strict: refuse (400, with `warnings`) a result with an "
                "unusual score not checked, instead of storing it with its warnings.",
            ),
        ],
    )
    def put(self, request: Request, table_id: int, round_no: int) -> Response:
        table = staffed_table(request, table_id)
        key = request.headers.get("Idempotency-Key", "").strip() or None
        if key is not None and len(key) > 200:
            too_long = _("The Idempotency-Key is longer than 200 characters.")
            return Response({"detail": too_long}, 400)
        if not isinstance(request.data, dict):
            return Response({"non_field_errors": [_("Send a JSON object.")]}, status=400)
        outcome = services.submit_round_result(
            table=table,
            round_no=round_no,
            data=request.data,
            by=request.user,
            if_match=request.headers.get("If-Match"),
            idempotency_key=key,
            request_path=request.path,
            meta=request_meta(request),
            ask_unusual=asks_first(request),
        )
        # A replay answers as the request it repeats did: 201 if that made the result.
        return result_response(outcome.body, outcome.etag, status=201 if outcome.created else 200)


class ConfirmRoundResultApi(AnswersVersionChanged, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses=RoundResultOutput,
        parameters=[OpenApiParameter("If-Match", str, OpenApiParameter.HEADER)],
    )
    def post(self, request: Request, table_id: int, round_no: int) -> Response:
        table = staffed_table(request, table_id)
        result = found(RoundResult, table=table, round_no=round_no)
        result = services.confirm_round_result(
            result=result,
            by=request.user,
            if_match=request.headers.get("If-Match"),
            meta=request_meta(request),
        )
        return result_response(services.result_body(result), result.etag)


class RoundResultHistoryApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=VersionOutput(many=True))
    def get(self, request: Request, table_id: int, round_no: int) -> Response:
        table = staffed_table(request, table_id)
        result = found(RoundResult, table=table, round_no=round_no)
        versions = result.versions.select_related("by").order_by("version")
        return Response(VersionOutput(versions, many=True).data)


class ImportScoresApi(CsvUploadApi):
    """Round results from paper score sheets: a scores.csv, all lines or none."""

    what = "result"

    @upload_schema("Scores")
    def post(self, request: Request, slug: str) -> Response:
        self.warned: list[tuple[int, str]] = []
        response = super().post(request, slug)
        if response.status_code == 201 and self.warned:
            # Unusual scores are entered with their warnings, and said: {"line", "message"}.
            response.data["warnings"] = [
                {"line": line, "message": message} for line, message in self.warned
            ]
        return response

    def create(self, *, tournament, content: bytes, request: Request) -> int:
        meta = request_meta(request, source="csv")
        imported = services.import_scores(
            tournament=tournament, content=content, by=request.user, meta=meta
        )
        self.warned = imported.warnings
        return imported.created


# ---- standings and tie-breaks -------------------------------------------------------------------


class StandingsApi(APIView):
    """A stage's standings snapshot; public, cheap, and fresh within seconds of a confirmation."""

    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage, pk=stage_id)
        meta = standings.standings_meta(stage)
        return Response(_explained(standings.standings_payload(stage, meta)))


def _explained(payload: dict) -> dict:
    """The standings document with each tie-break's text in the request's language."""
    return {**payload, "rows": standings.explained(payload["rows"])}


class TournamentStandingsApi(APIView):
    """The standings of the tournament's current stage (the latest that is seated or closed)."""

    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        stage = selectors.current_stage(tournament.stages)
        if stage is None:
            return Response(
                {
                    "stage": None,
                    "computed_at": None,
                    "results_counted": 0,
                    "results_expected": 0,
                    "ranked_through_round": 0,
                    "stale": False,
                    "flags": [],
                    "rows": [],
                }
            )
        return Response(
            _explained(standings.standings_payload(stage, standings.standings_meta(stage)))
        )


class TiebreakInput(NamesUnusedFields, serializers.Serializer):
    table = serializers.IntegerField(required=False, allow_null=True)
    order = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=20)
    method = serializers.ChoiceField(choices=TiebreakDecision.Method.choices)
    note = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")


class TiebreakApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=TiebreakInput, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage.objects.select_related("tournament"), pk=stage_id)
        require_staff(request.user, stage.tournament)
        data = TiebreakInput(data=request.data)
        data.is_valid(raise_exception=True)
        decision = services.record_tiebreak(
            stage=stage,
            table_id=data.validated_data.get("table"),
            order=data.validated_data["order"],
            method=data.validated_data["method"],
            note=data.validated_data["note"],
            by=request.user,
        )
        body = {
            "id": decision.pk,
            "table": decision.table_id,
            "order": decision.order,
            "method": decision.method,
            "note": decision.note,
            "by": request.user.username,
        }
        return Response(body, status=201)


# ---- closing stages, placings ----------------------------------------------------------------


class CloseStageApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def post(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage.objects.select_related("tournament"), pk=stage_id)
        require_organiser(request.user, stage.tournament)
        stage = stages.close_stage(stage=stage, by=request.user)
        if stage.tables.count() == 1:
            closed = _("%(stage)s is closed. The placings are decided now.")
        else:
            closed = _("%(stage)s is closed. The next playoff level is being seated now.")
        body = {
            "detail": closed % {"stage": stage.display_name},
            "stage": StageSerializer(stage, context={"staff": True}).data,
        }
        return Response(body, status=202)


class PlacingsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        placings = Placing.objects.filter(tournament=tournament).select_related("player", "stage")
        return Response(
            [
                {
                    "place": p.place,
                    "player": {"id": p.player_id, "number": p.player.number, "name": p.player.name},
                    "went_out_in": p.stage.display_name,
                }
                for p in placings.order_by("place", "player__number")
            ]
        )
