"""Games seated from the game before (Stage.movement): when a game closes, the next game is
seated from its tables (tables.game_seating), each table's players ordered by their scores in that
game alone.

The close that seats it is the organiser's, or a worker's when the last table of the game
confirms its last round (scoring.services.game_close).
"""

from dataclasses import replace

from django.utils.translation import gettext as _

from scoring import rules
from scoring.models import TiebreakDecision
from scoring.standings import rank_stage, stage_records
from tables import game_seating
from tournaments.models import Stage


def next_game(stage: Stage) -> Stage | None:
    """The stage right after `stage` when it is a qualifying game to be seated from it, and not
    seated yet."""
    following = (
        Stage.objects.filter(tournament_id=stage.tournament_id, order=stage.order + 1)
        .exclude(movement="")
        .first()
    )
    if (
        following is None
        or following.kind != Stage.Kind.QUALIFYING
        or following.status != Stage.Status.PENDING
    ):
        return None
    return following


def table_orders(stage: Stage) -> dict[int, list[int]]:
    """Each table's players (by table number), best first by their scores in this game alone:
    a total carried from earlier games does not count (it would move the same players every
    game). Ties are broken as the table's ranking breaks them (the tournament's tie-break rules,
    the officials' decisions), then by badge number; a player who withdrew comes last."""
    records, seats, *_rest = stage_records(stage)
    own = [replace(record, carried=0) for record in records]
    decisions = [
        rules.Decision(order=tuple(d.order), method=d.method)
        for d in TiebreakDecision.objects.filter(stage=stage).order_by("at")
    ]
    numbers = dict(stage.seats.values_list("player_id", "player__number"))
    ranked = rank_stage(stage, own, seats, decisions)
    orders: dict[int, list[int]] = {}
    key = {row.player_id: (row.table_rank or 0, numbers[row.player_id]) for row in ranked}
    for row in ranked:
        orders.setdefault(row.table, []).append(row.player_id)
    return {table: sorted(players, key=key.__getitem__) for table, players in orders.items()}


def seat_next_game(stage: Stage) -> Stage | None:
    """Seat the game after a closed game from its tables, when that game is seated from it
    (Stage.movement) and not seated yet; the game seated, if any. The caller holds the closed
    stage's lock; a game seated already is left alone (sent twice, it seats once)."""
    following = next_game(stage)
    if following is None:
        return None
    game_seating.seat_from_previous_game(
        stage=following, previous=stage, orders=table_orders(stage)
    )
    following.refresh_from_db()
    following.source_stage = stage
    following.save(update_fields=["source_stage"])
    return following


def moved_text(stage: Stage, table: int, came_from: int | None) -> str:
    """Where a player seated at `table` of a game seated from the game before came from
    ("moved up from table 6"); "" for a stage seated otherwise, or a late entry."""
    if not stage.movement or came_from is None or stage.kind != Stage.Kind.QUALIFYING:
        return ""
    values = {"table": came_from}
    if stage.movement == Stage.Movement.RESEAT:
        return _("reseated from table %(table)s") % values
    if table < came_from:
        return _("moved up from table %(table)s") % values
    if table > came_from:
        return _("moved down from table %(table)s") % values
    return _("stayed at table %(table)s") % values
