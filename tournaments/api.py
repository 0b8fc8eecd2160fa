"""The v1 API of tournaments, staff, players and stages (docs/API.md)."""

from allauth.core import ratelimit
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import PermissionDenied, Throttled
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import NamesUnusedFields, found
from config.api_schema import refused
from tournaments import services
from tournaments.api_divisions import DivisionNameField
from tournaments.csvfiles import ImportRejected, columns_given, unknown_columns
from tournaments.models import Player, Stage, Tournament
from tournaments.permissions import (
    is_organiser,
    is_staff_of,
    lockout_message,
    require_may_create_tournaments,
    require_organiser,
    require_staff,
)
from tournaments.selectors import listed_tournaments, players_matching, tournament_status

# How the tournament takes entries before the day (docs/API.md, "Entries before the day"):
# readable by anyone, changed by its organisers; services.update_details checks them.
ENTRY_FIELDS = [
    "entries_open_at", "entries_close_at", "capacity", "waitlist", "offer_hours", "entry_fee",
    "currency",
]  # fmt: skip
ENTRY_HELP = {
    "entries_open_at": {
        "help_text": "When the entry form opens (ISO 8601; without an offset, in the "
        "tournament's zone). null: it takes no entries of its own."
    },
    "entries_close_at": {
        "help_text": "When entries close, after entries_open_at; null: open until the first "
        "stage is seated."
    },
    "capacity": {
        "help_text": "Players entered at most (0 or more); null: no limit. Raised, the freed "
        "places are offered to the waitlist at once."
    },
    "waitlist": {"help_text": "When every place is taken, further entries wait in order."},
    "offer_hours": {
        "help_text": "Hours the first waiting entry has to take a freed place (at least 0.25)."
    },
    "entry_fee": {
        "help_text": 'The fee each entry owes, a decimal string ("12.50"); null: free. A '
        "division's own entry_fee replaces it."
    },
    "currency": {"help_text": "The fee's currency: three capitals of ISO 4217, such as USD."},
}


class TournamentSerializer(NamesUnusedFields, serializers.ModelSerializer):
    slug = serializers.SlugField(max_length=60)
    with_stages = serializers.BooleanField(
        default=False, write_only=True, help_text="Also create the preset's stages."
    )
    time_zone = serializers.CharField(
        max_length=64,
        required=False,
        help_text="An IANA time zone such as America/Chicago: every time in the tournament's "
        "answers, pages, exports and cards is in it.",
    )
    status = serializers.SerializerMethodField(
        help_text="not_started (no stage seated), in_play, finished (placings decided)."
    )
    listed = serializers.BooleanField(
        default=True,
        help_text="Shown on the home page and in GET /tournaments/ (true, the default); false "
        "leaves it out of both for everyone but its staff and the admin. Its pages and API "
        "answers still answer at their address. Changes at any time.",
    )
    practice = serializers.BooleanField(
        default=False,
        help_text="A rehearsal: never listed whatever `listed` says, marked Practice on every "
        "page, card and PDF (its CSV files' names start with practice-), and its seats and "
        "results can be reset (POST /tournaments/{slug}/reset/). Turned on only while no table "
        "has reported a round (409 after); turned off at any time, which makes it the real "
        "event as it stands.",
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "slug",
            "domino_set",
            "preset",
            "created_at",
            "with_stages",
            "starts_on",
            "ends_on",
            "venue",
            "description",
            "time_zone",
            "division_playoffs",
            "listed",
            "practice",
            "status",
            *ENTRY_FIELDS,
        ]
        read_only_fields = ["id", "created_at", "status"]
        extra_kwargs = {
            **ENTRY_HELP,
            "division_playoffs": {
                "help_text": "With divisions: shared (one playoff, placed and given medals per "
                "division; the default) or per_division (a playoff for each division). "
                "Changes until a stage is seated (409 after)."
            },
        }

    def get_status(self, tournament: Tournament) -> str:
        return tournament_status(tournament)


