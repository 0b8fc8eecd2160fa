"""A tournament mid-event for the API's whole-surface tests (the schemathesis fuzz, the malformed
bodies): its organiser's token, and the ids worth aiming each path parameter and body field at."""

from datetime import timedelta
from typing import Any

from django.utils import timezone
from rest_framework.authtoken.models import Token

from clubs.models import Season
from entries.models import Entry, Payment
from scoring import services as scoring_services
from tables.models import Seat
from tests import factories
from tests.scoring.helpers import play, seat_tables
from tournaments.models import Division, Invitation


def build_world() -> dict[str, Any]:
    in_a_week = timezone.now() + timedelta(days=7)
    tournament = factories.TournamentFactory(slug="fuzz", domino_set=12)
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    official = factories.StaffFactory(tournament=tournament, role="official").user
    qualifying = factories.StageFactory(
        tournament=tournament, order=1, name="Qualifying", rounds=4, status="seated",
        reporting="players",
    )  # fmt: skip
    first, second = seat_tables(qualifying, [["Ann", "Bob", "Cy", "Di"], ["Eve", "Fay", "Gus"]])
    play(qualifying, second, 1, [0, 10, 10])
    scoring_services.submit_round_result(
        table=qualifying.tables.get(number=1),
        round_no=1,
        data={
            "blocked": False,
            "scores": [
                {"player": p.pk, "pips": pips, "went_out": pips == 0}
                for p, pips in zip(first, (0, 12, 30, 7), strict=True)
            ],
        },
        by=organiser,
    )
    playoff = factories.StageFactory(
        tournament=tournament, order=2, name="Playoff", kind="playoff", rounds=2
    )
    factories.PlayerFactory(tournament=tournament, number=20, name="Lou", household="Lou's")
    players = list(tournament.players.values_list("pk", flat=True))
    invitation = Invitation.objects.create(
        tournament=tournament, role="official", created_by=organiser, expires_at=in_a_week
    )
    division = Division.objects.create(tournament=tournament, name="Open")
    # An entry of Lou's (entered before the day), with a payment: the entries' paths.
    entry = Entry.objects.create(
        tournament=tournament,
        player=tournament.players.get(number=20),
        status=Entry.Status.ENTERED,
        name="Lou",
        email="lou@example.org",
        fee_due=10,
        check_in_code="LOUCODE2",
    )
    payment = Payment.objects.create(entry=entry, amount=10, method=Payment.Method.CASH)
    # The club of the same address that owns it, its organiser's too: the clubs' paths.
    owned = factories.ClubTournamentFactory(club__slug=tournament.slug, tournament=tournament)
    factories.ClubOrganiserFactory(club=owned.club, user=organiser)
    member = factories.MemberFactory(club=owned.club, name="Lou", member_number="F-1")
    season = Season.objects.create(
        club=owned.club, name="Fuzz season", slug="fuzz-season", points_table=[3, 2, 1]
    )
    tables = list(qualifying.tables.values_list("pk", flat=True))
    seated = {
        table: [s.player_id for s in Seat.objects.filter(table=table).order_by("position")]
        for table in tables
    }
    return {
        "token": Token.objects.create(user=organiser).key,
        "tokens": {
            "organiser": Token.objects.get(user=organiser).key,
            "official": Token.objects.create(user=official).key,
        },
        # path parameters
        "slug": [tournament.slug],
        "stage_id": [qualifying.pk, playoff.pk],
        "table_id": tables,
        "player_id": players,
        "round_no": [1, 2, 4],
        "name": ["players", "seating", "scores", "standings", "bracket", "placings"],
        "staff_id": list(tournament.staff.values_list("pk", flat=True)),
        "invitation_id": [invitation.pk],
        "division_id": [division.pk],
        "scope": ["event", f"division-{division.pk}"],  # a prize table's
        "entry_id": [entry.pk],
        "payment_id": [payment.pk],
        "key": [entry.manage_key],
        "code": list(qualifying.tables.values_list("code", flat=True)),
        "member_id": [member.pk],
        "season_slug": [season.slug],
        # body fields
        "player": players,
        "table": tables,
        "order": players,
        "seated": seated,  # table id -> its players in seat order, for a round's scores
    }
