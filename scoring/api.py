"""The v1 API of scoring: round results, standings and placings, and the tournament's CSV
exports."""

from django.http import StreamingHttpResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config import http_cache
from config.api import NamesUnusedFields, found, missing
from config.api_schema import refused
from config.client_ip import client_ip
from scoring import exports, selectors, services, standings
from scoring.api_serializers import (
    ClockInput,
    ClockOutput,
    ClosedOutput,
    PlacingOutput,
    PreconditionFailedOutput,
    RoundResultInput,
    RoundResultOutput,
    StandingsOutput,
    TiebreakDecisionOutput,
    VersionOutput,
)
from scoring.exceptions import NoResult, UnusualScores, VersionChanged
from scoring.models import Placing, RoundResult, TiebreakDecision
from scoring.services import clock, closing, disputes, reopen
from tables import reporting
from tables.models import SeatClaim, Table
from tournaments.api import CsvUploadApi, StageSerializer, tournament_or_404, upload_schema
from tournaments.models import Stage
from tournaments.permissions import is_staff_of, require_organiser, require_staff

# ---- round results ------------------------------------------------------------------------------


# The version a round's answer is: send it back as If-Match to replace or confirm that version.
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200, 201, 412],
    description="The result's version; send it back as If-Match.",
)


# A public snapshot's version: a shared cache revalidates with it (If-None-Match: 304).
SNAPSHOT_HEADERS = [
    OpenApiParameter(
        "ETag",
        str,
        OpenApiParameter.HEADER,
        response=[200, 304],
        description="The standings snapshot's version in this language.",
    ),
    OpenApiParameter(
        "If-None-Match",
        str,
        OpenApiParameter.HEADER,
        description="An ETag you hold: 304 with no body while it is still the current one.",
    ),
]
NOT_MODIFIED = OpenApiResponse(description="Unchanged since the ETag sent in If-None-Match.")


def request_meta(request: Request, source: str = "api") -> services.RequestMeta:
    """Who sent a change, for the history. A request signed in by the session comes from
    Roundhouse's own pages (the tablet's entry page sends its rounds here, and resends them
    when the network is back): the history says the web pages, as for a confirmation there.
    Scripts and integrations sign in with a token: the API."""
    if source == "api" and isinstance(request.successful_authenticator, SessionAuthentication):
        source = "web"
    return services.RequestMeta(
        source=source,
        ip_address=client_ip(request),
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
    )


def staffed_table(request: Request, table_id: int) -> Table:
    table = found(Table.objects.select_related("stage__tournament"), pk=table_id)
    require_staff(request.user, table.stage.tournament)
    return table


def reported_table(request: Request, table_id: int) -> Table:
    """The table, for its tournament's staff or a seat claimed at it while its players report
    (tables/reporting.py require_reporter): who may enter and confirm its rounds."""
    table = found(Table.objects.select_related("stage__tournament"), pk=table_id)
    reporting.require_reporter(request.user, table)
    return table


def result_response(body: dict, etag: str, *, status: int = 200) -> Response:
    response = Response(body, status=status)
    response["ETag"] = etag
    return response


