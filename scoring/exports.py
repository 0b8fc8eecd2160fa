"""CSV exports that open right in a spreadsheet: UTF-8 with a byte-order mark, RFC 4180 quoting,
and cells that a spreadsheet would run as a formula neutralised."""

import csv
from collections.abc import Iterable, Iterator
from datetime import datetime

from django.utils import timezone, translation

from scoring.models import Placing, RoundResult, Score, StandingRow
from scoring.standings import separation_text
from tables.models import Seat
from tournaments.csvfiles import neutralise
from tournaments.models import Tournament

BOM = "\ufeff"


class _Line:
    """A file-like object that hands back what the csv writer writes."""

    def write(self, value: str) -> str:
        return value


def csv_lines(header: Iterable[str], rows: Iterable[Iterable[object]]) -> Iterator[str]:
    """The whole file, a line at a time, starting with the byte-order mark."""
    writer = csv.writer(_Line(), quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    yield BOM + writer.writerow(list(header))
    for row in rows:
        yield writer.writerow([neutralise(value) for value in row])


PLAYERS_HEADER = ("number", "name", "household", "club", "status")
SEATING_HEADER = ("stage", "table", "seat", "number", "name")


def players_rows(tournament: Tournament) -> Iterator[tuple]:
    players = tournament.players.order_by("number")
    yield from players.values_list("number", "name", "household", "club", "status").iterator()


def stage_names(tournament: Tournament) -> dict[int, str]:
    """Each stage's name in the files, in English like every value of the file: a name the
    product gave read in English (Stage.display_name), a typed one as typed. The scores import
    takes a stage by any name it is read as."""
    with translation.override("en"):
        return {stage.pk: stage.display_name for stage in tournament.stages.all()}


def seating_rows(tournament: Tournament) -> Iterator[tuple]:
    stages = stage_names(tournament)
    seats = (
        Seat.objects.filter(stage__tournament=tournament)
        .order_by("stage__order", "table__number", "position")
        .values_list("stage_id", "table__number", "position", "player__number", "player__name")
    )
    for stage_id, *rest in seats.iterator():
        yield (stages[stage_id], *rest)


SCORES_HEADER = (
    "stage",
    "table",
    "round",
    "engine",
    "number",
    "name",
    "pips",
    "went_out",
    "status",
    "confirmed_at",  # added: ISO 8601 in the tournament's zone, with its offset; empty until then
)


def _local(moment: datetime | None, tournament: Tournament) -> str:
    """A time as the exports write it: in the tournament's zone, with its offset. (Said
    explicitly: a file streams after the request's zone is gone.)"""
    if moment is None:
        return ""
    return timezone.localtime(moment, tournament.zone).isoformat(timespec="seconds")


def scores_rows(tournament: Tournament) -> Iterator[tuple]:
    stages = stage_names(tournament)
    scores = (
        Score.objects.filter(result__stage__tournament=tournament)
        .order_by(
            "result__stage__order", "result__table__number", "result__round_no", "player__number"
        )
        .values_list(
            "result__stage_id",
            "result__table__number",
            "result__round_no",
            "result__engine",
            "player__number",
            "player__name",
            "pips",
            "went_out",
            "result__status",
            "result__updated_at",
        )
    )
    for row in scores.iterator():
        # A confirmed result is changed only by a correction, which makes it submitted again:
        # its last change is its confirmation.
        confirmed = _local(row[9], tournament) if row[8] == RoundResult.Status.CONFIRMED else ""
        yield (stages[row[0]], *row[1:7], _yes(row[7]), row[8], confirmed)


STANDINGS_HEADER = (
    "stage",
    "rank",
    "number",
    "name",
    "table",
    "table_rank",
    "total",
    "rounds_won",
    "rounds_played",
    "advances",
    "tie_break",
)


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def standings_rows(tournament: Tournament) -> Iterator[tuple]:
    stages = stage_names(tournament)
    rows = (
        StandingRow.objects.filter(stage__tournament=tournament)
        .order_by("stage__order", "rank", "player__number")
        .values_list(
            "stage_id",
            "rank",
            "player__number",
            "player__name",
            "table_number",
            "table_rank",
            "total",
            "rounds_won",
            "rounds_played",
            "advances",
            "tiebreaks",
        )
    )
    names = dict(tournament.players.values_list("pk", "name"))
    for row in rows.iterator():
        yield (stages[row[0]], *row[1:9], _yes(row[9]), _tiebreak_text(row[10], names))


def _tiebreak_text(separations: list[dict], names: dict[int, str]) -> str:
    """How tie-breaks placed the player (scoring.standings.text), in English like every value of
    the file: "ahead of Bo Li on rounds won, 2-1"; several joined by "; "."""
    if not separations:
        return ""
    with translation.override("en"):
        return "; ".join(separation_text(separation, names) for separation in separations)


BRACKET_HEADER = (
    "stage",
    "kind",
    "table",
    "seat",
    "number",
    "name",
    "total",
    "table_rank",
    "advances",
    "place",
)


def bracket_rows(tournament: Tournament) -> Iterator[tuple]:
    """One row per seat in every stage, with the standings and, once decided, the place."""
    standing = {
        (stage_id, player_id): (total, table_rank, advances)
        for stage_id, player_id, total, table_rank, advances in StandingRow.objects.filter(
            stage__tournament=tournament
        ).values_list("stage_id", "player_id", "total", "table_rank", "advances")
    }
    places = dict(Placing.objects.filter(tournament=tournament).values_list("player_id", "place"))
    seats = (
        Seat.objects.filter(stage__tournament=tournament)
        .order_by("stage__order", "table__number", "position")
        .values_list(
            "stage_id",
            "stage__kind",
            "table__number",
            "position",
            "player_id",
            "player__number",
            "player__name",
        )
    )
    stages = stage_names(tournament)
    for stage_id, kind, table, seat, player_id, number, name in seats.iterator():
        total, table_rank, advances = standing.get((stage_id, player_id), ("", "", None))
        yield (
            stages[stage_id],
            kind,
            table,
            seat,
            number,
            name,
            total,
            table_rank,
            "" if advances is None else _yes(advances),
            places.get(player_id, ""),
        )


PLACINGS_HEADER = (
    "place",
    "number",
    "name",
    "division",
    "division_place",
    "medal",
    "went_out_in",
    "total",
)


def placings_rows(tournament: Tournament) -> Iterator[tuple]:
    """Everyone's final place once decided (no rows before), with their division, their place
    in it and its medal (gold, silver, bronze), the stage they went out in and their total
    there."""
    totals = dict(
        ((stage_id, player_id), total)
        for stage_id, player_id, total in StandingRow.objects.filter(
            stage__tournament=tournament
        ).values_list("stage_id", "player_id", "total")
    )
    stages = stage_names(tournament)
    placings = (
        Placing.objects.filter(tournament=tournament)
        .select_related("player", "division")
        .order_by("place", "player__number")
    )
    for p in placings:
        yield (
            p.place,
            p.player.number,
            p.player.name,
            p.division.name if p.division else "",
            p.division_place,
            p.medal or "",
            stages[p.stage_id],
            totals.get((p.stage_id, p.player_id), ""),
        )


EXPORTS = {
    "players": (PLAYERS_HEADER, players_rows),
    "seating": (SEATING_HEADER, seating_rows),
    "scores": (SCORES_HEADER, scores_rows),
    "standings": (STANDINGS_HEADER, standings_rows),
    "bracket": (BRACKET_HEADER, bracket_rows),
    "placings": (PLACINGS_HEADER, placings_rows),
}
