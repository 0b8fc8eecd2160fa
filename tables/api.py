"""The v1 API of seating: seat a stage, its tables, late players, withdrawals, table cards, and
the tables whose players report their own rounds (a seat claimed with the table's code, a table
handed back to the officials)."""

from django.contrib.auth import login
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound, Throttled
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config import throttles
from config.api import Conflict, NamesUnusedFields, found
from config.api_schema import refused
from tables import reporting, selectors, services
from tables.models import Seat, Table
from tournaments.api import PlayerSerializer, StageSerializer
from tournaments.exceptions import StateConflict
from tournaments.links import absolute_url
from tournaments.models import Invitation, Player, Staff, Stage
from tournaments.permissions import is_organiser, is_staff_of, require_organiser, require_staff
from tournaments.services.stage_changes import closed_message


class SeatedPlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "number", "name"]


class SeatSerializer(serializers.ModelSerializer):
    player = SeatedPlayerSerializer()

    class Meta:
        model = Seat
        fields = ["position", "player", "from_round", "to_round"]


@extend_schema_field(serializers.ChoiceField(choices=Stage.Reporting.choices))
class TableReportingField(serializers.Field):
    """Who enters the table's rounds now: its players while its stage's players report and no
    organiser handed it back to the officials (tables/reporting.py players_report)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, table: Table) -> str:
        players = reporting.players_report(table)
        return Stage.Reporting.PLAYERS if players else Stage.Reporting.OFFICIALS


class TableSerializer(serializers.Serializer):
    """A table and its seats. Its code (typed on a phone with a badge number to claim a seat) is
    for the tournament's staff only, who print it on the table's card: the key is absent for
    anyone else (context `staff`)."""

    id = serializers.IntegerField()
    number = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    reporting = TableReportingField(
        help_text="Who enters this table's rounds now: `players` while its stage's players "
        "report and no organiser handed the table back to the officials, else `officials`."
    )
    table_code = serializers.CharField(
        source="code",
        required=False,
        help_text="The code a player types with their badge number to claim their seat "
        "(POST /api/v1/table-codes/{code}/seats/): shown to the tournament's staff only, absent "
        "for anyone else. New for each stage's tables.",
    )

    def to_representation(self, table: Table) -> dict:
        body = super().to_representation(table)
        if not self.context.get("staff"):
            del body["table_code"]
        return body


class SeatStageInput(NamesUnusedFields, serializers.Serializer):
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**62)
    force = serializers.BooleanField(
        default=False, help_text="Reseat a stage that has results, discarding them."
    )


class LatePlayerInput(NamesUnusedFields, serializers.Serializer):
    player = serializers.IntegerField(help_text="The player's id.")
    allow_over_max = serializers.BooleanField(
        default=False,
        help_text=(
            "Seat the player above the stage's table_size_max when every table has that many "
            "(the table's card and score sheet say so). Without it, a full stage is a 409."
        ),
    )


class LateTableInput(NamesUnusedFields, serializers.Serializer):
    players = serializers.ListField(
        child=serializers.IntegerField(),
        allow_empty=False,
        max_length=100,
        help_text="The late players' ids, in seat order: table_size_min to table_size_max.",
    )
    from_round = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text=(
            "The new table's first round; by default the round after the last that every table "
            "has reported, the earliest it may be."
        ),
    )


class LateSeatSerializer(serializers.ModelSerializer):
    player = SeatedPlayerSerializer()
    table = serializers.IntegerField(source="table.number")

    class Meta:
        model = Seat
        fields = ["table", "position", "player", "from_round"]


def stage_or_404(stage_id: int) -> Stage:
    return found(Stage.objects.select_related("tournament"), pk=stage_id)


def tables_response(stage: Stage, *, staff: bool) -> Response:
    """The stage's tables, their codes for its tournament's staff only."""
    tables = selectors.tables_with_seats(stage).select_related("stage")
    return Response(TableSerializer(tables, many=True, context={"staff": staff}).data)


class SeatStageApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=SeatStageInput, responses=TableSerializer(many=True))
    def post(self, request: Request, stage_id: int) -> Response:
        stage = stage_or_404(stage_id)
        require_organiser(request.user, stage.tournament)
        data = SeatStageInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.seat_stage(stage=stage, by=request.user, **data.validated_data)
        return tables_response(stage, staff=True)


class UnseatStageApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Take a seated stage with no result back to `pending` (organisers): its "
        "tables and seats are removed, and its printed table cards no longer hold. 409 once "
        "any result exists (nothing entered is dropped: reseat it instead), or when it is not "
        "seated. A stage seated by the close of the stage before is seated again by that close "
        "(reopen that stage to undo it).",
        request=None,
        responses={200: StageSerializer, 409: refused("The stage has results, or is not seated.")},
    )
    def post(self, request: Request, stage_id: int) -> Response:
        stage = stage_or_404(stage_id)
        require_organiser(request.user, stage.tournament)
        stage = services.unseat_stage(stage=stage, by=request.user)
        return Response(StageSerializer(stage, context={"staff": True}).data)


class StageTablesApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        description="The stage's tables and their seats (anyone). The tournament's staff also "
        "read each table's `table_code`.",
        responses=TableSerializer(many=True),
    )
    def get(self, request: Request, stage_id: int) -> Response:
        stage = stage_or_404(stage_id)
        return tables_response(stage, staff=is_staff_of(request.user, stage.tournament))


class LatePlayerApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=LatePlayerInput,
        responses={
            201: LateSeatSerializer,
            409: refused(
                "The stage is not seated or open, is a playoff, every table has played all its "
                "rounds, or every table has table_size_max players and the body does not say "
                '"allow_over_max": true.'
            ),
        },
        description=(
            "Seat a late player at the smallest table with a seat below the stage's "
            "table_size_max, from the round after the last that table reported; nobody else "
            "moves. The player is never seated above table_size_max unless the body says "
            '"allow_over_max": true; without it, when every table is full the answer is a 409 '
            "saying so, and nothing changes. With it, the player joins the smallest table, up to "
            "the largest deal of the tournament's rules, and that table's card and score sheet "
            "say it is above the stage's size."
        ),
    )
    def post(self, request: Request, stage_id: int) -> Response:
        stage = stage_or_404(stage_id)
        require_organiser(request.user, stage.tournament)
        data = LatePlayerInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = Player.objects.filter(
            pk=data.validated_data["player"], tournament=stage.tournament
        ).first()
        if player is None:
            return Response({"player": [_("No such player in this tournament.")]}, status=400)
        seat = services.add_late_player(
            stage=stage,
            player=player,
            by=request.user,
            allow_over_max=data.validated_data["allow_over_max"],
        )
        return Response(LateSeatSerializer(seat).data, status=201)


class LateTableApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=LateTableInput,
        responses={
            201: TableSerializer,
            400: refused(
                "A player is not in the tournament, is named twice, has withdrawn or is seated "
                "in the stage already; the players are fewer than table_size_min or more than "
                "table_size_max; or from_round is outside the stage or a round every table has "
                "reported.",
                "ValidationError",
            ),
            409: refused(
                "The stage is not seated or open, is a playoff, time was called, or every table "
                "has reported all its rounds."
            ),
        },
        description=(
            "Seat late players together at a new table of the stage (organisers): the other "
            "choice, beside allow_over_max, when every table is full and enough late players "
            "wait. The table takes the next number and plays from `from_round`; nobody else "
            "moves. Its rounds before that are none of its own: the standings count it from its "
            "first round (ranked_through does not wait for it), and its players' missed rounds "
            "score as the stage's late_entry_rule says, from the mean of the other tables' "
            "highest scores in each round (table_high). Every refusal changes nothing; of two "
            "organisers seating the same players at once, the second is told they are seated."
        ),
    )
    def post(self, request: Request, stage_id: int) -> Response:
        stage = stage_or_404(stage_id)
        require_organiser(request.user, stage.tournament)
        data = LateTableInput(data=request.data)
        data.is_valid(raise_exception=True)
        ids = data.validated_data["players"]
        named = Player.objects.filter(pk__in=ids, tournament=stage.tournament)
        found_players = {player.pk: player for player in named}
        unknown = [pk for pk in ids if pk not in found_players]
        if unknown:
            message = _("No such player in this tournament: %(ids)s.") % {
                "ids": ", ".join(str(pk) for pk in unknown)
            }
            return Response({"players": [message]}, status=400)
        table = services.add_late_table(
            stage=stage,
            players=[found_players[pk] for pk in ids],
            by=request.user,
            from_round=data.validated_data.get("from_round"),
        )
        table = selectors.tables_with_seats(stage).select_related("stage").get(pk=table.pk)
        return Response(TableSerializer(table, context={"staff": True}).data, status=201)


class PlayerActionApi(APIView):
    """POST withdraws, reinstates or checks in one player."""

    permission_classes = [IsAuthenticated]
    action_name = ""

    @extend_schema(request=None, responses=PlayerSerializer)
    def post(self, request: Request, slug: str, player_id: int) -> Response:
        player = found(
            Player.objects.select_related("tournament"), pk=player_id, tournament__slug=slug
        )
        require_organiser(request.user, player.tournament)
        action = getattr(services, self.action_name)
        player = action(player=player, by=request.user)
        return Response(PlayerSerializer(player).data)


class WithdrawPlayerApi(PlayerActionApi):
    action_name = "withdraw_player"


class ReinstatePlayerApi(PlayerActionApi):
    action_name = "reinstate_player"


class CheckInPlayerApi(PlayerActionApi):
    action_name = "check_in_player"


class TableCardsApi(APIView):
    """One PDF for the whole stage: a table card and score sheet per table."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="stages_cards_retrieve",
        responses={
            (200, "application/pdf"): OpenApiTypes.BINARY,
            409: refused("The stage is not seated yet: seat it to print its table cards."),
        },
    )
    def get(self, request: Request, stage_id: int) -> HttpResponse:
        stage = stage_or_404(stage_id)
        require_staff(request.user, stage.tournament)
        if stage.status == Stage.Status.PENDING:
            raise Conflict(
                _("%(stage)s is not seated yet: seat it to print its table cards.")
                % {"stage": stage.display_name}
            )
        pending = [
            invitation
            for invitation in stage.tournament.invitations.filter(role=Staff.Role.OFFICIAL)
            if invitation.status == Invitation.Status.PENDING
        ]
        # Here, not at the top: reportlab and its fonts would sit in every web worker (~10 MB) for
        # a PDF that only staff print (docs/PERFORMANCE.md, Web worker memory).
        from tables import cards

        pdf = cards.stage_cards_pdf(
            stage,
            entry_url=lambda table: absolute_url(
                request, f"/t/{stage.tournament.slug}/enter/{table.pk}/"
            ),
            # Organisers print the officials' invitations with the cards; officials do not.
            invitations=[(absolute_url(request, reverse("join", args=[i.key])), i) for i in pending]
            if is_organiser(request.user, stage.tournament)
            else [],
        )
        response = HttpResponse(pdf, content_type="application/pdf")
        prefix = "practice-" if stage.tournament.practice else ""  # as the CSV files say it
        filename = f"{prefix}{stage.tournament.slug}-stage-{stage.order}-tables.pdf"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


