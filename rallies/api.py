"""The v1 API of rallies: a rally's chapter standings, read-only and public (docs/API.md,
"Rallies")."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.ladder import to_decimal
from rallies import selectors
from rallies.models import Rally


class RallyEventOutput(serializers.Serializer):
    tournament = serializers.SlugField(help_text="The event's tournament, by address.")
    name = serializers.CharField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    state = serializers.ChoiceField(choices=["upcoming", "playing", "decided"])
    placed = serializers.IntegerField(help_text="Its players placed (decided).")
    guests = serializers.IntegerField(help_text="Of those, players of no chapter of the rally.")


class ChapterLineOutput(serializers.Serializer):
    place = serializers.IntegerField()
    shared = serializers.BooleanField(help_text="Another chapter has the same points.")
    chapter = serializers.CharField()
    points = serializers.CharField(help_text="Its points, two decimals (a tie splits places).")
    by_event = serializers.DictField(
        child=serializers.CharField(), help_text="The points of each decided event, by address."
    )
    players = serializers.IntegerField(help_text="Its players placed in the decided events.")


class RallyStandingsOutput(serializers.Serializer):
    rally = serializers.CharField()
    points_table = serializers.ListField(child=serializers.IntegerField())
    finished = serializers.BooleanField(help_text="Every event decided, or the rally closed.")
    most_points = serializers.ListField(
        child=serializers.CharField(), help_text="Once finished: the chapter(s) with most points."
    )
    events = RallyEventOutput(many=True)
    chapters = ChapterLineOutput(many=True)


class RallyStandingsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        description="A rally's chapter standings from its events' placings, as they are now.",
        responses=RallyStandingsOutput,
    )
    def get(self, request: Request, rally_slug: str) -> Response:
        rally = Rally.objects.filter(slug=rally_slug).first()
        if rally is None:
            raise exceptions.NotFound(_("There is no rally at this address."))
        table = selectors.standings(rally)
        slugs = {s.event.pk: s.tournament.slug for s in table.events}
        return Response(
            {
                "rally": rally.name,
                "points_table": rally.points_table,
                "finished": table.finished,
                "most_points": table.most,
                "events": [
                    {
                        "tournament": s.tournament.slug,
                        "name": s.tournament.name,
                        "starts_at": s.event.starts_at,
                        "ends_at": s.event.ends_at,
                        "state": s.state,
                        "placed": s.placed,
                        "guests": s.guests,
                    }
                    for s in table.events
                ],
                "chapters": [
                    {
                        "place": line.place,
                        "shared": line.shared,
                        "chapter": line.name,
                        "points": str(to_decimal(line.total, 2)),
                        "by_event": {
                            slugs[pk]: str(to_decimal(value, 2))
                            for pk, value in line.by_event.items()
                        },
                        "players": line.players,
                    }
                    for line in table.lines
                ],
            }
        )
