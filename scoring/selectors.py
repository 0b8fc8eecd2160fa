"""Reads of round results: a table's score sheet with running totals, and reporting progress."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.shortcuts import get_object_or_404
from django.utils import timezone

from scoring import rules, time_called
from scoring.models import RoundResult, RoundResultVersion, Score
from tables import reporting
from tables import selectors as tables_selectors
from tables.models import Seat, Table
from tournaments.models import Stage


@dataclass
class SheetRound:
    round_no: int
    engine: int
    result: RoundResult | None
    pips: dict[int, int | None] = field(default_factory=dict)  # player id -> pips
    went_out: int | None = None  # player id
    # A late entry's round before they sat down, as the stage's rule counts it (the standings'
    # rules.missed_round_scores): player id -> pips.
    missed: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SheetCell:
    pips: int | None
    went_out: bool
    missed: bool  # not played: a late entry's round before they sat down, counted by the rule


@dataclass
class Sheet:
    """A table's score sheet: engines down the side, players across, running totals. The totals
    count a late entry's missed rounds as the standings do, so that a table agrees the totals
    of this stage that the standings rank. (A total carried forward from an earlier stage is
    the standings' alone: the sheet is this stage's rounds.)"""

    table: Table
    seats: list[Seat]
    rounds: list[SheetRound]

    def totals_before(self, round_no: int) -> dict[int, int]:
        totals = {seat.player_id: 0 for seat in self.seats}
        for sheet_round in self.rounds:
            if sheet_round.round_no >= round_no:
                break
            for scores in (sheet_round.pips, sheet_round.missed):
                for player_id, pips in scores.items():
                    if pips is not None and player_id in totals:
                        totals[player_id] += pips
        return totals

    def grid(self) -> list[tuple[SheetRound, list[SheetCell]]]:
        """Each round with a cell per seat, in seat order, for the pages."""
        return [
            (
                r,
                [
                    SheetCell(pips, r.went_out == seat.player_id, False)
                    if (pips := r.pips.get(seat.player_id)) is not None
                    else SheetCell(r.missed.get(seat.player_id), False, seat.player_id in r.missed)
                    for seat in self.seats
                ],
            )
            for r in self.rounds
        ]

    def by_player(self) -> list[tuple[Seat, int, list[tuple[SheetRound, SheetCell]]]]:
        """The same sheet turned round, for a phone: each seat with its total and its rounds
        (a page narrower than a row of every player reads one player at a time)."""
        grid, totals = self.grid(), self.totals()
        return [
            (seat, totals[seat.player_id], [(r, cells[index]) for r, cells in grid])
            for index, seat in enumerate(self.seats)
        ]

    def has_missed(self) -> bool:
        return any(r.missed for r in self.rounds)

    def totals(self) -> dict[int, int]:
        return self.totals_before(len(self.rounds) + 1)

    def round(self, round_no: int) -> SheetRound:
        return self.rounds[round_no - 1]


def sheet_table(slug: str, order: int, number: int) -> Table:
    """The table a public score sheet shows (404 when there is none), with its stage and
    tournament, and what the sheet's version needs, in one query: `latest`, when a result of the
    table last changed (None before any); `every_page_seq`, the stage's last change that was
    not a result (StageStandings.every_page_seq: a late player, a name corrected, a tie-break
    decision, time called; None before any); and whether the tournament's last stage places
    everyone by total (its Tournament.placed_by_total, set)."""
    latest = RoundResult.objects.filter(table=OuterRef("pk")).order_by("-updated_at")
    stages = Stage.objects.filter(tournament_id=OuterRef("stage__tournament_id"))
    table = get_object_or_404(
        Table.objects.select_related("stage__tournament").annotate(
            latest=Subquery(latest.values("updated_at")[:1]),
            every_page_seq=F("stage__standings__every_page_seq"),
            placed=Subquery(stages.last_decides_placings()),
        ),
        stage__tournament__slug=slug,
        stage__order=order,
        number=number,
    )
    table.stage.tournament.placed_by_total = bool(table.placed)
    return table


def table_sheet(table: Table, *, confirmed_only: bool = False) -> Sheet:
    """Every round of the table with its scores, in three queries; the public sheet shows
    confirmed rounds only."""
    stage = table.stage
    seats = list(Seat.objects.filter(table=table).select_related("player").order_by("position"))
    # order_by(): in a dict, by round; the models' default orderings would join five tables.
    results_of = RoundResult.objects.filter(table=table).order_by()
    scores_of = Score.objects.filter(result__table=table).order_by()
    if confirmed_only:
        results_of = results_of.filter(status=RoundResult.Status.CONFIRMED)
        scores_of = scores_of.filter(result__status=RoundResult.Status.CONFIRMED)
    results = {r.round_no: r for r in results_of}
    scores = scores_of.values_list("result__round_no", "player_id", "pips", "went_out")
    rounds = [
        SheetRound(round_no=n, engine=stage.engine(n), result=results.get(n))
        for n in range(1, stage.rounds + 1)
    ]
    for round_no, player_id, pips, went_out in scores:
        if 1 <= round_no <= stage.rounds:
            rounds[round_no - 1].pips[player_id] = pips
            if went_out:
                rounds[round_no - 1].went_out = player_id
    if late := [seat for seat in seats if seat.from_round > 1]:
        table_rounds = {r.round_no: r.pips for r in rounds}
        first = min(seat.from_round for seat in seats)
        if first > 1:  # a table opened for late players: a usual table's high before it
            table_rounds.update(_typical_highs(table, first))
        for seat in late:
            missed = rules.missed_round_scores(
                table_rounds=table_rounds, from_round=seat.from_round, rule=stage.late_entry_rule
            )
            for round_no, pips in missed.items():
                rounds[round_no - 1].missed[seat.player_id] = pips
    return Sheet(table=table, seats=seats, rounds=rounds)


def _typical_highs(table: Table, first: int) -> dict[int, dict[int, int]]:
    """round_no -> {0: the typical table high} of the confirmed rounds before `first` at the
    stage's other tables, as the standings fill a late-opened table's missed rounds
    (scoring.standings.records)."""
    highs: dict[int, dict[int, int]] = {}
    confirmed = (
        Score.objects.filter(
            result__stage_id=table.stage_id,
            result__status=RoundResult.Status.CONFIRMED,
            result__round_no__lt=first,
        )
        .exclude(result__table=table)
        .order_by()
        .values_list("result__round_no", "result__table_id", "pips")
    )
    for round_no, table_id, pips in confirmed:
        at = highs.setdefault(round_no, {})
        at[table_id] = max(at.get(table_id, pips), pips)
    return {n: {0: rules.typical_table_high(at.values())} for n, at in highs.items()}


def played_stages(stages: QuerySet[Stage]) -> QuerySet[Stage]:
    """These stages that are seated or closed, the latest first."""
    return stages.exclude(status=Stage.Status.PENDING).order_by("-order")


def current_stage(stages: QuerySet[Stage]) -> Stage | None:
    """The latest of these stages that is seated or closed: what the hall is playing or just
    played. Pass a tournament's stages, or a queryset that selects what the caller needs too."""
    return played_stages(stages).first()