# ---- tables whose players report their own rounds ---------------------------------------------


class ClaimSeatInput(NamesUnusedFields, serializers.Serializer):
    number = serializers.IntegerField(
        min_value=1, max_value=2**31 - 1, help_text="The player's badge number."
    )


class ClaimedSeatSerializer(serializers.Serializer):
    token = serializers.CharField(
        help_text="The seat's token: send it as `Authorization: Token <token>`. It reaches this "
        "table's rounds only, until the table or its stage goes back to the officials."
    )
    table = serializers.IntegerField(help_text="The table's id.")
    table_number = serializers.IntegerField()
    seat = serializers.IntegerField(help_text="The seat's position at the table.")
    player = serializers.CharField(help_text="The player's name.")
    stage = serializers.IntegerField(help_text="The stage's id.")


class ClaimSeatApi(APIView):
    """A player's phone becomes their seat: the table's code (on its card) and their badge number.

    Anyone may knock, so each failed claim is counted per address (config/throttles.py
    TABLE_CODES) and, past the limit, every claim from that address waits, a right one too: a
    guesser cannot tell a right code by its answer coming through."""

    permission_classes = [AllowAny]
    authentication_classes = []  # the code and the number are the credential; no CSRF

    @extend_schema(
        operation_id="table_codes_seats_create",
        description="Claim a seat at the table whose code this is (the table's card, new for "
        "each stage), as the player with that badge number seated there: 201 with the seat's "
        "token, and the same browser is signed in as the seat for the pages. The token reaches "
        "this table's rounds only (enter, read and confirm, dispute), and ends when an organiser "
        "hands the table or its stage back to the officials. A seat may be claimed from more "
        "than one phone. Every failed claim counts: after 10 from one address in a minute, every "
        "claim from it is a 429 with Retry-After until the minute is over.",
        request=ClaimSeatInput,
        responses={
            201: ClaimedSeatSerializer,
            404: refused(
                "No table has this code, or no player with this number sits at it.", "Error"
            ),
            409: refused("The table's rounds are entered by the officials now, or its stage "
                         "is closed."),
            429: refused("More than 10 failed claims from this address in a minute.", "Error"),
        },
    )  # fmt: skip
    def post(self, request: Request, code: str) -> Response:
        # Counted before it is answered, so that claims sent at once cannot all slip in under
        # the limit; a claim that succeeds is given back: only failed claims count.
        if (wait := throttles.TABLE_CODES.take(request._request)) is not None:
            raise Throttled(wait)
        data = ClaimSeatInput(data=request.data)
        data.is_valid(raise_exception=True)
        seat = reporting.seat_to_claim(code, data.validated_data["number"])
        if seat is None:
            raise NotFound(_("No table has this code, or no player with this number sits at it."))
        claim, token = reporting.claim_seat(seat)
        throttles.TABLE_CODES.give_back(request._request)
        login(request._request, claim.user, backend=reporting.SEAT_BACKEND)
        body = {
            "token": token,
            "table": seat.table_id,
            "table_number": seat.table.number,
            "seat": seat.position,
            "player": seat.player.name,
            "stage": seat.table.stage_id,
        }
        return Response(ClaimedSeatSerializer(body).data, status=201)


