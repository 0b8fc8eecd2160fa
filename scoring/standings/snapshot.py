"""The read side: the snapshot's header and the API's standings document, from Redis when current
there, else from PostgreSQL."""

import logging
from typing import Any

from django.core.cache import cache

from scoring import time_called
from scoring.models import StageStandings, StandingRow
from scoring.standings.cache import CACHE_SECONDS, cache_key
from scoring.standings.locks import RebuildBusy
from scoring.standings.rebuild import rebuild_standings
from tournaments.models import Stage

logger = logging.getLogger(__name__)


def standings_meta(stage: Stage) -> StageStandings:
    """The snapshot's header; a stage never built is built now (its seating just happened)."""
    meta = StageStandings.objects.filter(stage=stage).defer("table_digests").first()
    if meta is None or meta.computed_at is None:
        try:
            meta = rebuild_standings(stage=stage)
        except RebuildBusy:  # a worker is building it: its header, or none yet (stale)
            meta = StageStandings.objects.filter(stage=stage).defer(
                "table_digests"
            ).first() or StageStandings(stage=stage)
    return meta


def standings_payload(stage: Stage, meta: StageStandings) -> dict[str, Any]:
    """The API's standings document, from Redis when current there, else from PostgreSQL."""
    key = cache_key(stage.pk)
    try:
        cached = cache.get(key)
    except Exception:
        cached = None
    if cached is not None and cached.get("built_seq") == meta.built_seq:
        # Kept at the build; whether a change is owed since is the header's of now.
        return {**cached["payload"], "stale": meta.stale}
    rows = (
        StandingRow.objects.filter(stage=stage)
        .select_related("player__division")
        .order_by("rank", "player__number")
    )
    payload = {
        "stage": stage.pk,
        "computed_at": meta.computed_at.isoformat() if meta.computed_at else None,
        "results_counted": meta.results_counted,
        "results_expected": meta.results_expected,
        "ranked_through_round": meta.ranked_through,
        "stale": meta.stale,
        "flags": meta.flags,
        "time_called": _time_called(stage),
        "rows": [
            {
                "rank": row.rank,
                "player": {
                    "id": row.player_id,
                    "number": row.player.number,
                    "name": row.player.name,
                },
                "table": row.table_number,
                "table_rank": row.table_rank,
                "total": row.total,
                "carried": row.carried,
                "rounds_won": row.rounds_won,
                "rounds_played": row.rounds_played,
                "rounds_counted": row.rounds_counted,
                "scores": row.scores,
                "tied": row.tied,
                "advances": row.advances,
                "note": row.note,
                "tiebreaks": row.tiebreaks,
                "division": row.player.division.name if row.player.division else None,
            }
            for row in rows
        ],
    }
    try:
        cache.set(key, {"built_seq": meta.built_seq, "payload": payload}, timeout=CACHE_SECONDS)
    except Exception:
        logger.warning("standings: cache unavailable, served stage %s from PostgreSQL", stage.pk)
    return payload


def _time_called(stage: Stage) -> dict[str, Any] | None:
    """Once time is called: the rounds the ranking counts, and each table that played fewer than
    the stage's rounds with its last (calling time asks for a rebuild, so the snapshot built
    after the call says it)."""
    summary = time_called.time_called_summary(stage)
    if summary is None:
        return None
    return {
        "ranked_through_round": summary["through"],
        "tables": [{"table": table, "after_round": last} for table, last in summary["after"]],
    }
