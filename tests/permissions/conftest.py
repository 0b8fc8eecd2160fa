"""The world each permission test runs in (a tournament, its staff, one user for each role)
and the bodies of the writes, each valid in that world so that only the role decides."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from clubs.models import PlayerLink, RatingPoint, Season
from rallies.services import add_event, create_rally
from scoring import services as scoring_services
from scoring import standings
from tables import reporting
from tests import factories
from tests.conftest import FAST_HASHERS, clear_cache
from tests.scoring.helpers import play, seat_tables
from tournaments.models import Division, Player, Stage, Tournament
from tournaments.services.staff import create_invitation

PASSWORD = "a-long-test-password"
RALLY_SLUG = "spring-rally"  # its one event is `this`

# The columns of the matrix, in this order.
ROLES = (
    "anonymous",  # no credentials at all
    "player",  # logged in, no role anywhere: what a player's phone would be
    "official",  # official of this tournament
    "other_official",  # official of another tournament only
    "organiser",  # organiser of this tournament
    "other_organiser",  # organiser of another tournament only
    "superuser",
    "seat",  # a phone that claimed a seat at the table of {r}, whose players report (no role)
)


# ---- the world each cell runs in -------------------------------------------------------------


@dataclass
class World:
    """This tournament, another one, a user per role, and the objects the calls name."""

    this: Tournament
    other: Tournament
    users: dict[str, Any]
    tokens: dict[str, str]
    # seated, 4 rounds, its players report; table 1: Ann Bob Cy Di, round 1 submitted, Di's
    # seat claimed (the `seat` role)
    qualifying: Stage
    early: Stage  # seated, 1 round, all confirmed: ready to close; Hal and Ivy tied for 3rd
    playoff: Stage  # pending: PATCH and seat go here
    table: Any  # table 1 of `qualifying`
    early_table: Any
    seated: list[Player]  # Ann, Bob, Cy, Di in seat order
    early_players: list[Player]  # Fay, Gus, Hal, Ivy
    eve: Player  # registered, seated nowhere: late entry, check-in, withdrawal
    wes: Player  # withdrawn, seated nowhere: reinstatement
    other_stage: Stage  # of the other tournament: seated, one table of Zed, Yan, Xia
    other_table: Any
    official_role: Any  # the official's Staff row: PATCH and DELETE go here
    invitation: Any  # a pending official's invitation: DELETE revokes it
    division: Any  # a division no player is in: PATCH and DELETE go here
    club: Any  # owns `this`; the organiser organises it; Ann is its member, rated once
    member: Any
    season: Any  # the club's, counting nothing yet
    free: Tournament  # the organiser's, owned by no club: the club may add it

    def ids(self) -> dict[str, Any]:
        return {
            "t": f"tournaments/{self.this.slug}",
            "s": "stages",
            "r": f"tables/{self.table.pk}/rounds",
            "qual": self.qualifying.pk,
            "early": self.early.pk,
            "playoff": self.playoff.pk,
            "eve": self.eve.pk,
            "wes": self.wes.pk,
            "other_stage": self.other_stage.pk,
            "other_table": self.other_table.pk,
            "tid": self.table.pk,
            "code": self.table.code,
            "sid": self.official_role.pk,
            "iid": self.invitation.pk,
            "did": self.division.pk,
            "c": f"clubs/{self.club.slug}",
            "mid": self.member.pk,
            "season": self.season.slug,
            "rally": RALLY_SLUG,
        }


def seat_token(table, number: int) -> str:
    """The token of a phone that claimed the seat of badge `number` at the table."""
    return reporting.claim_seat(reporting.seat_to_claim(table.code, number))[1]


def build_world() -> World:
    this = factories.TournamentFactory(name="Spring Samboree", slug="spring", domino_set=12)
    other = factories.TournamentFactory(name="Autumn Rally", slug="autumn", domino_set=12)
    user_model = get_user_model()
    users = {
        "player": factories.UserFactory(username="phone", password=PASSWORD),
        "official": factories.StaffFactory(tournament=this, role="official").user,
        "other_official": factories.StaffFactory(tournament=other, role="official").user,
        "organiser": factories.StaffFactory(tournament=this, role="organiser").user,
        "other_organiser": factories.StaffFactory(tournament=other, role="organiser").user,
        "superuser": user_model.objects.create_superuser("root", "root@example.org", PASSWORD),
    }
    tokens = {role: Token.objects.create(user=user).key for role, user in users.items()}

    qualifying = factories.StageFactory(
        tournament=this, order=1, name="Qualifying", rounds=4, starting_double=12,
        status="seated", reporting="players",
    )  # fmt: skip
    (seated,) = seat_tables(qualifying, [["Ann", "Bob", "Cy", "Di"]])
    Player.objects.filter(pk__in=[seated[0].pk, seated[2].pk]).update(household="Smith")
    table = qualifying.tables.get()
    # Round 1 entered through the service by another official (so that anyone may confirm it).
    scribe = factories.StaffFactory(tournament=this, role="official").user
    scoring_services.submit_round_result(
        table=table,
        round_no=1,
        data={
            "blocked": False,
            "scores": [
                {"player": p.pk, "pips": pips, "went_out": pips == 0}
                for p, pips in zip(seated, (0, 12, 30, 7), strict=True)
            ],
        },
        by=scribe,
    )

    tokens["seat"] = seat_token(table, seated[3].number)
    users["seat"] = Token.objects.get(key=tokens["seat"]).user

    early = factories.StageFactory(
        tournament=this,
        order=2,
        name="Early bird",
        rounds=1,
        starting_double=12,
        table_size_min=3,
        status="seated",
    )
    # A tie for third at a stage of one table (its final) holds nothing up, but an official
    # may still decide it.
    (early_players,) = seat_tables(early, [["Fay", "Gus", "Hal", "Ivy"]], first_number=6)
    play(early, early_players, 1, [0, 5, 10, 10])
    playoff = factories.StageFactory(
        tournament=this, order=3, name="Playoff", kind="playoff", rounds=4, starting_double=12
    )
    eve = factories.PlayerFactory(tournament=this, number=5, name="Eve", household="Smith")
    wes = factories.PlayerFactory(tournament=this, number=10, name="Wes", status="withdrawn")
    # The other tournament has its own stage and players, so that its staff are realistic.
    other_stage = factories.StageFactory(tournament=other, order=1, status="seated")
    seat_tables(other_stage, [["Zed", "Yan", "Xia"]])
    for stage in (qualifying, early, other_stage):  # what the worker does after the commit
        standings.rebuild_standings(stage=stage)
    official_role = this.staff.get(user=users["official"])
    invitation = create_invitation(tournament=this, role="official", by=users["organiser"])
    division = Division.objects.create(tournament=this, name="60-69", age_min=60, age_max=69)
    club = factories.ClubTournamentFactory(tournament=this).club
    factories.ClubOrganiserFactory(club=club, user=users["organiser"])
    member = factories.MemberFactory(club=club, name="Ann", member_number="S-1")
    PlayerLink.objects.create(player=seated[0], member=member, how=PlayerLink.How.NUMBER)
    RatingPoint.objects.create(
        member=member, tournament=this, event_date=date(2026, 4, 1), stage_order=1, round_no=1,
        table_no=1, mu=26.0, sigma=7.9, rounds=1,
    )  # fmt: skip
    season = Season.objects.create(club=club, name="Spring", slug="spring-season")
    rally = create_rally(name="Spring Rally", slug=RALLY_SLUG, by=users["organiser"])
    add_event(rally=rally, tournament=this, starts_at=timezone.now(),
              ends_at=timezone.now() + timedelta(hours=3), by=users["organiser"])  # fmt: skip
    free = factories.TournamentFactory(name="Summer Social", slug="summer", domino_set=12)
    factories.StaffFactory(tournament=free, user=users["organiser"], role="organiser")
    return World(
        free=free,
        club=club,
        member=member,
        season=season,
        division=division,
        official_role=official_role,
        invitation=invitation,
        this=this,
        other=other,
        users=users,
        tokens=tokens,
        qualifying=qualifying,
        early=early,
        playoff=playoff,
        table=table,
        early_table=early.tables.get(),
        seated=seated,
        early_players=early_players,
        eve=eve,
        wes=wes,
        other_stage=other_stage,
        other_table=other_stage.tables.get(),
    )


@pytest.fixture(scope="module")
def module_transaction(django_db_setup, django_db_blocker) -> Iterator[None]:
    """A transaction around the module's cells, rolled back when they are done: a world built
    in it once is every cell's (`shared_world`). Each cell runs in a savepoint of it (the `db`
    fixture's atomic block, nested), so what one cell changes no other cell sees, as with a
    world built for each cell, at a fraction of the cost (the matrices' 600 cells built theirs
    in about a minute and a half of the suite's 2 cores)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


def built_once(django_db_blocker, build: Callable[[], Any]) -> Any:
    """`build()` in the module's transaction, with the suite's fast hasher (as a cell has)."""
    with django_db_blocker.unblock(), override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        return build()


@pytest.fixture(scope="module")
def shared_world(module_transaction, django_db_blocker) -> World:
    return built_once(django_db_blocker, build_world)


@pytest.fixture
def world(shared_world, db) -> World:
    """The world as built, for every cell: its changes are rolled back after it. The cache is
    not (cached standings and pages are keyed by ids, the same for every cell): this worker's
    keys are emptied, as if the world were new."""
    clear_cache()
    return shared_world


def client_as(world: World, role: str) -> APIClient:
    """A client that authenticates the way the tablets and scripts do: a token header."""
    client = APIClient(enforce_csrf_checks=True)
    if role != "anonymous":
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[role]}")
    return client


