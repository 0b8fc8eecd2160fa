"""The public standings table of a snapshot, drawn as HTML once per language and kept, in pages
of ROWS_PER_PAGE rows: a phone following a 500-player stage fetches one page of it at each new
version, not all 500 rows (docs/PERFORMANCE.md's git history, "Standings in pages of rows").
Also where the public pages keep what they draw (`kept`, `keep`): in this process and in Redis."""

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache, caches
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from config import redis_keys
from config.release import release
from scoring import selectors, standings, time_called
from scoring.divisions import division_rows
from scoring.models import StageStandings
from tournaments.models import Stage, Tournament

logger = logging.getLogger(__name__)

# Rows of a page of the standings. A stage of 100 players or fewer has one page and no page
# links; a 500-player stage five, each about a fifth of the bytes a phone fetches at every new
# version (docs/PERFORMANCE.md's git history, "Standings in pages of rows": with pages of 50 the
# worker's twenty warm fetches a version cost more of the 1.5 s than they saved).
ROWS_PER_PAGE = 100

# ?page=all: every row on one page (to print, or to search the whole field in the browser).
ALL = "all"


def asked_page(value: str) -> int | None:
    """The page ?page= asks for: a number from 1, or None for every row (ALL). Anything else
    (empty, a word, 0, a number no stage reaches) is the first page: an address people edit or
    keep from an earlier stage still shows standings, and the page links say which rows."""
    if value == ALL:
        return None
    if value.isascii() and value.isdigit() and len(value) < 6 and int(value) > 0:
        return int(value)
    return 1