class TableReportingInput(NamesUnusedFields, serializers.Serializer):
    reporting = serializers.ChoiceField(
        choices=Stage.Reporting.choices,
        help_text="`officials` hands the table back to the officials (its seats' phones are "
        "signed out at once); `players` gives it back to its players.",
    )


class TableReportingApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Who enters this table's rounds (organisers), in a stage whose players "
        "report: `officials` hands it back to the officials at once (every seat claimed at it is "
        "signed out, its tokens end), `players` gives it back to its players (they claim their "
        "seats again). Asking what holds already changes nothing; at a stage the officials "
        "report, `officials` is what holds. The answer is the table as the stage's tables list "
        "shows it to its staff.",
        request=TableReportingInput,
        responses={
            200: TableSerializer,
            409: refused(
                "The stage's rounds are entered by the officials (change the stage's `reporting` "
                "first) and `players` was asked, or the stage is closed."
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        table = found(Table.objects.select_related("stage__tournament"), pk=table_id)
        require_organiser(request.user, table.stage.tournament)
        data = TableReportingInput(data=request.data)
        data.is_valid(raise_exception=True)
        players = data.validated_data["reporting"] == Stage.Reporting.PLAYERS
        if table.stage.status == Stage.Status.CLOSED:
            raise StateConflict(closed_message(table.stage, "tables"))
        if players or table.stage.reporting == Stage.Reporting.PLAYERS:
            reporting.set_table_reporting(table, players=players)
        stage = table.stage
        table = selectors.tables_with_seats(stage).select_related("stage").get(pk=table.pk)
        return Response(TableSerializer(table, context={"staff": True}).data)
