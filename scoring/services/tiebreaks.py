"""Tie-break decisions: how an official broke a tie the rules cannot break."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from scoring import standings
from scoring.models import TiebreakDecision
from tournaments.models import Stage
from tournaments.services.stage_changes import lock_open_stage


@transaction.atomic
def record_tiebreak(
    *, stage: Stage, table_id: int | None, order: list[int], method: str, note: str, by
) -> TiebreakDecision:
    """Record how an official broke a tie the rules cannot break; the standings honour it."""
    stage = lock_open_stage(stage.pk, change="decisions")  # never the caller's copy
    errors: dict[str, list[str]] = {}
    if method not in TiebreakDecision.Method.values:
        errors["method"] = [
            _(
                "Choose how the tie was decided: a tie-break round (tiebreak_round) or drawing "
                "lots (draw)."
            )
        ]
    if len(set(order)) != len(order):
        errors["order"] = [
            _("A player is chosen for two places: choose each tied player once, best first.")
        ]
    elif len(order) < 2:
        errors["order"] = [_("List each tied player once, best first: at least two players.")]
    table = stage.tables.filter(pk=table_id).first() if table_id is not None else None
    if table_id is not None and table is None:
        errors["table"] = [_("%(stage)s has no such table.") % {"stage": stage.display_name}]
    if errors:
        raise ValidationError(errors)
    read = standings.stage_records(stage)
    records, seats = read.records, read.seats
    ranked = {r.player_id: r for r in standings.rank_stage(stage, records, seats)}
    unknown = [p for p in order if p not in ranked or (table and seats[p].table_id != table.pk)]
    if unknown:
        message = (
            _("Players %(players)s are not seated at table %(table)s.")
            if table
            else _("Players %(players)s are not seated at %(stage)s.")
        )
        where = {
            "players": unknown,
            "table": table.number if table else None,
            "stage": stage.display_name,
        }
        raise ValidationError({"order": [message % where]})
    if table is not None:
        places = {(ranked[p].table_rank, ranked[p].table_tied) for p in order}
    else:
        places = {(ranked[p].rank, ranked[p].tied) for p in order}
    if len(places) != 1 or not next(iter(places))[1]:
        raise ValidationError(
            {"order": [_("These players are not tied: the rules already separate them.")]}
        )
    decision = TiebreakDecision.objects.create(
        stage=stage, table=table, order=order, method=method, note=note[:500], by=by
    )
    standings.request_rebuild(stage)
    return decision
