"""The demo event of `make run`: a Samboree of 37 players, loaded once."""

import random

from django.contrib.auth import get_user_model
from django.db import transaction

from scoring import services as scoring_services
from tables import services as table_services
from tournaments import services as tournament_services
from tournaments.models import Player, Staff, Tournament

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


@transaction.atomic
def load_demo() -> tuple[Tournament, bool]:
    """Create the demo tournament and its logins once; later calls keep what is there."""
    existing = Tournament.objects.filter(slug=DEMO_SLUG).first()
    organiser = _user(DEMO_ORGANISER)
    official = _user(DEMO_OFFICIAL)
    _user("admin", superuser=True)
    if existing is not None:
        return existing, False
    tournament = tournament_services.create_tournament(
        name="Lakeside Samboree 2026",
        slug=DEMO_SLUG,
        domino_set=12,
        preset="samboree",
        by=organiser,
        with_stages=True,
    )
    tournament_services.add_staff(
        tournament=tournament, username=official.username, role=Staff.Role.OFFICIAL
    )
    Player.objects.bulk_create(
        Player(
            tournament=tournament,
            number=number,
            name=name,
            household=household,
            club=club,
            status=Player.Status.CHECKED_IN,
        )
        for number, (name, household, club) in enumerate(DEMO_PLAYERS, start=1)
    )
    qualifying = tournament.stages.get(order=1)
    table_services.seat_stage(stage=qualifying, by=organiser, seed=2026)
    _play_some_rounds(qualifying, official)
    return tournament, True


def _play_some_rounds(stage, official) -> None:
    """A half-played event: rounds 1 and 2 confirmed everywhere, round 3 at most tables."""
    rng = random.Random(2026)
    meta = scoring_services.RequestMeta(source="demo")
    for table in stage.tables.order_by("number"):
        players = list(table.seats.order_by("position").values_list("player_id", flat=True))
        rounds = 3 if table.number <= 8 else 2
        for round_no in range(1, rounds + 1):
            winner = rng.choice(players)
            scores = [
                {
                    "player": pid,
                    "pips": 0 if pid == winner else rng.randint(4, 85),
                    "went_out": pid == winner,
                }
                for pid in players
            ]
            outcome = scoring_services.submit_round_result(
                table=table,
                round_no=round_no,
                data={"blocked": False, "scores": scores},
                by=official,
                meta=meta,
            )
            if round_no < 3 or table.number <= 6:  # tables 7 and 8 still have to check round 3
                scoring_services.confirm_round_result(result=outcome.result, by=official, meta=meta)
