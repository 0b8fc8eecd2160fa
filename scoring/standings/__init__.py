"""Live standings: a snapshot of each stage's ranking, recomputed from confirmed results.

A change that affects the standings (a confirmation, a correction, a seating change, a tie-break
decision) bumps the stage's change_seq in PostgreSQL in the same transaction, and asks a worker
to rebuild after the commit. A rebuild recomputes everything (never increments) and records the
change it includes in built_seq; a stage whose change_seq is ahead is stale and is rebuilt again,
by the next task or by the sweeper. The public pages read the snapshot: from Redis when it is
there and current, from PostgreSQL otherwise.

One module for each concern: `requests` (asking for a rebuild, finding stale stages), `locks`
(one rebuild of a stage at a time), `records` (reading seats and scores), `ranking` (ranking
the stage, who advances), `rows` (storing the snapshot's rows), `rebuild`, `snapshot` (the read
side), `cache` (its keys) and `text` (what it says to people). The names other modules use are
importable from here.
"""

from scoring.standings.cache import CACHE_SECONDS, cache_key, pending_key
from scoring.standings.locks import REBUILD_LOCK, RebuildBusy, wait_for_rebuild
from scoring.standings.ranking import rank_stage
from scoring.standings.rebuild import rebuild_standings
from scoring.standings.records import SeatFacts, stage_records
from scoring.standings.requests import mark_changed, request_rebuild, send_rebuild, stale_stage_ids
from scoring.standings.rows import ROW_FIELDS
from scoring.standings.snapshot import standings_meta, standings_payload
from scoring.standings.text import explained, note_text, separation_text, tie_message

__all__ = [
    "CACHE_SECONDS",
    "REBUILD_LOCK",
    "ROW_FIELDS",
    "RebuildBusy",
    "SeatFacts",
    "cache_key",
    "explained",
    "mark_changed",
    "note_text",
    "pending_key",
    "rank_stage",
    "rebuild_standings",
    "request_rebuild",
    "send_rebuild",
    "separation_text",
    "stage_records",
    "stale_stage_ids",
    "standings_meta",
    "standings_payload",
    "tie_message",
    "wait_for_rebuild",
]
