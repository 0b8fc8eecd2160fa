"""The v1 API of clubs: a season's ladder and a member's rating for anyone, a club's roster with
contact details and ratings for its organisers."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs import ladder, rating_store
from clubs.ladder_services import season_events, season_rule
from clubs.models import Club, Member, Season
from clubs.public_views import ladder_lines, plain_number
from clubs.rating import MemberRating
from clubs.views import may_manage


def club_or_404(slug: str) -> Club:
    club = Club.objects.filter(slug=slug).first()
    if club is None:
        raise exceptions.NotFound(_("There is no club at this address."))
    return club


def _member(club: Club, member_id: int) -> Member:
    # Who is on the roster is the organisers' to know: anyone else finds only who played.
    member = Member.objects.filter(club=club, pk=member_id, links__isnull=False).distinct().first()
    if member is None:
        raise exceptions.NotFound(_("There is no member with this id in this club."))
    return member


def _rating(point: MemberRating | None) -> dict | None:
    if point is None:
        return None
    return {
        "ordinal": round(point.ordinal),
        "mu": point.mu,
        "sigma": point.sigma,
        "rounds": point.rounds,
        "provisional": point.provisional,
    }


class RatingOutput(serializers.Serializer):
    ordinal = serializers.IntegerField(
        help_text="The rating shown: 40 x (mu - 3 sigma), a cautious figure (0 for a newcomer)."
    )
    mu = serializers.FloatField(help_text="The Weng-Lin (openskill Plackett-Luce) skill.")
    sigma = serializers.FloatField(help_text="Its uncertainty.")
    rounds = serializers.IntegerField(help_text="Table-rounds rated so far.")
    provisional = serializers.BooleanField(help_text="Fewer rounds rated than a settled rating.")


class RatingPointOutput(RatingOutput):
    tournament = serializers.SlugField(help_text="The event, by its tournament's address.")
    date = serializers.DateField(help_text="The event's date.")


class MemberRatingOutput(serializers.Serializer):
    member = serializers.IntegerField()
    name = serializers.CharField()
    rating = RatingOutput()
    series = RatingPointOutput(many=True, help_text="The rating after each event, oldest first.")


class RatingOfMemberApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        description="A member's rating now and after each event they played. A member with no "
        "rated round has no rating: 404 saying so.",
        responses=MemberRatingOutput,
    )
    def get(self, request: Request, slug: str, member_id: int) -> Response:
        member = _member(club_or_404(slug), member_id)
        series = rating_store.member_series(member)
        if not series:
            raise exceptions.NotFound(
                _("This member has no rated rounds yet, so they have no rating.")
            )
        slugs = dict(member.links.values_list("player__tournament_id", "player__tournament__slug"))
        return Response(
            {
                "member": member.pk,
                "name": member.name,
                "rating": _rating(series[-1]),
                "series": [
                    {
                        **_rating(point),
                        "tournament": slugs.get(point.last_key.event_id, ""),
                        "date": point.last_key.event_date,
                    }
                    for point in series
                ],
            }
        )


class LadderLineOutput(serializers.Serializer):
    place = serializers.IntegerField(allow_null=True, help_text="null: not ranked (min rounds).")
    shared = serializers.BooleanField(help_text="Another member has the same place.")
    member = serializers.IntegerField()
    name = serializers.CharField()
    value = serializers.CharField(
        help_text="Points, or the average pips per round (a point before decimals: 6.25)."
    )
    events = serializers.IntegerField(help_text="Events of the season played.")
    counted = serializers.ListField(
        child=serializers.SlugField(), help_text="The events that counted (best N), by address."
    )
    rounds = serializers.IntegerField()
    pips = serializers.IntegerField()
    notes = serializers.CharField(allow_blank=True, help_text="How a tie was broken, or shared.")


class LadderOutput(serializers.Serializer):
    season = serializers.CharField()
    rule = serializers.ChoiceField(choices=Season.Rule.choices)
    rule_words = serializers.CharField(help_text="The rule and its tie-breaks, in words.")
    built_at = serializers.DateTimeField(allow_null=True, help_text="null: not built yet.")
    lines = LadderLineOutput(many=True)


class LadderApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        description="A season's ladder as the worker last built it, in the reader's language "
        "(Accept-Language).",
        responses=LadderOutput,
    )
    def get(self, request: Request, slug: str, season_slug: str) -> Response:
        season = Season.objects.filter(club=club_or_404(slug), slug=season_slug).first()
        if season is None:
            raise exceptions.NotFound(_("There is no season at this address in this club."))
        events = season_events(season)
        slugs = {tournament.pk: tournament.slug for tournament in events}
        return Response(
            {
                "season": season.name,
                "rule": season.rule,
                "rule_words": ladder.rule_words(season_rule(season, events)),
                "built_at": season.ladder_built_at,
                "lines": [
                    {
                        "place": line.row.place,
                        "shared": line.row.shared,
                        "member": line.row.member_id,
                        "name": line.row.member.name,
                        "value": plain_number(line.row.value),
                        "events": line.row.events,
                        "counted": [slugs[pk] for pk in line.row.counted if pk in slugs],
                        "rounds": line.row.rounds,
                        "pips": line.row.pips,
                        "notes": line.notes,
                    }
                    for line in ladder_lines(season)
                ],
            }
        )


class RosterMemberOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    member_number = serializers.CharField(allow_blank=True)
    household = serializers.CharField(allow_blank=True)
    email = serializers.CharField(allow_blank=True)
    phone = serializers.CharField(allow_blank=True)
    erased = serializers.BooleanField()
    rating = RatingOutput(allow_null=True, help_text="null: no rated round yet.")


class RosterApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="The club's roster with contact details and ratings: its organisers only.",
        responses=RosterMemberOutput(many=True),
    )
    def get(self, request: Request, slug: str) -> Response:
        club = club_or_404(slug)
        if not may_manage(request.user, club):
            raise exceptions.PermissionDenied(
                _("Only an organiser of %(club)s may read its roster.") % {"club": club.name}
            )
        ratings = rating_store.current_ratings(club.pk)
        return Response(
            [
                roster_line(member, ratings.get(member.pk))
                for member in club.members.order_by("name", "pk")
            ]
        )


def roster_line(member: Member, rating: MemberRating | None) -> dict:
    """A member as the roster lists them, contact details included: for the club's organisers."""
    return {
        "id": member.pk,
        "name": member.name,
        "member_number": member.member_number,
        "household": member.household,
        "email": member.email,
        "phone": member.phone,
        "erased": member.erased_at is not None,
        "rating": _rating(rating),
    }
