"""The demo's club night whose players enter their own rounds (make run loads it beside the
others): fifteen members at three tables of five, no official at the tables. Rounds 1 and 2 were
entered on one player's phone and confirmed on another's at every table; round 3 waits for a
second player at table 1, is disputed at table 2 (an official settles it from the board), and
is not entered yet at table 3. Each table's code is on its card; a player types it with their
badge number."""

import random
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from scoring import services as scoring_services
from scoring.demo_events import enter_players, new_tournament
from scoring.models import RoundResultVersion
from scoring.services import disputes
from tables import reporting
from tables import services as table_services
from tables.models import Seat, Table
from tournaments import services as tournament_services
from tournaments.models import Player, Stage, Tournament

CLUB_NIGHT_SLUG = "thursday-club-night"
CLUB_NIGHT_PLAYERS = [
    "Agnes Whitfield", "Barney Cole", "Carmen Ibarra", "Dale Prentice", "Edna Lowry",
    "Frank Osei", "Gloria Benavides", "Harold Finch", "Inez Carvalho", "Jack Morrow",
    "Kay Delgado", "Leon Park", "Marjorie Quinn", "Ned Albright", "Opal Sutter",
]  # fmt: skip
DISPUTE_NOTE = "The third score should be 32, not 23: the sheet was read upside down."


def _phone(seat: Seat):
    """A seat's phone: the user its claim made, as the claim page makes it."""
    return reporting.claim_seat(seat)[0].user


def _round(table: Table, round_no: int, rng: random.Random) -> dict:
    players = list(table.seats.order_by("position").values_list("player_id", flat=True))
    winner = rng.choice(players)
    scores = [
        {"player": pid, "pips": 0 if pid == winner else rng.randint(4, 70), "went_out": False}
        for pid in players
    ]
    for score in scores:
        score["went_out"] = score["player"] == winner
    return {"blocked": False, "scores": scores}


def load_club_night(organiser, official) -> Tournament:
    """Create the club night once; later calls keep it (and what its players did since)."""
    existing = Tournament.objects.filter(slug=CLUB_NIGHT_SLUG).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        tournament = new_tournament(
            "Thursday Club Night",
            CLUB_NIGHT_SLUG,
            organiser,
            official,
            preset="rv_club",
            starts_on=timezone.localdate(),
            ends_on=timezone.localdate(),
            venue="Elks Lodge, back room",
            description="Members' night: the players enter their own rounds from their phones.",
        )
        enter_players(
            organiser,
            [
                Player(tournament=tournament, number=n, name=name, status=Player.Status.CHECKED_IN)
                for n, name in enumerate(CLUB_NIGHT_PLAYERS, start=1)
            ],
        )
        game = tournament_services.update_stage(
            stage=tournament.stages.order_by("order").first(),
            changes={"reporting": Stage.Reporting.PLAYERS, "table_size_min": 5},
        )
        table_services.seat_stage(stage=game, by=organiser, seed=4)
        _play(game, official, random.Random(4))
    return tournament


def _play(game: Stage, official, rng: random.Random) -> None:
    meta = scoring_services.RequestMeta(source="demo")
    for table in game.tables.order_by("number"):
        seats = list(table.seats.order_by("position"))
        enters, confirms = _phone(seats[0]), _phone(seats[1])
        for round_no in (1, 2, 3):
            if round_no == 3 and table.number == 3:
                break  # still playing it
            outcome = scoring_services.submit_round_result(
                table=table, round_no=round_no, data=_round(table, round_no, rng), by=enters,
                meta=meta,
            )  # fmt: skip
            if round_no < 3 or table.number == 2:
                scoring_services.confirm_round_result(result=outcome.result, by=confirms, meta=meta)
        if table.number == 2:  # a third player saw the sheet: it waits for an official
            disputes.dispute_round(
                table=table, round_no=3, by=_phone(seats[2]), note=DISPUTE_NOTE, meta=meta
            )
        if table.number == 1:  # entered a quarter of an hour ago, nobody confirmed it yet
            earlier = timezone.now() - timedelta(minutes=15)
            entered = table.round_results.filter(round_no=3)
            entered.update(updated_at=earlier)
            RoundResultVersion.objects.filter(result__in=entered).update(at=earlier)


def demo_seat_link(tournament: Tournament) -> tuple[str, int] | None:
    """Table 3's code and a badge number seated there, for make run to print: try the claim."""
    table = Table.objects.filter(stage__tournament=tournament, number=3).first()
    seat = table.seats.order_by("position").last() if table else None
    return (table.code, seat.player.number) if seat else None