@dataclass
class ToSettle:
    """A round for an official to settle (the officials' board): disputed, by whom and why;
    or entered by a seat and not confirmed for longer than the stage allows, and for how long."""

    table: Table
    round_no: int
    disputed: bool
    by: str  # who disputed it, or who entered it
    note: str = ""
    minutes: int = 0  # how long it has waited, for one not confirmed


def rounds_to_settle(stage: Stage, now: datetime | None = None) -> list[ToSettle]:
    """The stage's disputed rounds, then those its players entered and nobody confirmed for
    longer than stage.confirm_within_minutes (a players' stage only), each in table and round
    order: in three queries however many there are."""
    now = now or timezone.now()
    late = now - timedelta(minutes=stage.confirm_within_minutes)
    waiting = Q(status=RoundResult.Status.DISPUTED)
    if stage.reporting == Stage.Reporting.PLAYERS:
        waiting |= Q(
            status=RoundResult.Status.SUBMITTED,
            updated_at__lte=late,
            submitted_by__seat_claim__isnull=False,
        )
    results = list(
        RoundResult.objects.filter(waiting, stage=stage)
        .select_related("table", "submitted_by")
        .order_by("table__number", "round_no")
    )
    disputes = {}  # result id -> its latest dispute (who, why)
    disputed = [r.pk for r in results if r.status == RoundResult.Status.DISPUTED]
    for version in (
        RoundResultVersion.objects.filter(
            result_id__in=disputed, action=RoundResultVersion.Action.DISPUTED
        )
        .select_related("by")
        .order_by("result_id", "version")
    ):
        disputes[version.result_id] = version
    seats = reporting.seats_of(
        [r.submitted_by_id for r in results] + [v.by_id for v in disputes.values()]
    )

    def named(user) -> str:
        seat = seats.get(user.pk)
        return reporting.seat_named(seat) if seat is not None else user.get_username()

    found = []
    for result in results:
        if result.status == RoundResult.Status.DISPUTED:
            version = disputes.get(result.pk)
            by = named(version.by) if version is not None else ""
            note = version.reason if version is not None else ""
            found.append(ToSettle(result.table, result.round_no, True, by, note))
        else:
            minutes = int((now - result.updated_at).total_seconds() // 60)
            by = named(result.submitted_by)
            found.append(ToSettle(result.table, result.round_no, False, by, minutes=minutes))
    return sorted(found, key=lambda item: not item.disputed)  # stable: table order kept


def round_statuses(stage: Stage) -> dict[int, dict[int, str]]:
    """table id -> round_no -> "missing", "submitted", "confirmed", "not_played" after its
    table's last round once time was called, or "before_table" before the first round of a
    table opened for late players."""
    last = time_called.last_rounds(stage) or {}
    firsts = tables_selectors.first_rounds(stage)
    statuses = {
        table_id: {
            n: "missing" if n <= last.get(number, stage.rounds) else "not_played"
            for n in range(1, stage.rounds + 1)
        }
        for table_id, number in stage.tables.values_list("pk", "number")
    }
    for table_id, first in firsts.items():  # a table opened for late players: none before
        for n in range(1, first):
            statuses.setdefault(table_id, {})[n] = "before_table"
    for table_id, round_no, status in RoundResult.objects.filter(stage=stage).values_list(
        "table_id", "round_no", "status"
    ):
        if table_id in statuses and round_no in statuses[table_id]:
            statuses[table_id][round_no] = status
    return statuses


@dataclass
class BracketSeat:
    position: int
    player_id: int
    number: int
    name: str
    from_table: int | None
    total: int | None
    table_rank: int | None
    advances: bool
    awaiting: bool = False  # in a tie only the officials can break


@dataclass
class BracketTable:
    number: int
    seats: list[BracketSeat]


@dataclass
class BracketLevel:
    stage: Stage
    source_name: str | None
    tables: list[BracketTable]
    is_final: bool
    # The rounds the ranking counts (like with like: those every table has confirmed); before
    # the first, nobody has a place yet.
    through: int = 0
    counted: int = 0  # results confirmed and expected: once time is called, decided when equal
    expected: int = 0

    @property
    def marked(self) -> bool:
        """Someone is marked as advancing (the legend says what the mark means)."""
        return any(seat.advances for table in self.tables for seat in table.seats)

    @property
    def decided(self) -> bool:
        """Every round counted: "advances", not "would advance"."""
        return time_called.decided(
            self.stage, self.through, counted=self.counted, expected=self.expected
        )

    @property
    def called(self) -> dict | None:
        """Time called at this level: the rounds the ranking counts and each table's last."""
        return time_called.time_called_summary(self.stage)


def bracket_for(tournament) -> list[BracketLevel]:
    """Every playoff level with its tables, who came from which table, and their results."""
    from scoring.models import StandingRow  # beside the selectors of results

    levels = list(
        tournament.stages.filter(kind=Stage.Kind.PLAYOFF)
        .exclude(status=Stage.Status.PENDING)
        .select_related("source_stage", "standings")
        .order_by("order")
    )
    awaiting = {
        (stage.pk, player)
        for stage in levels
        for flag in getattr(getattr(stage, "standings", None), "flags", None) or ()
        for player in flag["players"]
    }
    rows = {
        (r.stage_id, r.player_id): r
        for r in StandingRow.objects.filter(stage__in=levels).only(
            "stage_id", "player_id", "total", "table_rank", "advances"
        )
    }
    seats = (
        Seat.objects.filter(stage__in=levels)
        .select_related("player", "table")
        .order_by("stage__order", "table__number", "position")
    )
    tables: dict[tuple[int, int], BracketTable] = {}
    for seat in seats:
        row = rows.get((seat.stage_id, seat.player_id))
        table = tables.setdefault(
            (seat.stage_id, seat.table.number), BracketTable(seat.table.number, [])
        )
        table.seats.append(
            BracketSeat(
                position=seat.position,
                player_id=seat.player_id,
                number=seat.player.number,
                name=seat.player.name,
                from_table=seat.from_table,
                total=row.total if row else None,
                table_rank=row.table_rank if row else None,
                advances=bool(row and row.advances),
                awaiting=(seat.stage_id, seat.player_id) in awaiting,
            )
        )
    for table in tables.values():  # best placed first once results are in, then by seat
        table.seats.sort(key=lambda s: (s.table_rank is None, s.table_rank or 0, s.position))
    result = []
    for stage in levels:
        stage_tables = [t for (stage_id, _), t in sorted(tables.items()) if stage_id == stage.pk]
        source = stage.source_stage.display_name if stage.source_stage else None
        meta = getattr(stage, "standings", None)
        through = meta.ranked_through if meta else 0
        result.append(
            BracketLevel(
                stage,
                source,
                stage_tables,
                len(stage_tables) == 1,
                through=through,
                counted=meta.results_counted if meta else 0,
                expected=meta.results_expected if meta else 0,
            )
        )
    return result


def flags_of(warnings: list[dict], names: dict[int, str]) -> list[str]:
    """A result's stored warnings said in the reader's language: checked by the official, or
    not checked (entered by the API or a CSV upload without checking)."""
    return [
        rules.flag_message(names.get(w["player"], str(w["player"])), rules.PipsWarning.from_dict(w))
        for w in warnings
    ]


def unusual_results(stage: Stage) -> list[dict]:
    """The stage's results with unusual scores, by table and round: what the console and the
    progress board show, each with its flags."""
    results = list(
        RoundResult.objects.filter(stage=stage)
        .exclude(warnings=[])
        .select_related("table")
        .order_by("table__number", "round_no")
    )
    players = {w["player"] for r in results for w in r.warnings}
    names = dict(stage.tournament.players.filter(pk__in=players).values_list("pk", "name"))
    return [
        {
            "table": result.table,
            "round_no": result.round_no,
            "flags": flags_of(result.warnings, names),
            "checked": all(w.get("checked") for w in result.warnings),
        }
        for result in results
    ]