STATE_APPS = ("tournaments", "tables", "scoring", "clubs", "prizes", "auth", "authtoken")


def database_state(*more_apps: str) -> dict[str, Any]:
    """Every row of every model of the project, users and tokens: to prove nothing changed.
    On PostgreSQL one query returns each table as JSON (a cell compares two of these: 38 ORM
    queries each took 53 ms, three quarters of the matrix's time); elsewhere the ORM's."""
    models = [
        model
        for label in (*STATE_APPS, *more_apps)
        for model in apps.get_app_config(label).get_models()
    ]
    if connection.vendor != "postgresql":
        return {model._meta.label: list(model.objects.order_by("pk").values()) for model in models}
    quote = connection.ops.quote_name
    tables = " UNION ALL ".join(
        f"SELECT %s, (SELECT json_agg(t ORDER BY t.{quote(model._meta.pk.column)})::text"
        f" FROM {quote(model._meta.db_table)} t)"
        for model in models
    )
    with connection.cursor() as cursor:
        cursor.execute(tables, [model._meta.label for model in models])
        return dict(cursor.fetchall())


# ---- bodies: each valid for the world, so only the role decides ------------------------------


def csv_upload(name: str, text: str) -> dict:
    return {"file": SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/csv")}


def token_body(w: World) -> dict:
    return {"username": "phone", "password": PASSWORD}


def new_tournament_body(w: World) -> dict:
    return {"name": "Club Night", "slug": "club-night", "domino_set": 12, "preset": "samboree"}


def club_body(w: World) -> dict:
    return {"name": "Elks Dominoes", "slug": "elks"}


def season_body(w: World) -> dict:
    return {"name": "Summer", "rule": "points", "points": [10, 8, 6], "tournaments": [w.this.slug]}


def members_csv(w: World) -> dict:
    return csv_upload("members.csv", "name,member_number,email\nBea,S-2,bea@example.org\nCal,,\n")


def staff_body(w: World) -> dict:
    return {"username": "newcomer", "role": "official", "password": PASSWORD}


def player_body(w: World) -> dict:
    return {"number": 60, "name": "Zoe", "household": "Jones", "club": "Elks"}


def players_csv(w: World) -> dict:
    return csv_upload("players.csv", "number,name,household\n50,Walt,Jones\n51,Vera,\n")


def stage_body(w: World) -> dict:
    return {
        "name": "Second chance",
        "kind": "qualifying",
        "rounds": 4,
        "starting_double": 12,
        "table_size_min": 3,
        "table_size_max": 4,
    }


def day_of_play_body(w: World) -> dict:
    return {"starting_double": 11, "rounds": 3}


def stage_rename_body(w: World) -> dict:
    return {"name": "Grand final", "table_size_max": 5}


def seat_body(w: World) -> dict:
    return {"seed": 7}


def late_player_body(w: World) -> dict:
    # The world's one table is full (4, the stage's most): the organiser chooses a fifth seat.
    return {"player": w.eve.pk, "allow_over_max": True}


def tiebreak_body(w: World) -> dict:
    *_, hal, ivy = w.early_players
    return {"table": w.early_table.pk, "order": [ivy.pk, hal.pk], "method": "draw", "note": "coin"}


def scores_csv(w: World) -> dict:
    lines = [
        f"Qualifying,1,3,10,{p.number},{p.name},{pips},{'yes' if pips == 0 else 'no'},"
        for p, pips in zip(w.seated, (5, 0, 9, 14), strict=True)
    ]
    header = "stage,table,round,engine,number,name,pips,went_out,status"
    return csv_upload("scores.csv", "\n".join([header, *lines]) + "\n")


def round_body(w: World) -> dict:
    return {
        "blocked": False,
        "scores": [
            {"player": p.pk, "pips": pips, "went_out": pips == 0}
            for p, pips in zip(w.seated, (3, 0, 21, 8), strict=True)
        ],
    }