class AnswersVersionChanged:
    """A view whose 412 (VersionChanged) carries the result as it is now, and its ETag: the
    client shows it and edits that version (docs/API.md, "Round results")."""

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
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    def answer_refusal(self, error: Exception, response: Response) -> None:
        super().answer_refusal(error, response)
        if isinstance(error, UnusualScores):
            # The body's errors beside the scores to check, each under its key as a 400 has it.
            for key, messages in error.errors.items():
                response.data[key] = [str(message) for message in messages]
            response.data["warnings"] = services.warnings_body(
                [w.as_dict() for w in error.warnings], error.names
            )

    @extend_schema(
        description="The round's result. Anyone reads a confirmed round; a round not yet "
        "confirmed only the tournament's staff (anyone else gets the 404 of no result).",
        responses=RoundResultOutput,
        parameters=[ETAG],
    )
    def get(self, request: Request, table_id: int, round_no: int) -> Response:
        result = found(
            RoundResult.objects.select_related("stage__tournament", "table__stage"),
            table_id=table_id,
            round_no=round_no,
        )
        if is_staff_of(request.user, result.stage.tournament) or reporting.may_report(
            request.user, result.table
        ):  # a seat reads its own table's rounds, to confirm them
            return result_response(services.result_body(result), result.etag)
        # Anyone else reads what the public score sheet shows: a confirmed round (a submitted
        # one answers as not reported yet, as a round with no result does), without the
        # officials' usernames, which are their sign-in names.
        if result.status != RoundResult.Status.CONFIRMED:
            raise missing(RoundResult)
        body = services.result_body(result) | {"submitted_by": None, "confirmed_by": None}
        return result_response(body, result.etag)

    @extend_schema(
        description="Enter or replace a round's scores (the tournament's staff): every seated "
        "player once. 201 when new, 200 when replacing (If-Match needed: 428 without it, 412 "
        "when stale with the result as it is now in `current`); the same Idempotency-Key and "
        "body answers as the first time and stores nothing more. A confirmed round is replaced "
        "with a `reason` and goes back to be checked. A round of a closed stage is corrected by "
        "an organiser only (409 for an official, saying an organiser can), while no later stage "
        "has any result (409 naming it): the stage is reopened as `POST .../reopen/` does, and "
        "the close that follows (for a game seated from the game before, the confirmation of "
        "its last table) seats the next stage again from the corrected standings.",
        request=RoundResultInput,
        responses={
            201: RoundResultOutput,
            200: RoundResultOutput,
            409: refused(
                "The stage is closed and the sender is not an organiser, or a later stage has "
                "results; or the round is not one this stage plays."
            ),
            412: OpenApiResponse(PreconditionFailedOutput, "The If-Match names an older version."),
            422: refused("The Idempotency-Key was used for another request.", "Error"),
            428: refused("The round has a result: send If-Match with its ETag.", "Error"),
        },
        parameters=[
            ETAG,
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Up to 200 characters. The same key with the same body answers as "
                "the first time and stores nothing more; with another body, 422.",
            ),
            OpenApiParameter(
                "If-Match",
                str,
                OpenApiParameter.HEADER,
                description="The ETag of the result this replaces (needed to replace one: 428 "
                'without it, 412 when stale); "*" replaces whatever is there.',
            ),
            OpenApiParameter(
                "Prefer",
                str,
                OpenApiParameter.HEADER,
                description="handling=strict: refuse (400, with `warnings`) a result with an "
                "unusual score not checked, instead of storing it with its warnings; the body's "
                "other errors come in the same answer, each under its key.",
            ),
        ],
    )
    def put(self, request: Request, table_id: int, round_no: int) -> Response:
        table = reported_table(request, table_id)
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
        description="Confirm the round: the players agree with its scores (the tournament's "
        "staff). Confirming twice is harmless; the standings count confirmed rounds only.",
        request=None,
        responses={
            200: RoundResultOutput,
            400: OpenApiResponse(
                {"$ref": "#/components/schemas/ValidationError"},
                "The stage needs a second person to confirm (not who entered it).",
            ),
            409: refused("The stage is closed."),
            412: OpenApiResponse(PreconditionFailedOutput, "The If-Match names an older version."),
        },
        parameters=[
            ETAG,
            OpenApiParameter(
                "If-Match",
                str,
                OpenApiParameter.HEADER,
                description="Optional: the ETag of the version the players checked (412 when "
                "it changed since).",
            ),
        ],
    )
    def post(self, request: Request, table_id: int, round_no: int) -> Response:
        table = reported_table(request, table_id)
        try:
            result, scores = services.confirm_table_round(
                table=table,
                round_no=round_no,
                by=request.user,
                if_match=request.headers.get("If-Match"),
                meta=request_meta(request),
            )
        except NoResult:
            raise missing(RoundResult) from None
        return result_response(services.result_body(result, scores), result.etag)