class TournamentDetailsSerializer(TournamentSerializer):
    """A tournament's details, which its organisers change (name, address, set and preset
    stay as created)."""

    with_stages = None  # only when creating
    slug = serializers.SlugField(read_only=True)
    listed = serializers.BooleanField(required=False, help_text=TournamentSerializer().fields[
        "listed"].help_text)  # fmt: skip
    practice = serializers.BooleanField(required=False, help_text=TournamentSerializer().fields[
        "practice"].help_text)  # fmt: skip

    class Meta(TournamentSerializer.Meta):
        fields = [f for f in TournamentSerializer.Meta.fields if f != "with_stages"]
        read_only_fields = ["id", "created_at", "status", "name", "slug", "domino_set", "preset"]


class PlayerSerializer(NamesUnusedFields, serializers.ModelSerializer):
    number = serializers.IntegerField(min_value=1, max_value=Player.MAX_NUMBER)
    name = serializers.CharField(max_length=120)
    division = DivisionNameField()  # writing it needs the tournament in the context

    class Meta:
        model = Player
        fields = ["id", "number", "name", "household", "club", "division", "status"]
        read_only_fields = ["id"]


class PublicPlayerSerializer(PlayerSerializer):
    """What anyone may see of a player: no household."""

    class Meta(PlayerSerializer.Meta):
        fields = ["id", "number", "name", "club", "division", "status"]


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "description": "How the stage was seated, for its staff (null for anyone else: it names "
        "households); empty before it is seated.",
        "properties": {
            "players_seated": {"type": "integer"},
            "left_out": {"type": "array", "items": {"type": "integer"}, "description": "Numbers."},
            "repeat_pairs": {"type": "integer", "description": "Tablemates from earlier stages."},
            "household_conflicts": {"type": "array", "items": {"type": "string"}},
            "household_conflict_details": {
                "type": "array",
                "items": {"type": "object", "additionalProperties": {}},
                "description": '{"table", "household"}',
            },
            "warnings": {"type": "array", "items": {"type": "string"}},
            "warning_details": {
                "type": "array",
                "items": {"type": "object", "additionalProperties": {}},
            },
            "discarded_results": {"type": "integer"},
            "by_rating": {
                "type": "string",
                "enum": ["balanced", "seeded"],
                "description": "Present when club ratings seated the stage.",
            },
            "table_ratings": {
                "type": "array",
                "items": {"type": "number"},
                "description": "Each table's mean rating at seating, by table number.",
            },
            "unrated": {
                "type": "integer",
                "description": "Players with no rating, seated as newcomers (rating 0).",
            },
        },
    }
)
class SeatingReportField(serializers.JSONField):
    """The stage's seating report, typed in the schema."""


class StageSerializer(NamesUnusedFields, serializers.ModelSerializer):
    rounds = serializers.IntegerField(min_value=1, max_value=19)
    starting_double = serializers.IntegerField(min_value=0, max_value=18)
    table_size_min = serializers.IntegerField(min_value=2, max_value=12)
    table_size_max = serializers.IntegerField(min_value=2, max_value=12)
    advance_per_table = serializers.IntegerField(min_value=1, max_value=11, default=1)
    wildcards = serializers.IntegerField(min_value=0, max_value=1000, default=0)
    # At least one minute: the service says so (a limit of 0 or less is a 400 with its reason).
    time_limit_minutes = serializers.IntegerField(
        allow_null=True,
        required=False,
        max_value=1440,
        help_text="The stage's time limit in minutes; null for none.",
    )
    confirm_within_minutes = serializers.IntegerField(
        min_value=1,
        max_value=240,
        required=False,
        help_text="A round the players entered and nobody confirmed for this long is listed on "
        "the officials' board.",
    )

    class Meta:
        model = Stage
        fields = [
            "id",
            "tournament",
            "order",
            "name",
            "name_key",
            "kind",
            "status",
            "domino_set",
            "rounds",
            "starting_double",
            "table_size_min",
            "table_size_max",
            "advance_per_table",
            "wildcards",
            "requires_second_person",
            "late_entry_rule",
            "carry_forward",
            "movement",
            "move_count",
            "time_limit_minutes",
            "time_rule",
            "reporting",
            "confirm_within_minutes",
            "seed",
            "seating_report",
            "advance_problem",
            "engines",
        ]
        read_only_fields = [
            "id",
            "tournament",
            "order",
            "name_key",
            "status",
            "domino_set",
            "seed",
            "engines",
            "seating_report",
            "advance_problem",
        ]

    tournament = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    engines = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    seating_report = SeatingReportField(read_only=True)

    def to_representation(self, instance: Stage) -> dict:
        data = super().to_representation(instance)
        # A name the product gave, in the request's language; a typed one as typed.
        data["name"] = instance.display_name
        if not self.context.get("staff"):
            data["seating_report"] = None  # it names households, which only staff see
        return data


