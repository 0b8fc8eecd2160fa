"""The v1 API of a tournament's divisions: anyone reads them, its organisers change them."""

from django.db.models import Count
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import NamesUnusedFields, found
from config.api_schema import refused
from tournaments import services
from tournaments.models import Division, Tournament
from tournaments.permissions import require_organiser
from tournaments.services.divisions import OLDEST, division_names


class DivisionSerializer(NamesUnusedFields, serializers.ModelSerializer):
    name = serializers.CharField(max_length=80)
    age_min = serializers.IntegerField(
        min_value=0,
        max_value=OLDEST,
        allow_null=True,
        required=False,
        help_text="The youngest age it takes; null for none (an import's age or birth year "
        "picks the division whose range holds it).",
    )
    age_max = serializers.IntegerField(
        min_value=0,
        max_value=OLDEST,
        allow_null=True,
        required=False,
        help_text="The oldest age it takes; null for no upper age (80 and over).",
    )
    description = serializers.CharField(max_length=300, allow_blank=True, required=False)
    entry_fee = serializers.DecimalField(
        max_digits=8,
        decimal_places=2,
        min_value=0,
        allow_null=True,
        required=False,
        help_text="What an entry in this division owes instead of the tournament's entry_fee, "
        "a decimal string; null: the tournament's. Entries made already keep their fee due.",
    )
    players = serializers.SerializerMethodField(help_text="How many players are in it.")
    flight = serializers.BooleanField(
        read_only=True,
        help_text="A flight, made by a split (GET /tournaments/{slug}/flights/): placed and "
        "given medals as a division is.",
    )

    class Meta:
        model = Division
        fields = [
            "id", "name", "age_min", "age_max", "description", "entry_fee", "order", "players",
            "flight",
        ]  # fmt: skip
        read_only_fields = ["id", "order", "players", "flight"]

    def get_players(self, division: Division) -> int:
        count = getattr(division, "player_count", None)
        return division.players.count() if count is None else count


@extend_schema_field(
    {
        "type": "string",
        "nullable": True,
        "maxLength": 80,
        "description": "The name of the player's division (GET /tournaments/{slug}/divisions/), "
        "capitals and spaces aside; null for none.",
    }
)
class DivisionNameField(serializers.CharField):
    """A player's division by its name: one of the tournament's (the serializer's context
    names the tournament), or null."""

    def __init__(self, **kwargs):
        super().__init__(allow_null=True, required=False, **kwargs)

    def to_representation(self, value: Division) -> str:
        return value.name

    def to_internal_value(self, data: object) -> Division:
        name = super().to_internal_value(data)
        tournament: Tournament = self.context["tournament"]
        division = services.division_named(tournament, name)
        if division is None:
            raise serializers.ValidationError(
                _("%(tournament)s has no division %(name)s: its divisions are %(names)s.")
                % {
                    "tournament": tournament.name,
                    "name": repr(name),
                    "names": division_names(tournament),
                }
            )
        return division


def divisions_of(tournament: Tournament):
    return tournament.divisions.annotate(player_count=Count("players")).order_by("order", "name")


REMOVE_CONFLICT = refused(
    "Players are in the division (move them to another or to none first), or the placings "
    "are decided; nothing was changed."
)


class DivisionListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(responses=DivisionSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The tournament's divisions in order, with their ages and how many players each has."""
        tournament = found(Tournament, slug=slug)
        return Response(DivisionSerializer(divisions_of(tournament), many=True).data)

    @extend_schema(
        request=DivisionSerializer,
        responses={201: DivisionSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        """Add a division, last in order (organisers); until the placings are decided (409)."""
        tournament = found(Tournament, slug=slug)
        require_organiser(request.user, tournament)
        serializer = DivisionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        division = services.create_division(tournament=tournament, **serializer.validated_data)
        return Response(DivisionSerializer(division).data, status=status.HTTP_201_CREATED)


class DivisionDetailApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    def division(self, slug: str, division_id: int) -> Division:
        tournament = found(Tournament, slug=slug)
        return found(Division.objects.select_related("tournament"), tournament=tournament,
                     pk=division_id)  # fmt: skip

    @extend_schema(responses=DivisionSerializer)
    def get(self, request: Request, slug: str, division_id: int) -> Response:
        return Response(DivisionSerializer(self.division(slug, division_id)).data)

    @extend_schema(
        request=DivisionSerializer,
        responses=DivisionSerializer,
    )
    def patch(self, request: Request, slug: str, division_id: int) -> Response:
        """Change a division's name, ages or description (organisers)."""
        division = self.division(slug, division_id)
        require_organiser(request.user, division.tournament)
        if not isinstance(request.data, dict):
            body = {"non_field_errors": [_("Send a JSON object of settings.")]}
            return Response(body, status=400)
        serializer = DivisionSerializer(division, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        division = services.update_division(division=division, changes=serializer.validated_data)
        return Response(DivisionSerializer(division).data)

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Removed."),
            409: REMOVE_CONFLICT,
        },
    )
    def delete(self, request: Request, slug: str, division_id: int) -> Response:
        """Remove a division no player is in (organisers): 409 says how many are, otherwise."""
        division = self.division(slug, division_id)
        require_organiser(request.user, division.tournament)
        services.remove_division(division=division)
        return Response(status=status.HTTP_204_NO_CONTENT)