def page_count(rows: int) -> int:
    return max(1, -(-rows // ROWS_PER_PAGE))


@dataclass(frozen=True)
class TablePage:
    """A page of a snapshot's standings table: its HTML, which page it is (None: every row;
    a number beyond the last is the last) and how many pages and rows there are."""

    html: SafeString
    page: int | None
    pages: int
    rows: int

    @classmethod
    def of(cls, piece: tuple[str, int | None, int, int]) -> "TablePage":
        """A page as kept: (html, page, pages, rows)."""
        html, page, pages, rows = piece
        # Our own template's output (escaped when rendered), kept as it was rendered.
        return cls(mark_safe(html), page, pages, rows)

    def links(self) -> list[dict[str, Any]]:
        """The page links: each page's number (None for every row), its first and last row,
        and whether it is this one. None when there is one page."""
        if self.pages < 2:
            return []
        links = [
            {
                "page": n,
                "first": (n - 1) * ROWS_PER_PAGE + 1,
                "last": min(n * ROWS_PER_PAGE, self.rows),
                "current": n == self.page,
            }
            for n in range(1, self.pages + 1)
        ]
        return [*links, {"page": None, "current": self.page is None}]


def kept(key: str) -> Any:
    """What keep kept: from this process's cache, else from Redis (then kept here too)."""
    value = caches["local"].get(key)
    if value is None:
        try:
            value = cache.get(key)
        except Exception:
            logger.warning("public pages: cache unavailable, rendering %s", key)
        if value is not None:
            caches["local"].set(key, value, timeout=standings.CACHE_SECONDS)
    return value


def keep(key: str, value: Any) -> None:
    """Keep a rendered piece in this process and in Redis (if Redis is up) for other processes.
    Keys name the snapshot a piece shows, so nothing kept is ever stale."""
    caches["local"].set(key, value, timeout=standings.CACHE_SECONDS)
    try:
        cache.set(key, value, timeout=standings.CACHE_SECONDS)
    except Exception:
        logger.warning("public pages: cache unavailable, %s kept in this process only", key)


def digest(members: frozenset[int]) -> str:
    return hashlib.sha1(repr(sorted(members)).encode()).hexdigest()[:16]


def table_cache_key(
    stage: Stage,
    meta: StageStandings,
    members: frozenset[int] | None = None,
    page: int | None = 1,
) -> str:
    """A page of a snapshot's table in the active language. A division's table is kept per its
    players of now: moving a player changes its key."""
    return _table_key(stage.pk, meta.built_seq, members, page)


def _table_key(
    stage_id: int, built_seq: int, members: frozenset[int] | None, page: int | None
) -> str:
    # Pages of another size are other pages; drawn by another release (before a deploy), the
    # rows are drawn anew (config/release.py).
    of = None if members is None else digest(members)
    language = get_language()
    return redis_keys.standings_table(
        stage_id, built_seq, language, of, ROWS_PER_PAGE, page or ALL, release()
    )


def kept_table(stage_id: int, built_seq: int, page: int | None) -> TablePage | None:
    """A page of the whole field's table of a snapshot as kept, if it is (by the stage's and
    snapshot's ids alone: a kept page of the standings is put together without the models)."""
    piece = kept(_table_key(stage_id, built_seq, None, page))
    return None if piece is None else TablePage.of(piece)


def standings_table(
    tournament: Tournament,
    stage: Stage,
    meta: StageStandings,
    members: frozenset[int] | None = None,
    page: int | None = 1,
) -> TablePage:
    """A page of the standings table of a snapshot in the active language (None: every row),
    drawn once and then kept: rendering 500 rows was most of the page's time
    (docs/PERFORMANCE.md, "Hall"). A new snapshot has new keys. A page not kept is drawn alone: the
    worker draws every page of a new snapshot (draw_standings_tables), and a request that comes
    before it has drawn them wants one. With a division's `members`, its players only, ranked
    among themselves."""
    piece = kept(table_cache_key(stage, meta, members, page))
    if piece is None and page is not None and page > 1:  # beyond the last page: the last
        first = kept(table_cache_key(stage, meta, members, 1))
        if first is not None and page > first[2]:
            piece = kept(table_cache_key(stage, meta, members, first[2]))
    if piece is None:
        ((number, piece),) = _draw(tournament, stage, meta, members, [page]).items()
        keep(table_cache_key(stage, meta, members, number), piece)
    return TablePage.of(piece)


def _draw(
    tournament: Tournament,
    stage: Stage,
    meta: StageStandings,
    members: frozenset[int] | None,
    asked: list[int | None] | None = None,
) -> dict[int | None, tuple[str, int | None, int, int]]:
    """The table's pages as kept: {page: (html, page, pages, rows)}, those `asked` (None: the
    page of every row; a number beyond the last page: the last) or every numbered page."""
    payload = _in_page_language(standings.standings_payload(stage, meta))
    if members is not None and payload:
        payload = {**payload, "rows": division_rows(payload["rows"], members)}
    rounds = list(range(1, stage.rounds + 1))
    rows = _display_rows(tournament, stage, payload, rounds, through=meta.ranked_through)
    # A tie only an official can break, for a place that decides something: said on the row.
    awaiting = {player for flag in meta.flags for player in flag["players"]}
    rows = [{**row, "awaiting": row["player"]["id"] in awaiting} for row in rows]
    # Mid-stage a ✓ says who would advance as things stand; with every round in, who does.
    decided = time_called.decided(
        stage,
        meta.ranked_through,
        counted=meta.results_counted,
        expected=meta.results_expected,
    )
    pages = page_count(len(rows))
    called = time_called.called_clock(stage) is not None
    anyone_advances = any(row["advances"] for row in rows)
    anyone_provisional = any(row["provisional"] is not None for row in rows)

    def drawn(number: int | None, part: list[dict]) -> tuple[str, int | None, int, int]:
        context = {
            "rows": part,
            "rounds": rounds,
            "decided": decided,
            "through": meta.ranked_through,
            "called": called,
            # A stage every player plays on from (games of a day, tables that move): no
            # "would advance" legend under a list where nobody advances.
            "anyone_advances": anyone_advances,
            "anyone_provisional": anyone_provisional,
        }
        return render_to_string("scoring/_standings_table.html", context), number, pages, len(rows)

    wanted = range(1, pages + 1) if asked is None else [n and min(n, pages) for n in asked]
    return {
        n: drawn(n, rows if n is None else rows[(n - 1) * ROWS_PER_PAGE : n * ROWS_PER_PAGE])
        for n in wanted
    }


def draw_standings_tables(*, stage_id: int, languages: list[str], **kwargs: Any) -> int:
    """The current snapshot's standings table of a stage, every page in each of `languages`
    (those pages read: scoring/announce.py's watched_languages), drawn and kept (the worker
    does it before announcing a new version). Returns how many pages it has (announce warms
    each), 0 before its first snapshot."""
    stage = Stage.objects.select_related("tournament").get(pk=stage_id)
    meta = (
        StageStandings.objects.filter(stage=stage, computed_at__isnull=False)
        .defer("table_digests")
        .first()
    )
    if meta is None:
        return 0
    pages = 0
    shown = selectors.current_stage(stage.tournament.stages) == stage
    for code in languages:
        with translation.override(code):
            drawn = _draw(stage.tournament, stage, meta, None)
            for number, piece in drawn.items():
                keep(table_cache_key(stage, meta, None, number), piece)
            pages = len(drawn)
    # The warm fetches ask for the home page's pages: this stage's only if it shows it (a
    # correction in the qualifying during the playoffs: the playoff's first page).
    return pages if shown else 1


def _in_page_language(payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """The standings payload with its notes and tie-breaks in the page's language (the snapshot
    keeps facts, in English)."""
    if payload is None:
        return None
    rows = [
        {**row, "note": standings.note_text(row["note"])} if row["note"] else row
        for row in standings.explained(payload["rows"])
    ]
    return {**payload, "rows": rows}


def _provisional(scores: dict[str, int], through: int) -> int | None:
    """The pips of the rounds a line shows but the total does not count yet; None for none."""
    later = [pips for round_no, pips in scores.items() if int(round_no) > through]
    return sum(later) if later else None


def _display_rows(tournament, stage, payload, rounds, *, through: int) -> list[dict]:
    """Each row with its round cells and links ready: the template then loops once per row, not
    once per score per round cell (the render was most of the page's time at 500 players)."""
    if not payload:
        return []
    player_url = reverse("player-page", args=[tournament.slug, 0]).removesuffix("0/")
    table_url = reverse("table-sheet", args=[tournament.slug, stage.order, 0]).removesuffix("0/")
    return [
        {
            **row,
            # Each round's pips, and whether it is one the ranking does not count yet (a round
            # some table has still to report: shown, provisional).
            "cells": [(row["scores"].get(str(n)), n > through) for n in rounds],
            # Their sum, beside the total where the round columns do not show (a phone).
            "provisional": _provisional(row["scores"], through),
            "player_url": f"{player_url}{row['player']['number']}/",
            "table_url": f"{table_url}{row['table']}/" if row["table"] else None,
        }
        for row in payload["rows"]
    ]
