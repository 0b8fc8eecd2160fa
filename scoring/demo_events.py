"""The demo's finished senior games (scoring.demo loads it), and the helpers every demo event is
entered and played with: players with their history, random rounds through the services."""

import random
from datetime import date, timedelta

from django.db import transaction
from django.db.models import F
from simple_history.utils import bulk_create_with_history

from scoring import services as scoring_services
from scoring import standings
from scoring.services import clock, closing
from tables import services as table_services
from tournaments import services as tournament_services
from tournaments.models import Player, PlayerChange, Staff, StageClock, Tournament
from tournaments.services import staff as tournament_staff

SILVER_SLUG = "silver-games"
SILVER_LIMIT_MINUTES = 60
# (name, household, division): the county's 50-59 category drew no entries and is removed.
SILVER_PLAYERS: list[tuple[str, str, str]] = [
    ("Alma Sorensen", "Sorensen", "60-69"),
    ("Curtis Sorensen", "Sorensen", "60-69"),
    ("Bernadette Quinn", "", "60-69"),
    ("Ignacio Fuentes", "", "60-69"),
    ("Patsy Holloway", "", "60-69"),
    ("Lowell Petersen", "", "60-69"),
    ("Marisol Arce", "", "60-69"),
    ("Wendell Haynes", "Haynes", "70-79"),
    ("Opal Haynes", "Haynes", "70-79"),
    ("Teodoro Villalobos", "", "70-79"),
    ("Mildred Okafor", "", "70-79"),
    ("Stanley Brzezinski", "", "70-79"),
    ("Loretta Beaumont", "", "70-79"),
    ("Herschel Abernathy", "", "70-79"),
    ("Nobuko Tanaka", "", "70-79"),
    ("Clement Fairweather", "", "80+"),
    ("Hazel Lindgren", "", "80+"),
    ("Eulalia Montoya", "", "80+"),
    ("Virgil Pennington", "", "80+"),
    ("Beatrix Holm", "", "80+"),
    ("Rufus Ashworth", "", "80+"),
]


def enter_players(organiser, players: list[Player]) -> None:
    """The players, each with the first entry of its history, as the console's Add writes."""
    bulk_create_with_history(
        players, Player, default_user=organiser, default_change_reason=PlayerChange.ADDED
    )


def new_tournament(
    name: str, slug: str, organiser, official, *, preset: str = "samboree", **details
) -> Tournament:
    """A demo tournament from a preset's stages on double-12, with the demo's official."""
    tournament = tournament_services.create_tournament(
        name=name,
        slug=slug,
        domino_set=12,
        preset=preset,
        by=organiser,
        with_stages=True,
        **details,
    )
    tournament_staff.give_role(
        tournament=tournament, user=official, role=Staff.Role.OFFICIAL, by=organiser
    )
    return tournament


def play(stage, official, rng: random.Random, *, rounds=None, confirm=None, after=None) -> None:
    """Enter random rounds through the services: one player goes out, the rest hold pips.
    By default every round of every table, confirmed; `rounds(table)` is a table's last round to
    enter, `after(table)` the rounds it played already."""
    meta = scoring_services.RequestMeta(source="demo")
    for table in stage.tables.order_by("number"):
        players = list(table.seats.order_by("position").values_list("player_id", flat=True))
        first = after(table) + 1 if after else 1
        for round_no in range(first, (rounds(table) if rounds else stage.rounds) + 1):
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
            if confirm is None or confirm(table, round_no):
                scoring_services.confirm_round_result(result=outcome.result, by=official, meta=meta)


def play_to_the_end(tournament: Tournament, organiser, official, rng: random.Random) -> None:
    """Play a seated tournament's stages in order, each closed as it ends (a tie for a table's
    win drawn by lot) and the next one seated, until the placings are decided."""
    for stage in tournament.stages.order_by("order"):
        stage.refresh_from_db()
        play(stage, official, rng)
        try:
            closing.close_stage(stage=stage, by=organiser)
        except closing.CloseRefused as refused:  # a tie for a table's win: drawn by lot
            for flag in refused.problems:
                table = stage.tables.get(number=flag["table"])
                scoring_services.record_tiebreak(
                    stage=stage,
                    table_id=table.pk,
                    order=flag["players"],
                    method="draw",
                    note="Drawn by lot",
                    by=official,
                )
            closing.close_stage(stage=stage, by=organiser)
        # What a worker does after the close, done here too: with real workers (make stack) it
        # runs in the background, and the next stage would not be seated yet. Run twice, it
        # seats once. A worker rebuilding the stage's standings at that moment holds its
        # rebuild lock (RebuildBusy for a rebuild here): waited for first, as a close does.
        with transaction.atomic():
            standings.wait_for_rebuild(stage.pk)
            closing.advance_from_stage(stage=stage)


def load_silver_games(organiser, official) -> None:
    """A county Silver Games played to the end, once: one game of an hour in three age
    divisions. Its hour ran out at round 7 at tables 4-6 and round 8 at tables 1-3 (the round
    in play at each, finished); the lowest totals of each division win gold, silver, bronze."""
    if Tournament.objects.filter(slug=SILVER_SLUG).exists():
        return
    with transaction.atomic():
        tournament = new_tournament(
            "Silver Games 2026",
            SILVER_SLUG,
            organiser,
            official,
            preset="senior_games",
            starts_on=date(2026, 10, 17),
            ends_on=date(2026, 10, 17),
            venue="Pine County Senior Center",
            description="Mexican Train in age divisions: one game of an hour from double-12.",
            time_zone="America/Denver",
        )
        divisions = {d.name: d for d in tournament.divisions.all()}
        for name in set(divisions) - {division for *_, division in SILVER_PLAYERS}:
            tournament_services.remove_division(division=divisions.pop(name))
        enter_players(
            organiser,
            [
                Player(
                    tournament=tournament,
                    number=number,
                    name=name,
                    household=household,
                    division=divisions[division],
                    status=Player.Status.CHECKED_IN,
                )
                for number, (name, household, division) in enumerate(SILVER_PLAYERS, start=1)
            ],
        )
        game = tournament_services.update_stage(
            stage=tournament.stages.get(),
            changes={"time_limit_minutes": SILVER_LIMIT_MINUTES},
        )
        table_services.seat_stage(stage=game, by=organiser, seed=1017)
        clock.start_clock(game, by=organiser)
        rng = random.Random(1017)
        play(game, official, rng, rounds=lambda table: 7 if table.number <= 3 else 6)
        # The hour ran out (the demo's clock is set back by it): the round in play at each
        # table is its last, 8 at tables 1-3 and 7 at the others.
        StageClock.objects.filter(stage=game).update(
            running_since=F("running_since") - timedelta(minutes=SILVER_LIMIT_MINUTES)
        )
        clock.call_time(game, by=organiser)
        play(
            game,
            official,
            rng,
            rounds=lambda table: 8 if table.number <= 3 else 7,
            after=lambda table: 7 if table.number <= 3 else 6,
        )
        closing.close_stage(stage=game, by=organiser)
