"""Building the ranking: the stage's players ranked, who advances, and the ties that decide it."""

from collections import Counter
from typing import Any

from scoring import rules
from scoring.standings.records import SeatFacts
from tournaments.choices import Follows
from tournaments.models import Stage


def advancers(
    stage: Stage,
    ranked: list[rules.Ranked],
    seats: dict[int, SeatFacts],
    finished: set[int | None],
) -> tuple[set[int], list[dict[str, Any]]]:
    """Who advances (rules.advancement) and the unresolved ties that decide it, as the
    snapshot's flags.

    A stage that sends nobody on has no advancers: the final (one table), whose ties for first
    and second place are flagged because they decide the winners (rules.final_ties), and a
    qualifying stage that another qualifying stage follows (everyone plays that one), where no
    tie decides anything, and a stage that places everyone by total across its tables."""
    tables = {seat.table_number for seat in seats.values()}
    follows = Stage.objects.what_follows(stage, tables=len(tables))
    if follows == Follows.QUALIFYING:
        return set(), []
    active = {player_id for player_id, seat in seats.items() if not seat.withdrawn}
    if follows == Follows.PLACINGS and stage.decides_placings and len(tables) > 1:
        # A stage that places everyone by total across its tables: the tie-break rules order
        # the totals, and players they cannot separate share their place (and medal).
        return set(), []
    if follows == Follows.PLACINGS:
        return set(), [
            _flag(tie) for tie in rules.final_ties(ranked, active=active, finished=finished)
        ]
    late_excluded = stage.late_entry_rule == Stage.LateEntryRule.NO_ADVANCE
    eligible = {p for p in active if not (late_excluded and seats[p].from_round > 1)}
    advancing, ties = rules.advancement(
        ranked,
        eligible=eligible,
        per_table=stage.advance_per_table,
        wildcards=stage.wildcards,
        finished=finished,
        tables=tables,
    )
    return set(advancing), [_flag(tie) for tie in ties]


def _flag(tie: rules.Tie) -> dict[str, Any]:
    """A tie as the snapshot stores it (StageStandings.flags)."""
    flag: dict[str, Any] = {"table": tie.table, "players": list(tie.players), "place": tie.place}
    if tie.final:
        flag["final"] = True
    return flag


def rank_stage(
    stage: Stage,
    records: list[rules.PlayerRecord],
    seats: dict[int, SeatFacts],
    decisions: list[rules.Decision] | tuple = (),
) -> list[rules.Ranked]:
    """The stage's active players ranked (docs/DESIGN.md), then those who withdrew, ranked among
    themselves after every active player, overall and at their table: a player who left after
    one good round takes nobody's place."""
    tiebreaks = stage.tournament.tiebreak_rules
    active = [r for r in records if not seats[r.player_id].withdrawn]
    if len(active) == len(records):
        return rules.rank_players(records, tiebreaks=tiebreaks, decisions=decisions)
    ranked = rules.rank_players(active, tiebreaks=tiebreaks, decisions=decisions)
    at_table = Counter(row.table for row in ranked)
    withdrawn = [r for r in records if seats[r.player_id].withdrawn]
    after = [
        row._replace(
            rank=row.rank + len(active),
            table_rank=None if row.table_rank is None else row.table_rank + at_table[row.table],
        )
        for row in rules.rank_players(withdrawn, tiebreaks=tiebreaks)
    ]
    return ranked + after
