"""The v1 API's club writes (docs/API.md, "Clubs"): a club started and read, members added to its
roster one by one or from a CSV file, its tournaments and its seasons. Each goes through the
service its page uses (clubs.services, clubs.ladder_services.save_season), so that the pages and
the API keep one rule each; a refusal is the API's (config.api: a ValidationError is a 400 by
field), and nothing is stored. Only organisers may start a club (as only they may create a
tournament); only the club's organisers may write to it (clubs.views.may_manage)."""

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs import api, services
from clubs.ladder_services import save_season, season_events
from clubs.models import Club, ClubTournament, Season
from clubs.views import may_manage
from config.api import NamesUnusedFields
from tournaments import permissions
from tournaments.csvfiles import ImportRejected
from tournaments.models import Tournament


def _managed(request: Request, slug: str) -> Club:
    """The club at `slug`, for one of its organisers (the caller is signed in: IsAuthenticated)."""
    club = api.club_or_404(slug)
    if not may_manage(request.user, club):
        raise exceptions.PermissionDenied(
            _("Only an organiser of %(club)s may do this.") % {"club": club.name}
        )
    return club


def _under(error: ValidationError, names: Mapping[str, str], default: str) -> ValidationError:
    """A service's refusal with its fields named as the API's body names them (`names`: the
    service's name -> the body's), and what it says of no field under `default`."""
    found = error.message_dict if hasattr(error, "error_dict") else {default: error.messages}
    renamed: dict[str, list[str]] = {}
    for field, texts in found.items():
        field = default if field == "__all__" else names.get(field, field)
        renamed.setdefault(field, []).extend(texts)
    return ValidationError(renamed)


# ---- a club -------------------------------------------------------------------------------------


class StartClubInput(NamesUnusedFields, serializers.Serializer):
    """A club to start, with the caller as its organiser."""

    name = serializers.CharField(max_length=120, help_text="The club's name.")
    slug = serializers.SlugField(
        max_length=60,
        required=False,
        allow_blank=True,
        help_text="Its web address (/c/{slug}/); made from the name when left out. Another "
        "club's is a 400 on `slug`.",
    )


class ClubOutput(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.SlugField()
    organisers = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="The usernames of the club's organisers, for its organisers only (left out "
        "for anyone else).",
    )


def _club_answer(club: Club, *, organisers: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"name": club.name, "slug": club.slug}
    if organisers:
        users = club.organisers.select_related("user").order_by("user__username")
        body["organisers"] = [role.user.get_username() for role in users]
    return body


class ClubListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Start a club, with the caller as its first organiser: for organisers "
        "(anyone who may create a tournament) and the admin; an official is a 403. A web "
        "address another club has is a 400 on `slug`, also when two are started at once.",
        request=StartClubInput,
        responses={201: ClubOutput},
    )
    def post(self, request: Request) -> Response:
        if not permissions.may_create_tournaments(request.user):
            raise exceptions.PermissionDenied(_("Only organisers may start a club."))
        given = StartClubInput(data=request.data)
        given.is_valid(raise_exception=True)
        club = services.start_club(by=request.user, **given.validated_data)
        return Response(_club_answer(club, organisers=True), status=status.HTTP_201_CREATED)


class ClubDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        description="A club's name and address, for anyone (as its public page shows them); "
        "its organisers are listed for its organisers only.",
        responses=ClubOutput,
    )
    def get(self, request: Request, slug: str) -> Response:
        club = api.club_or_404(slug)
        return Response(_club_answer(club, organisers=may_manage(request.user, club)))


# ---- the roster ---------------------------------------------------------------------------------


class MemberInput(NamesUnusedFields, serializers.Serializer):
    """A member of the roster; the contact details (email, phone) are its organisers' only."""

    name = serializers.CharField(max_length=120)
    member_number = serializers.CharField(
        max_length=40,
        required=False,
        allow_blank=True,
        default="",
        help_text="Optional; unique in the club (another member's is a 400 naming them).",
    )
    household = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")
    email = serializers.CharField(max_length=254, required=False, allow_blank=True, default="")
    phone = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")