class DisputeInput(serializers.Serializer):
    note = serializers.CharField(
        max_length=disputes.NOTE_LENGTH,
        help_text="What is wrong with the round, for the official who settles it (required).",
    )


class DisputeRoundResultApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Dispute the round (a seat of its table while its players report, or the "
        "tournament's staff): a submitted or confirmed round becomes `disputed`, with the note "
        "in its history. It then counts nowhere (not in the standings, and the stage cannot "
        "close) and the officials' board lists it until an official confirms it as it stands or "
        "corrects it (PUT: it goes back to be confirmed). A seat cannot confirm or replace a "
        "disputed round (409). Disputing a disputed round again changes nothing.",
        request=DisputeInput,
        responses={
            200: RoundResultOutput,
            409: refused("The stage is closed."),
        },
        parameters=[ETAG],
    )
    def post(self, request: Request, table_id: int, round_no: int) -> Response:
        table = reported_table(request, table_id)
        if not isinstance(request.data, dict):
            return Response({"non_field_errors": [_("Send a JSON object.")]}, status=400)
        unknown = sorted(set(request.data) - {"note"})
        if unknown:
            said = _("Unknown field: the fields are %(fields)s.") % {"fields": "note"}
            return Response({name: [said] for name in unknown}, status=400)
        try:
            result = disputes.dispute_round(
                table=table,
                round_no=round_no,
                by=request.user,
                note=request.data.get("note"),
                meta=request_meta(request),
            )
        except NoResult:
            raise missing(RoundResult) from None
        return result_response(services.result_body(result), result.etag)


class RoundResultHistoryApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=VersionOutput(many=True))
    def get(self, request: Request, table_id: int, round_no: int) -> Response:
        table = staffed_table(request, table_id)
        result = found(RoundResult, table=table, round_no=round_no)
        versions = list(result.versions.select_related("by").order_by("version"))
        # The seats whose phones made versions, in one query (an official's id is in none).
        claims = SeatClaim.objects.filter(
            user_id__in={version.by_id for version in versions}
        ).select_related("seat__player")
        seats = {claim.user_id: claim.seat for claim in claims}
        return Response(VersionOutput(versions, many=True, context={"seats": seats}).data)


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

    @extend_schema(responses={200: StandingsOutput, 304: NOT_MODIFIED}, parameters=SNAPSHOT_HEADERS)
    def get(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage, pk=stage_id)
        return _standings_answer(request, stage)


def _standings_answer(request: Request, stage: Stage) -> Response:
    """The stage's standings document, one version of public data: its ETag is the snapshot's
    (built and owed changes) in the request's language; a 304 while unchanged."""
    meta = standings.standings_meta(stage)
    etag = f'"standings-{stage.pk}-{meta.built_seq}-{meta.change_seq}-{get_language()}"'
    if (unchanged := http_cache.not_modified(request, etag)) is not None:
        return unchanged
    payload = standings.standings_payload(stage, meta)
    body = {**payload, "rows": standings.explained(payload["rows"])}
    return http_cache.shared(Response(body), etag)


