"""The v1 API of a tournament's flights (divisions made by a split): anyone reads them, its
organisers split the players by rating or put them by a list, or remove the flights. The rules
are the services' (scoring.services.flights, tournaments.services.flights)."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import NamesUnusedFields, found
from config.api_schema import refused
from scoring.rules.flights import MAX_FLIGHTS
from scoring.services.flights import split_by_rating
from tournaments import services
from tournaments.models import Division, Tournament
from tournaments.permissions import require_organiser
from tournaments.selectors import flights_of


class FlightSerializer(serializers.ModelSerializer):
    players = serializers.SerializerMethodField(help_text="The badge numbers of its players.")

    class Meta:
        model = Division
        fields = ["id", "name", "order", "players"]
        read_only_fields = ["id", "name", "order"]

    def get_players(self, flight: Division) -> list[int]:
        return sorted(p.number for p in flight.players.all())


class FlightsChangeSerializer(NamesUnusedFields, serializers.Serializer):
    by = serializers.ChoiceField(
        choices=["rating", "list"],
        help_text="rating: split the players still playing into `count` flights of equal "
        "size, A the strongest; list: put each player named in `flights` in that flight.",
    )
    count = serializers.IntegerField(
        min_value=2, max_value=MAX_FLIGHTS, required=False, help_text="With by=rating."
    )
    flights = serializers.DictField(
        child=serializers.CharField(allow_null=True, allow_blank=True, max_length=200),
        required=False,
        help_text='With by=list: {"badge number": "flight name", or null for none}; the '
        "players left out keep theirs.",
    )
    confirm = serializers.BooleanField(
        default=False,
        help_text="Move players out of a flight although rounds have been entered (else 409).",
    )

    def validate(self, data: dict) -> dict:
        if data["by"] == "rating" and "count" not in data:
            raise serializers.ValidationError({"count": [_("Say how many flights.")]})
        if data["by"] == "list" and not data.get("flights"):
            raise serializers.ValidationError(
                {"flights": [_("Name at least one player's flight.")]}
            )
        return data


class FlightsAnswerSerializer(serializers.Serializer):
    moved = serializers.IntegerField(help_text="How many players changed flight.")
    ranked_by = serializers.ChoiceField(
        choices=["rating", "standings"],
        allow_null=True,
        help_text="What ranked the players for by=rating: the club's ratings, or the standings "
        "of the latest closed stage; null for by=list.",
    )
    flights = FlightSerializer(many=True)


CONFLICT = refused(
    "The tournament has divisions, or the placings are decided, or players would move out of "
    "a flight after rounds were entered without `confirm`; nothing was changed."
)


class FlightsApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # reads are public

    @extend_schema(responses=FlightSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The tournament's flights in order (A first), with their players' badge numbers."""
        tournament = found(Tournament, slug=slug)
        return Response(FlightSerializer(flights_of(tournament), many=True).data)

    @extend_schema(
        request=FlightsChangeSerializer,
        responses={200: FlightsAnswerSerializer, 409: CONFLICT},
    )
    def post(self, request: Request, slug: str) -> Response:
        """Split the players into flights by rating, or put them in flights by a list
        (organisers); until the placings are decided."""
        tournament = found(Tournament, slug=slug)
        require_organiser(request.user, tournament)
        serializer = FlightsChangeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        ranked_by = None
        if data["by"] == "rating":
            changed, ranking = split_by_rating(
                tournament=tournament, count=data["count"], confirm=data["confirm"]
            )
            ranked_by = ranking.by
        else:
            changed = services.assign_flights(
                tournament=tournament, flights=_by_id(tournament, data["flights"]),
                confirm=data["confirm"],
            )  # fmt: skip
        body = {"moved": changed.moved, "ranked_by": ranked_by,
                "flights": FlightSerializer(flights_of(tournament), many=True).data}  # fmt: skip
        return Response(body)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "confirm", bool, description="true: although rounds have been entered."
            )
        ],
        responses={204: OpenApiResponse(description="Removed."), 409: CONFLICT},
    )
    def delete(self, request: Request, slug: str) -> Response:
        """Take every player out of the flights and remove them (organisers)."""
        tournament = found(Tournament, slug=slug)
        require_organiser(request.user, tournament)
        confirm = request.query_params.get("confirm", "").lower() == "true"
        services.remove_flights(tournament=tournament, confirm=confirm)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _by_id(tournament: Tournament, flights: dict[str, str | None]) -> dict[int, str | None]:
    """{badge number: flight} as {player id: flight}; a 400 naming the numbers of nobody."""
    numbers = dict(tournament.players.values_list("number", "pk"))
    wanted, unknown = {}, []
    for number, name in flights.items():
        pk = numbers.get(int(number)) if number.isdigit() else None
        if pk is None:
            unknown.append(number)
        else:
            wanted[pk] = name
    if unknown:
        message = _("%(tournament)s has no player with the badge number %(numbers)s.")
        raise serializers.ValidationError(
            {"flights": [message % {"tournament": tournament.name, "numbers": ", ".join(unknown)}]}
        )
    return wanted