class RosterApi(api.RosterApi):
    """The roster (clubs.api) and a member added to it."""

    @extend_schema(
        description="Add a member to the club's roster (its organisers only). A member number "
        "another member has is a 400 on `member_number` naming them; nothing is added. The "
        "answer is the member as the roster lists them, with their contact details.",
        request=MemberInput,
        responses={201: api.RosterMemberOutput},
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed(request, slug)
        given = MemberInput(data=request.data)
        given.is_valid(raise_exception=True)
        member = services.add_member(club=club, **given.validated_data)
        return Response(api.roster_line(member, None), status=status.HTTP_201_CREATED)


def _rejected_detail(count: int) -> str:
    text = ngettext(
        "%(count)s line has errors; no member was imported.",
        "%(count)s lines have errors; no member was imported.",
        count,
    )
    return text % {"count": count}


class MembersImportApi(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(
        description="Import members from a CSV file (multipart, `file`), as the roster page "
        "does: every line or none (its organisers only). The header row names `name` and any "
        "of `member_number`, `household`, `email`, `phone`. 201 with the count, or 400 "
        '`{"detail", "file", "rows": [{"line", "message"}]}` listing every bad line (an '
        "empty name, a member number twice in the file or already in the roster, an email "
        "that is not one), nothing stored.",
        request={
            "multipart/form-data": inline_serializer(
                "MembersImport", {"file": serializers.FileField()}
            )
        },
        responses={
            201: inline_serializer("MembersImported", {"created": serializers.IntegerField()})
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed(request, slug)
        upload = request.FILES.get("file")
        if upload is None:
            return Response({"file": [_("Attach the CSV file as 'file'.")]}, status=400)
        try:
            members = services.import_members(club=club, content=upload.read())
        except ImportRejected as rejected:
            body = {
                "detail": _rejected_detail(len({line for line, _text in rejected.rows})),
                "file": rejected.messages,
                "rows": [{"line": line, "message": text} for line, text in rejected.rows],
            }
            return Response(body, status=400)
        return Response({"created": len(members)}, status=status.HTTP_201_CREATED)


def _no_tournament(slug: str) -> str:
    return _("There is no tournament at the address %(slug)s.") % {"slug": slug}


# ---- the club's tournaments ---------------------------------------------------------------------


class ClubTournamentInput(NamesUnusedFields, serializers.Serializer):
    """A tournament the club is to own."""

    tournament = serializers.SlugField(
        max_length=60, help_text="The address of a tournament the caller organises."
    )


class ClubTournamentOutput(serializers.Serializer):
    tournament = serializers.SlugField()
    name = serializers.CharField()
    season = serializers.SlugField(
        allow_null=True, help_text="The club's season that counts it; null: none yet."
    )


class ClubTournamentsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="The club owns the tournament from now on (its players may be linked to "
        "the members): for someone who organises both the club and the tournament. An "
        "address no tournament has is a 400 on `tournament`; a tournament the caller does "
        "not organise, a 403; one that belongs to another club, a 400 on `tournament` naming "
        "it; nothing changes. 200 when it was the club's already (harmless twice).",
        request=ClubTournamentInput,
        responses={201: ClubTournamentOutput, 200: ClubTournamentOutput},
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed(request, slug)
        given = ClubTournamentInput(data=request.data)
        given.is_valid(raise_exception=True)
        address = given.validated_data["tournament"]
        tournament = Tournament.objects.filter(slug=address).first()
        if tournament is None:
            raise ValidationError({"tournament": [_no_tournament(address)]})
        # The service refuses it too, as a wrong input; the API says it as the role it is.
        if not permissions.is_organiser(request.user, tournament):
            raise exceptions.PermissionDenied(
                _("Only an organiser of %(tournament)s may add it to a club.")
                % {"tournament": tournament.name}
            )
        was = ClubTournament.objects.filter(club=club, tournament=tournament).exists()
        try:
            owned = services.add_tournament(club=club, tournament=tournament, by=request.user)
        except ValidationError as refused:
            raise _under(refused, {}, "tournament") from None
        body = {
            "tournament": tournament.slug,
            "name": tournament.name,
            "season": owned.season.slug if owned.season_id else None,
        }
        return Response(body, status=status.HTTP_200_OK if was else status.HTTP_201_CREATED)


# ---- seasons ------------------------------------------------------------------------------------

# The service's field names -> the body's.
SEASON_FIELDS = {"points_table": "points", "events": "tournaments"}


class SeasonInput(NamesUnusedFields, serializers.Serializer):
    """A season's rule and the club's tournaments it counts (PATCH: any of them)."""

    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(
        max_length=60,
        required=False,
        allow_blank=True,
        help_text="Its web address in the club; made from the name when left out.",
    )
    rule = serializers.ChoiceField(
        choices=Season.Rule.choices,
        help_text="points (points by place), best_n (points by place, each member's best N "
        "events) or average (lowest average pips per round played).",
    )
    places = serializers.ChoiceField(
        choices=Season.Places.choices,
        required=False,
        help_text="points and best_n: whom each event's places are counted among: members (the "
        "default; guests left out) or everyone the event placed.",
    )
    points = serializers.ListField(
        child=serializers.IntegerField(max_value=999999),
        required=False,
        help_text="points and best_n: the points for 1st, 2nd, 3rd ... place, none negative "
        "and none above the place before (a place beyond them scores 0). Not read for average.",
    )
    best_n = serializers.IntegerField(
        required=False,
        allow_null=True,
        max_value=999,
        help_text="best_n: how many of each member's events count (1 up to the season's events).",
    )
    min_rounds = serializers.IntegerField(
        required=False,
        max_value=99999,
        help_text="average: members with fewer rounds are listed below the ranked ones (0).",
    )
    tournaments = serializers.ListField(
        child=serializers.SlugField(max_length=60),
        required=False,
        help_text="The club's tournaments it counts, by address (at least one; none that "
        "another season counts).",
    )

    def validate_tournaments(self, addresses: list[str]) -> list[str]:
        twice = sorted({slug for slug in addresses if addresses.count(slug) > 1})
        if twice:
            raise serializers.ValidationError(
                _("Each tournament once: %(slugs)s is named twice.") % {"slugs": ", ".join(twice)}
            )
        return addresses


class SeasonOutput(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.SlugField()
    rule = serializers.ChoiceField(choices=Season.Rule.choices)
    places = serializers.ChoiceField(choices=Season.Places.choices)
    points = serializers.ListField(child=serializers.IntegerField())
    best_n = serializers.IntegerField(allow_null=True)
    min_rounds = serializers.IntegerField()
    tournaments = serializers.ListField(
        child=serializers.SlugField(), help_text="The tournaments it counts, in playing order."
    )


def _season_answer(season: Season) -> dict[str, Any]:
    return {
        "name": season.name,
        "slug": season.slug,
        "rule": season.rule,
        "places": season.places,
        "points": list(season.points_table or []),
        "best_n": season.best_n,
        "min_rounds": season.min_rounds,
        "tournaments": [tournament.slug for tournament in season_events(season)],
    }


def _events(addresses: list[str]) -> list[int]:
    """The tournaments' ids in the order given; an address no tournament has: a 400 naming it.
    (Whether each is the club's and no other season's is save_season's to say.)"""
    ids = dict(Tournament.objects.filter(slug__in=addresses).values_list("slug", "pk"))
    unknown = [slug for slug in addresses if slug not in ids]
    if unknown:
        raise ValidationError({"tournaments": [_no_tournament(slug) for slug in unknown]})
    return [ids[slug] for slug in addresses]


def _saved(club: Club, season: Season | None, values: dict[str, Any]) -> Season:
    try:
        return save_season(
            club=club,
            season=season,
            name=values["name"],
            slug=values.get("slug", ""),
            rule=values["rule"],
            places=values.get("places", Season.Places.MEMBERS),
            points_table=values.get("points", []),
            best_n=values.get("best_n"),
            min_rounds=values.get("min_rounds", 0),
            events=_events(values.get("tournaments", [])),
        )
    except ValidationError as refused:
        raise _under(refused, SEASON_FIELDS, "non_field_errors") from None


SEASON_REFUSALS = (
    "Each bad value is a 400 under its own field, and nothing is saved: an empty name, a web "
    "address another season of the club has, an unknown rule, points missing, negative or "
    "rising from one place to the next, best_n missing or above the season's events, an "
    "address no tournament has, a tournament that is not the club's or that another season "
    "counts, no tournament at all. The ladder is then rebuilt by a worker (the ladder's "
    "built_at says when)."
)


class SeasonListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description=f"Start a season of the club (its organisers only). {SEASON_REFUSALS}",
        request=SeasonInput,
        responses={201: SeasonOutput},
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed(request, slug)
        given = SeasonInput(data=request.data)
        given.is_valid(raise_exception=True)
        season = _saved(club, None, given.validated_data)
        return Response(_season_answer(season), status=status.HTTP_201_CREATED)


class SeasonDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Change any of a season's name, address, rule, places, points, best_n, "
        "min_rounds and tournaments (its organisers only): what is left out stays as it is, "
        "and `tournaments`, when sent, is the whole list the season counts from now on. The "
        f"season as changed must be one a ladder can be built by. {SEASON_REFUSALS}",
        request=SeasonInput,
        responses={200: SeasonOutput},
    )
    def patch(self, request: Request, slug: str, season_slug: str) -> Response:
        club = _managed(request, slug)
        season = Season.objects.filter(club=club, slug=season_slug).first()
        if season is None:
            raise exceptions.NotFound(_("There is no season at this address in this club."))
        given = SeasonInput(data=request.data, partial=True)
        given.is_valid(raise_exception=True)
        values = {
            **_season_answer(season),
            "points": list(season.points_table or []),
            **given.validated_data,
        }
        season = _saved(club, season, values)
        return Response(_season_answer(season))
