"""Reads of tables and seats."""

from collections.abc import Iterable

from django.db.models import Max, Min, Prefetch, QuerySet
from django.utils.translation import gettext as _

from tables.models import Seat, Table
from tournaments.models import Player, Stage


def tables_with_seats(stage: Stage) -> QuerySet[Table]:
    """The stage's tables in order, each with its seats and their players in two more queries."""
    seats = Seat.objects.select_related("player").order_by("position")
    return stage.tables.order_by("number").prefetch_related(Prefetch("seats", queryset=seats))


def first_rounds(stage: Stage) -> dict[int, int]:
    """table id -> its first round, for the stage's tables opened for late players after round
    1 (services.add_late_table): the earliest round one of its seats plays. A table seated with
    the stage has a seat from round 1 and is not in it."""
    firsts = (
        stage.tables.order_by()
        .annotate(first=Min("seats__from_round"))
        .filter(first__gt=1)
        .values_list("pk", "first")
    )
    return dict(firsts)


def late_entry_sizes(stage: Stage) -> dict[int, int]:
    """The players still playing at each table of the stage that a late player could join, by
    table number (a seat given up by a withdrawal is free again); a table that has reported every
    round has none left to play, and is not in it."""
    played = dict(
        stage.round_results.order_by()
        .values("table__number")
        .annotate(top=Max("round_no"))
        .values_list("table__number", "top")
    )
    numbers = stage.tables.values_list("number", flat=True)
    sizes = {number: 0 for number in numbers if played.get(number, 0) < stage.rounds}
    playing = Seat.objects.filter(stage=stage, to_round__isnull=True)
    for number in playing.values_list("table__number", flat=True):
        if number in sizes:
            sizes[number] += 1
    return sizes


def every_table_full(stage: Stage) -> bool:
    """Whether no table a late player could join has a seat below the stage's largest size
    (the organiser then chooses: above the maximum, or not at all)."""
    sizes = late_entry_sizes(stage)
    return bool(sizes) and all(size >= stage.table_size_max for size in sizes.values())


def over_max_note(stage: Stage, seats: Iterable[Seat]) -> str:
    """What a table seated above its stage's largest size says on the stage's page, its card
    and its score sheet ("5 players: above this stage's 4."); "" for a table within it."""
    playing = sum(1 for seat in seats if seat.to_round is None)
    if playing <= stage.table_size_max:
        return ""
    return _("%(players)s players: above this stage's %(max)s.") % {
        "players": playing,
        "max": stage.table_size_max,
    }


def who_moved(stage: Stage) -> list[str]:
    """Who sits elsewhere than before the stage before was reopened (the seating report's
    moves, scoring.services.reopen), said in the reader's language."""
    moves = stage.seating_report.get("moved", []) if stage.seating_report else []
    names = Player.objects.in_bulk([move["player"] for move in moves])
    said = []
    for move in moves:
        player = names.get(move["player"])
        if player is None:
            continue
        values = {
            "player": f"#{player.number} {player.name}",
            "was": move["was"],
            "now": move["now"],
        }
        if move["was"] is None:
            text = _("%(player)s: now at table %(now)s (was not seated)")
        elif move["now"] is None:
            text = _("%(player)s: no longer seated (was at table %(was)s)")
        else:
            text = _("%(player)s: now at table %(now)s (was at table %(was)s)")
        said.append(text % values)
    return said


def seats_by_player(stage: Stage) -> dict[int, tuple[int, int]]:
    """player id -> (table number, seat) of each player seated in the stage, in one query: the
    wall chart's "find your table"."""
    seats = Seat.objects.filter(stage=stage).order_by()
    return {
        player: (table, position)
        for player, table, position in seats.values_list("player_id", "table__number", "position")
    }