class TournamentStandingsApi(APIView):
    """The standings of the tournament's current stage (the latest that is seated or closed)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: StandingsOutput, 304: NOT_MODIFIED}, parameters=SNAPSHOT_HEADERS)
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
                    "time_called": None,
                    "rows": [],
                }
            )
        return _standings_answer(request, stage)


class TiebreakInput(NamesUnusedFields, serializers.Serializer):
    table = serializers.IntegerField(required=False, allow_null=True)
    order = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=20)
    method = serializers.ChoiceField(choices=TiebreakDecision.Method.choices)
    note = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")


class TiebreakApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=TiebreakInput,
        responses={201: TiebreakDecisionOutput, 409: refused("No such tie to decide.")},
    )
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

    @extend_schema(
        request=None,
        responses={
            202: ClosedOutput,
            409: refused("Not every round is confirmed (listed in `problems`), or a tie waits."),
        },
    )
    def post(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage.objects.select_related("tournament"), pk=stage_id)
        require_organiser(request.user, stage.tournament)
        stage, closed = closing.close_and_say(stage=stage, by=request.user)
        body = {
            "detail": closed,
            "stage": StageSerializer(stage, context={"staff": True}).data,
        }
        return Response(body, status=202)


class ReopenStageApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Reopen the tournament's last closed stage (organisers), while no later "
        "stage has any result, confirmed or not: nothing entered is ever dropped. What its close "
        "made is undone: the stage it seated loses its seats (a stage the close created is "
        "removed; one from the preset or an organiser is `pending` again) and the placings it "
        "decided are cleared; printed table cards of that stage are out of date. The answer is "
        "the stage, `status: seated`; closing it again seats what follows from its standings "
        "then, and the seated stage's `seating_report.moved` says who sits elsewhere. "
        "Reopening a seated stage is harmless.",
        request=None,
        responses={
            200: StageSerializer,
            409: refused("A later stage has results (named in `detail`), or it is not seated."),
        },
    )
    def post(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage.objects.select_related("tournament"), pk=stage_id)
        require_organiser(request.user, stage.tournament)
        stage = reopen.reopen_stage(stage=stage, by=request.user)
        return Response(StageSerializer(stage, context={"staff": True}).data)


class PlacingsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PlacingOutput(many=True))
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        placings = Placing.objects.filter(tournament=tournament).select_related(
            "player", "stage", "division"
        )
        return Response(
            [
                {
                    "place": p.place,
                    "player": {"id": p.player_id, "number": p.player.number, "name": p.player.name},
                    "went_out_in": p.stage.display_name,
                    "division": p.division.name if p.division else None,
                    "division_place": p.division_place,
                    "medal": p.medal,
                }
                for p in placings.order_by("place", "player__number")
            ]
        )


# ---- time called: the stage's clock ---------------------------------------------------------


class StageClockApi(APIView):
    """A time-limited stage's clock: anyone reads the time left (from the server's clock);
    organisers start, pause and call time."""

    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    def stage_of(self, slug: str, stage_id: int) -> Stage:
        tournament = tournament_or_404(slug)
        return found(Stage.objects.select_related("tournament"), pk=stage_id, tournament=tournament)

    @extend_schema(
        description="The stage's clock: the time left by the server's clock, whether it runs, "
        "and once time is called each table's last round.",
        responses=ClockOutput,
    )
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        stage = self.stage_of(slug, stage_id)
        return Response(ClockOutput(clock.clock_state(stage)).data)

    @extend_schema(
        description="Start (or resume), pause, or call time (organisers). Calling time fixes "
        "each table's last round: the round in play, one more than the highest round with a "
        "result at that table. Allowed before the time runs out.",
        request=ClockInput,
        responses={
            200: ClockOutput,
            409: refused(
                "No time limit, the stage is not in play, the clock is already running (start) "
                "or not running (pause), never started (call), or time was called already."
            ),
        },
    )
    def post(self, request: Request, slug: str, stage_id: int) -> Response:
        stage = self.stage_of(slug, stage_id)
        require_organiser(request.user, stage.tournament)
        data = ClockInput(data=request.data)
        data.is_valid(raise_exception=True)
        action = {"start": clock.start_clock, "pause": clock.pause_clock, "call": clock.call_time}
        action[data.validated_data["action"]](stage, request.user)
        stage.refresh_from_db()
        return Response(ClockOutput(clock.clock_state(stage)).data)


# ---- CSV exports -------------------------------------------------------------------------------


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
        operation_id="tournaments_exports_retrieve",
        description="A CSV export, for organisers, named <slug>-<name>.csv (practice-<slug>-"
        "<name>.csv for a practice tournament). UTF-8 with a byte-order mark (spreadsheets "
        'need it): read it as utf-8-sig, or csv.DictReader names the first column "\\ufeffstage".',
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
        # A practice tournament's files say so first: never taken for the real event's.
        prefix = "practice-" if tournament.practice else ""
        filename = f"{prefix}{tournament.slug}-{name}.csv"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
