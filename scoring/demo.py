"""The demo event of `make run`: a Samboree of 37 players, loaded once, beside a finished club
night and a finished senior games (scoring.demo_events)."""

import random
from datetime import date

from django.contrib.auth import get_user_model
from django.db import transaction

from scoring.demo_club_night import load_club_night
from scoring.demo_events import (
    enter_players,
    load_silver_games,
    new_tournament,
    play,
    play_to_the_end,
)
from tables import services as table_services
from tournaments.models import Invitation, Player, Staff, Tournament
from tournaments.services import staff as tournament_staff

DEMO_SLUG = "lakeside-samboree"
DEMO_PASSWORD = "roundhouse-demo"
DEMO_ORGANISER = "organiser"
DEMO_OFFICIAL = "official"

# (name, household, club): couples share a household so that seating keeps them apart.
DEMO_PLAYERS: list[tuple[str, str, str]] = [
    ("Margaret Ellison", "Ellison", "Lakeside RV Club"),
    ("Howard Ellison", "Ellison", "Lakeside RV Club"),
    ("José Ramírez", "Ramírez", "Good Sam Texas"),
    ("María Ramírez", "Ramírez", "Good Sam Texas"),
    ("Dorothy Kowalski", "", "Lakeside RV Club"),
    ("Bill O'Connor", "O'Connor", "Desert Rats"),
    ("Peggy O'Connor", "O'Connor", "Desert Rats"),
    ("Chuck Whitfield", "", "Desert Rats"),
    ("Linda Nguyen", "Nguyen", "Sunbelt Travelers"),
    ("Tom Nguyen", "Nguyen", "Sunbelt Travelers"),
    ("Carmen Delgado", "", "Good Sam Texas"),
    ("Ruth Ann Baker", "Baker", "Lakeside RV Club"),
    ("Earl Baker", "Baker", "Lakeside RV Club"),
    ("Gloria Peña", "", "Sunbelt Travelers"),
    ("Frank Lindqvist", "Lindqvist", "Northern Rovers"),
    ("Ingrid Lindqvist", "Lindqvist", "Northern Rovers"),
    ("Shirley Jackson", "", "Desert Rats"),
    ("Raymond Dubois", "Dubois", "Northern Rovers"),
    ("Françoise Dubois", "Dubois", "Northern Rovers"),
    ("Walter Hughes", "", "Lakeside RV Club"),
    ("Betty Lou Carter", "Carter", "Sunbelt Travelers"),
    ("Jim Carter", "Carter", "Sunbelt Travelers"),
    ("Rosa Martínez", "", "Good Sam Texas"),
    ("Donald McAllister", "McAllister", "Northern Rovers"),
    ("Jean McAllister", "McAllister", "Northern Rovers"),
    ("Harold Schmidt", "", "Desert Rats"),
    ("Beverly Thompson", "Thompson", "Lakeside RV Club"),
    ("Gene Thompson", "Thompson", "Lakeside RV Club"),
    ("Lupe García", "", "Good Sam Texas"),
    ("Arlene Fischer", "", "Northern Rovers"),
    ("Norma Jean Pruitt", "Pruitt", "Desert Rats"),
    ("Vern Pruitt", "Pruitt", "Desert Rats"),
    ("Yolanda Ortiz", "", "Sunbelt Travelers"),
    ("Kenneth Albright", "", "Lakeside RV Club"),
    ("Phyllis Yamamoto", "Yamamoto", "Sunbelt Travelers"),
    ("George Yamamoto", "Yamamoto", "Sunbelt Travelers"),
    ("Delores Washington", "", "Desert Rats"),
]


def _user(username: str, *, superuser: bool = False):
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=username)
    if created:
        user.set_password(DEMO_PASSWORD)
        user.is_staff = superuser
        user.is_superuser = superuser
        user.save()
    return user


FINISHED_SLUG = "riverside-club-night"
FINISHED_PLAYERS = [
    "Agnes Moreau",
    "Bud Kowalczyk",
    "Consuelo Ibáñez",
    "Dale Whitaker",
    "Edna Fairbanks",
    "Fermín Castillo",
    "Gail Henderson",
    "Hank Lundqvist",
    "Irma Delacroix",
    "Jack O'Malley",
    "Kay Nakamura",
    "Luis Echeverría",
]


def pending_invitation(tournament: Tournament) -> Invitation:
    """An official's invitation to try (made again once the last one was used or expired)."""
    pending = [i for i in tournament.invitations.all() if i.status == Invitation.Status.PENDING]
    if pending:
        return pending[0]
    organiser = tournament.staff.filter(role=Staff.Role.ORGANISER).first()
    return tournament_staff.create_invitation(
        tournament=tournament,
        role=Staff.Role.OFFICIAL,
        by=organiser.user if organiser else None,
    )


def load_demo() -> tuple[Tournament, bool]:
    """Create the demo tournaments and logins once; later calls keep what is there.

    Lakeside is half-played (the live pages have something to show); Riverside is finished
    (the bracket and placings have something to show); the Silver Games too (its divisions'
    medals and time called), added to a demo loaded before it.
    """
    organiser = _user(DEMO_ORGANISER)
    official = _user(DEMO_OFFICIAL)
    _user("admin", superuser=True)
    existing = Tournament.objects.filter(slug=DEMO_SLUG).first()
    if existing is not None:
        load_silver_games(organiser, official)
        load_club_night(organiser, official)
        return existing, False
    with transaction.atomic():
        tournament = new_tournament(
            "Lakeside Samboree 2026",
            DEMO_SLUG,
            organiser,
            official,
            starts_on=date(2026, 11, 24),
            ends_on=date(2026, 11, 26),
            venue="Lakeside RV Park, Hall B",
            description="Four rounds from double-12, then the table winners' playoff.",
            time_zone="America/Chicago",
        )
        enter_players(
            organiser,
            [
                Player(
                    tournament=tournament,
                    number=number,
                    name=name,
                    household=household,
                    club=club,
                    status=Player.Status.CHECKED_IN,
                )
                for number, (name, household, club) in enumerate(DEMO_PLAYERS, start=1)
            ],
        )
        qualifying = tournament.stages.get(order=1)
        table_services.seat_stage(stage=qualifying, by=organiser, seed=2026)
        # Rounds 1 and 2 confirmed everywhere, round 3 entered at eight tables (two to check).
        play(
            qualifying,
            official,
            random.Random(2026),
            rounds=lambda table: 3 if table.number <= 8 else 2,
            confirm=lambda table, round_no: round_no < 3 or table.number <= 6,
        )
    if not Tournament.objects.filter(slug=FINISHED_SLUG).exists():
        _load_finished(organiser, official)
    load_silver_games(organiser, official)
    load_club_night(organiser, official)
    return tournament, True


def _load_finished(organiser, official) -> None:
    """A club night played to the end: three tables, their winners' final, the placings."""
    tournament = new_tournament("Riverside Club Night", FINISHED_SLUG, organiser, official)
    enter_players(
        organiser,
        [
            Player(tournament=tournament, number=n, name=name, status=Player.Status.CHECKED_IN)
            for n, name in enumerate(FINISHED_PLAYERS, start=1)
        ],
    )
    qualifying = tournament.stages.order_by("order").first()
    table_services.seat_stage(stage=qualifying, by=organiser, seed=12)
    play_to_the_end(tournament, organiser, official, random.Random(12))