def rejected_detail(what: str, count: int) -> str:
    """That nothing was imported, whole sentences per kind of row so that each translates whole."""
    if what == "player":
        text = ngettext(
            "%(count)s line has errors; no player was imported.",
            "%(count)s lines have errors; no player was imported.",
            count,
        )
    else:
        text = ngettext(
            "%(count)s line has errors; no result was imported.",
            "%(count)s lines have errors; no result was imported.",
            count,
        )
    return text % {"count": count}


def rejected_body(rejected: ImportRejected, what: str) -> dict:
    """The 400 of an upload: every bad line, and that nothing was imported."""
    return {
        # Lines, not messages: a line may have several.
        "detail": rejected_detail(what, len({line for line, _message in rejected.rows})),
        "file": rejected.messages,
        "rows": [{"line": line, "message": message} for line, message in rejected.rows],
    }


def tournament_or_404(slug: str) -> Tournament:
    return found(Tournament, slug=slug)


class TournamentListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(
        description="The tournaments listed on the home page: not those hidden from it "
        "(listed false), except to their staff and the admin, and never a practice one. Every "
        "tournament still answers at GET /tournaments/{slug}/.",
        responses=TournamentSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        tournaments = listed_tournaments(request.user)
        return Response(TournamentSerializer(tournaments, many=True).data)

    @extend_schema(request=TournamentSerializer, responses={201: TournamentSerializer})
    def post(self, request: Request) -> Response:
        require_may_create_tournaments(request.user)
        serializer = TournamentSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        values = {
            "domino_set": 12,
            "preset": Tournament.Preset.SAMBOREE,
            **serializer.validated_data,
        }
        tournament = services.create_tournament(**values, by=request.user)
        timezone.activate(tournament.zone)  # the answer's times in its zone, as later answers
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(responses=TournamentSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(TournamentSerializer(tournament_or_404(slug)).data)

    @extend_schema(
        description="Change the dates, venue, description, time zone, division playoffs, "
        "`listed` or `practice` (organisers; officials 403). `practice` turns on only while no "
        "table has reported a round: 409 after, saying to hide it (listed: false) instead; a "
        "refused request changes nothing.",
        request=TournamentDetailsSerializer,
        responses={
            200: TournamentSerializer,
            409: refused(
                "It has results already: it cannot become a practice tournament; hide it "
                "from the home page (listed: false) instead."
            ),
        },
    )
    def patch(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        serializer = TournamentDetailsSerializer(tournament, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        tournament = services.update_details(
            tournament=tournament, by=request.user, **serializer.validated_data
        )
        timezone.activate(tournament.zone)  # the answer's times in the zone just set
        return Response(TournamentSerializer(tournament).data)

    @extend_schema(
        description="Delete a tournament created by mistake, with its players, stages, seats "
        "and results not confirmed (organisers; officials 403): 204. A practice tournament "
        "is deleted whatever it holds. 409 for one with a confirmed result, which is a record "
        "of play: hide it from the home page (PATCH listed: false) instead; nothing is deleted.",
        responses={
            204: None,
            409: refused(
                "It has confirmed results, so it cannot be deleted: hide it from the home "
                "page (listed: false) instead."
            ),
        },
    )
    def delete(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        services.delete_tournament(tournament=tournament, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Delete a player entered by mistake: one with no seat and no score "
        "(organisers; officials 403): 204. Their history stays (the admin's History). 409 for a "
        "player seated or scored: withdraw them instead (POST .../withdraw/); nothing changes.",
        responses={
            204: None,
            409: refused(
                "The player has a seat or a score, so they cannot be deleted: withdraw them "
                "instead."
            ),
        },
    )
    def delete(self, request: Request, slug: str, player_id: int) -> Response:
        player = found(
            Player.objects.select_related("tournament"), pk=player_id, tournament__slug=slug
        )
        require_organiser(request.user, player.tournament)
        services.delete_player(player=player, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(
        responses=PlayerSerializer(many=True),
        parameters=[
            OpenApiParameter(
                "search",
                str,
                description="Only the players whose name holds every word given, ignoring case "
                "and accents (pena finds Peña).",
            )
        ],
    )
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        output = (
            PlayerSerializer if is_staff_of(request.user, tournament) else PublicPlayerSerializer
        )
        players = tournament.players.select_related("division")
        if (typed := request.query_params.get("search", "").strip()[:200]) != "":
            players = players.filter(pk__in=players_matching(tournament, typed))
        return Response(output(players, many=True).data)

    @extend_schema(request=PlayerSerializer, responses={201: PlayerSerializer})
    def post(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        serializer = PlayerSerializer(data=request.data, context={"tournament": tournament})
        serializer.is_valid(raise_exception=True)
        player = services.create_player(
            tournament=tournament, by=request.user, **serializer.validated_data
        )
        return Response(PlayerSerializer(player).data, status=status.HTTP_201_CREATED)


class CsvUploadApi(APIView):
    """A CSV upload of an organiser's, all lines or none: 201 {"created": N}, or 400 with every
    bad line. Subclasses name what they create and call the service."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]
    what = ""  # "player" or "result"; and create(*, tournament, content, request) -> the count
    ignores_columns = False  # columns other than the import's are left out, and named

    def post(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        upload = request.FILES.get("file")
        if upload is None:
            return Response({"file": [_("Attach the CSV file as 'file'.")]}, status=400)
        content = upload.read()
        try:
            return self.imported(tournament=tournament, content=content, request=request)
        except ImportRejected as rejected:
            return Response(rejected_body(rejected, self.what), status=400)

    def imported(self, *, tournament: Tournament, content: bytes, request: Request) -> Response:
        created = self.create(tournament=tournament, content=content, request=request)
        return self.answer({"created": created}, content, status.HTTP_201_CREATED)

    def answer(self, body: dict[str, object], content: bytes, code: int) -> Response:
        if self.ignores_columns and (
            left := unknown_columns(content, columns=services.IMPORT_COLUMNS)
        ):
            body["ignored_columns"] = left  # said, not lost silently
        return Response(body, status=code)


def upload_schema(name: str, *, ignores_columns: bool = False):
    imported: dict[str, serializers.Field] = {"created": serializers.IntegerField()}
    if ignores_columns:
        imported["ignored_columns"] = serializers.ListField(
            child=serializers.CharField(),
            required=False,
            help_text="The file's columns that were left out, when there were any.",
        )
    return extend_schema(
        description=f"Import {name.lower()} from a CSV file (multipart, `file`), for organisers: "
        "every line or none. 201 with the count, or 400 listing every bad line by number.",
        request={
            "multipart/form-data": inline_serializer(
                f"{name}Import", {"file": serializers.FileField()}
            )
        },
        responses={201: inline_serializer(f"{name}Imported", imported)},
    )


class ImportPlayersOptions(serializers.Serializer):
    mode = serializers.ChoiceField(
        choices=["add", "update"],
        default="add",
        help_text="add (left out): every row is a new player, and a number already in the "
        "tournament is a bad row. update: a row whose number is a player's corrects that "
        "player (name, household, club, division: the columns the header names), the others "
        "are added; nobody is removed.",
    )
    dry_run = serializers.BooleanField(
        default=False,
        help_text="With mode=update: store nothing, and list what the file would change.",
    )

    def validate(self, data: dict) -> dict:
        if data["dry_run"] and data["mode"] != "update":
            raise serializers.ValidationError(
                {
                    "dry_run": [
                        _(
                            "A dry run goes with mode=update: add mode=update, or leave dry_run "
                            "out to add the players."
                        )
                    ]
                }
            )
        return data


class PlayersImportSerializer(ImportPlayersOptions):
    """A players CSV file, and what to do with it."""  # the file: read by the import itself

    file = serializers.FileField()


IMPORT_PLAYERS_DESCRIPTION = (
    "Import players from a CSV file (multipart, `file`), for organisers: every line or none. A "
    "header row names at least `number` and `name`; `household`, `club`, `status`, `division` "
    "(or `age` / `birth_year`) and `member_number` are optional, and other columns are left out "
    "and named in `ignored_columns`.\n\n"
    'Without `mode` (or `mode=add`): 201 `{"created": N}` and, when the file has a '
    "`member_number` column, `unknown_member_numbers` (a row's number links its player to the "
    "member of the tournament's club with it; the numbers no member has are listed, their "
    "players imported unlinked), or 400 listing every bad line by "
    "number (a number already in the tournament is one), nothing created.\n\n"
    "`mode=update` (a corrected list): a row whose number is a player's updates the fields the "
    "header names among name, household, club and division (a column left out keeps its values; "
    "one entry in the player's history, and the pages and standings follow); the other rows are "
    "added; nobody is removed. A `status` other than the player's is a bad line (check-in and "
    'withdrawal have their own rules): leave the cell empty or as it is. 200 `{"created", '
    '"updated", "unchanged"}` (a row identical to its player is unchanged). A number twice in '
    "the file, or any bad line: 400 listing every bad line, nothing stored. Once the placings "
    "are decided, 409 for a file that adds a player or moves one to another division.\n\n"
    '`mode=update` with `dry_run=true`: 200, the same counts and `changes`: `[{"number", '
    '"field", "old", "new"}]` for each field of each existing player that would change (a '
    "division by its name, null for none); nothing stored."
)


UNKNOWN_NUMBERS = (
    "The file's member numbers that no member of the club that owns the tournament has: those "
    "players are imported, not linked (every number, for a tournament of no club)."
)


class ImportPlayersApi(CsvUploadApi):
    what = "player"
    ignores_columns = True

    @extend_schema(
        description=IMPORT_PLAYERS_DESCRIPTION,
        request={"multipart/form-data": PlayersImportSerializer},
        responses={
            201: inline_serializer(
                "PlayersImported",
                {
                    "created": serializers.IntegerField(),
                    "unknown_member_numbers": serializers.ListField(
                        child=serializers.CharField(),
                        required=False,
                        help_text=f"With a member_number column. {UNKNOWN_NUMBERS}",
                    ),
                    "ignored_columns": serializers.ListField(
                        child=serializers.CharField(),
                        required=False,
                        help_text="The file's columns that were left out, when there were any.",
                    ),
                },
            ),
            200: inline_serializer(
                "PlayersUpdated",
                {
                    "created": serializers.IntegerField(),
                    "updated": serializers.IntegerField(),
                    "unchanged": serializers.IntegerField(),
                    "unknown_member_numbers": serializers.ListField(
                        child=serializers.CharField(),
                        required=False,
                        help_text=f"With a member_number column, not with dry_run=true. "
                        f"{UNKNOWN_NUMBERS}",
                    ),
                    "changes": inline_serializer(
                        "PlayerFieldChange",
                        {
                            "number": serializers.IntegerField(),
                            "field": serializers.CharField(
                                help_text="name, household, club or division."
                            ),
                            "old": serializers.CharField(allow_null=True),
                            "new": serializers.CharField(allow_null=True),
                        },
                        many=True,
                        required=False,
                        help_text="With dry_run=true only.",
                    ),
                    "ignored_columns": serializers.ListField(
                        child=serializers.CharField(), required=False
                    ),
                },
            ),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)

    def imported(self, *, tournament: Tournament, content: bytes, request: Request) -> Response:
        options = ImportPlayersOptions(data=request.data)
        options.is_valid(raise_exception=True)
        unknown: list[str] = []  # the member numbers no member of the club has
        numbered = "member_number" in columns_given(content, columns=services.IMPORT_COLUMNS)
        if options.validated_data["mode"] != "update":
            players = services.import_players(
                tournament=tournament, content=content, by=request.user, unknown_numbers=unknown
            )
            body: dict[str, object] = {"created": len(players)}
            if numbered:
                body["unknown_member_numbers"] = unknown
            return self.answer(body, content, status.HTTP_201_CREATED)
        dry_run = options.validated_data["dry_run"]
        plan = services.update_players_from_csv(
            tournament=tournament,
            content=content,
            by=request.user,
            dry_run=dry_run,
            unknown_numbers=unknown,
        )
        body = {"created": len(plan.created), "updated": len(plan.updated),
                "unchanged": plan.unchanged}  # fmt: skip
        if dry_run:
            body["changes"] = [
                {"number": change.number, "field": change.field, "old": change.old,
                 "new": change.new}
                for change in plan.changes
            ]  # fmt: skip
        elif numbered:  # a dry run links nobody
            body["unknown_member_numbers"] = unknown
        return self.answer(body, content, status.HTTP_200_OK)


class StageListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(responses=StageSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        staff = is_staff_of(request.user, tournament)
        stages = tournament.stages.all()
        return Response(StageSerializer(stages, many=True, context={"staff": staff}).data)

    @extend_schema(request=StageSerializer, responses={201: StageSerializer})
    def post(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        serializer = StageSerializer(data=request.data)
        services.check_not_finished(tournament)  # the state first: a 409 says it is over
        serializer.is_valid(raise_exception=True)
        stage = services.create_stage(tournament=tournament, **serializer.validated_data)
        body = StageSerializer(stage, context={"staff": True}).data
        return Response(body, status=status.HTTP_201_CREATED)


class StageDetailApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(responses=StageSerializer)
    def get(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage.objects.select_related("tournament"), pk=stage_id)
        staff = is_staff_of(request.user, stage.tournament)
        return Response(StageSerializer(stage, context={"staff": staff}).data)

    @extend_schema(request=StageSerializer, responses=StageSerializer)
    def patch(self, request: Request, stage_id: int) -> Response:
        stage = found(Stage.objects.select_related("tournament"), pk=stage_id)
        require_staff(request.user, stage.tournament)
        if not isinstance(request.data, dict):
            body = {"non_field_errors": [_("Send a JSON object of settings.")]}
            return Response(body, status=400)
        if not is_organiser(request.user, stage.tournament):
            # Officials announce a playoff's starting double and rounds; the rest is organisers'.
            others = set(request.data) - {"starting_double", "rounds"}
            if stage.kind != Stage.Kind.PLAYOFF:
                raise PermissionDenied(
                    _("Only an organiser changes the settings of %(stage)s, a qualifying stage.")
                    % {"stage": stage.display_name}
                )
            if others:
                names = ", ".join(sorted(others))
                raise PermissionDenied(
                    _("Officials may set the starting double and rounds only, not %(fields)s.")
                    % {"fields": names}
                )
        serializer = StageSerializer(stage, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        stage = services.update_stage(stage=stage, changes=serializer.validated_data)
        return Response(StageSerializer(stage, context={"staff": True}).data)


@extend_schema(
    description="Sign in: a username and password for a token, sent afterwards as "
    "`Authorization: Token <token>`. Anyone may call it.",
    responses={
        200: AuthTokenSerializer,
        400: OpenApiResponse(
            {"$ref": "#/components/schemas/ValidationError"},
            "The username and password do not match an account (non_field_errors).",
        ),
        429: OpenApiResponse(
            {"$ref": "#/components/schemas/Error"},
            "Too many failed sign-ins for this username from this address: wait the "
            "Retry-After header's seconds. Or too many sign-ins from this address, whatever the "
            "usernames, here and on the sign-in page together (the sign-in page's limit, 30 a "
            "minute): wait a minute. The address is the client's, as the proxy in front saw it.",
        ),
    },
    parameters=[
        OpenApiParameter(
            "Retry-After",
            int,
            OpenApiParameter.HEADER,
            response=[429],
            description="Seconds until a sign-in is tried again.",
        )
    ],
)
class ObtainTokenApi(ObtainAuthToken):
    """POST username and password, get a token; a locked-out sign-in is told so (429). Anyone
    may call it (no credentials but the body's), and it reads bodies as the rest of the API does."""

    authentication_classes = []
    permission_classes = [AllowAny]
    parser_classes = APIView.parser_classes

    def post(self, request: Request, *args, **kwargs) -> Response:
        # The sign-in page's limit by address (allauth's "login" rate), counted together with it:
        # a second door for signing in is not a second allowance for guessing.
        if not ratelimit.consume(request._request, action="login"):
            raise Throttled()
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            if getattr(request, "axes_locked_out", False):  # set by django-axes
                seconds = round(settings.AXES_COOLOFF_TIME.total_seconds())
                return Response(
                    {"detail": lockout_message()},
                    status=status.HTTP_429_TOO_MANY_REQUESTS,
                    headers={"Retry-After": str(seconds)},
                )
            return Response(serializer.errors, status=status.HTTP_400_BAD_REQUEST)
        token, _created = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})
