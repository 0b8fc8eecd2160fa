"""The demo's club: a roster of members with member numbers, and an autumn season of six
Wednesday club nights played to the end by a changing dozen or so of them, each night's players
linked to the members by number. Its ladder and its ratings are built as they are in use: by the
workers that the placings and the confirmed rounds set off (inline under `make run`)."""

import random
from datetime import date, timedelta

from django.db import transaction

from clubs import locks as club_locks
from clubs import services as club_services
from clubs.models import Club, ClubTournament, Member, PlayerLink, Season
from scoring.demo_events import enter_players, new_tournament, play_to_the_end
from tables import services as table_services
from tournaments.models import Player

CLUB_SLUG = "pine-valley"
SEASON_SLUG = "autumn-2026"
NIGHTS = 6
FIRST_NIGHT = date(2026, 10, 7)  # a Wednesday; the others follow a week apart
POINTS = [10, 8, 6, 5, 4, 3, 2, 1]
# (name, household): couples share a household, kept apart at the tables.
MEMBERS: list[tuple[str, str]] = [
    ("Adelaide Brooks", ""),
    ("Bertram Oyelaran", ""),
    ("Carmen Villaseñor", "Villaseñor"),
    ("Domingo Villaseñor", "Villaseñor"),
    ("Eleanor Pruitt", ""),
    ("Franklin Dobbs", ""),
    ("Geraldine Kowalski", ""),
    ("Harold Nakashima", "Nakashima"),
    ("Ingrid Nakashima", "Nakashima"),
    ("Jerome Whitfield", ""),
    ("Katherine Ødegaard", ""),
    ("Leonard Fitzpatrick", ""),
    ("Maribel Echevarría", ""),
    ("Norman Castellanos", ""),
    ("Olive Thibodeaux", ""),
    ("Percival Grant", ""),
    ("Rosalind Achebe", ""),
    ("Sylvester Moody", ""),
]


def load_club_demo(organiser, official) -> Club:
    """Create the demo club once; later calls keep it."""
    existing = Club.objects.filter(slug=CLUB_SLUG).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        club = club_services.start_club(name="Pine Valley Train Club", slug=CLUB_SLUG, by=organiser)
        members = [
            club_services.add_member(
                club=club, name=name, member_number=f"PV-{101 + i}", household=household
            )
            for i, (name, household) in enumerate(MEMBERS)
        ]
        season = Season.objects.create(
            club=club,
            name="Autumn 2026",
            slug=SEASON_SLUG,
            rule=Season.Rule.POINTS,
            points_table=POINTS,
        )
    rng = random.Random(2026)
    for night in range(NIGHTS):
        _club_night(club, season, night, rng.sample(members, rng.randint(12, 16)), organiser,
                    official, rng)  # fmt: skip
    return club


def _club_night(club, season, night, members: list[Member], organiser, official, rng) -> None:
    """One Wednesday: the members who came, seated at random (the first night) or balanced by
    their ratings (the later ones, whose playoff is seeded by rating), played to the placings."""
    day = FIRST_NIGHT + timedelta(weeks=night)
    with transaction.atomic():
        tournament = new_tournament(
            f"Pine Valley club night {night + 1}",
            f"{CLUB_SLUG}-night-{night + 1}",
            organiser,
            official,
            starts_on=day,
            ends_on=day,
            venue="Pine Valley Community Hall",
            description="Four rounds from double-12, then the table winners' final.",
            time_zone="America/Denver",
        )
        club_services.add_tournament(club=club, tournament=tournament, by=organiser)
        ClubTournament.objects.filter(tournament=tournament).update(season=season)
        players = [
            Player(
                tournament=tournament,
                number=number,
                name=member.name,
                household=member.household,
                status=Player.Status.CHECKED_IN,
            )
            for number, member in enumerate(members, start=1)
        ]
        enter_players(organiser, players)
        club_locks.lock_members(member.pk for member in members)  # by id: clubs/locks.py
        for player, member in zip(tournament.players.order_by("number"), members, strict=True):
            club_services.link(player=player, member=member, by=organiser,
                               how=PlayerLink.How.NUMBER)  # fmt: skip
        qualifying, playoff = tournament.stages.order_by("order")
        if night:  # from the second night on, the club's ratings balance the tables and seed
            table_services.set_rating_options(stage=qualifying, balance_by_rating=True,
                                              seed_by_rating=False)  # fmt: skip
            table_services.set_rating_options(stage=playoff, balance_by_rating=False,
                                              seed_by_rating=True)  # fmt: skip
        table_services.seat_stage(stage=qualifying, by=organiser, seed=day.toordinal())
    play_to_the_end(tournament, organiser, official, rng)
