"""Rebuilding a stage's snapshot from its confirmed results, in one transaction."""

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone, translation

from scoring import announce, rules, signals, time_called
from scoring.models import StageStandings, TiebreakDecision
from scoring.standings.cache import forget_cached
from scoring.standings.locks import RebuildBusy, try_lock
from scoring.standings.ranking import advancers, rank_stage
from scoring.standings.records import stage_records
from scoring.standings.rows import snapshot_lines, write_rows
from scoring.standings.text import tie_message
from tournaments.models import Stage


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The rebuild makes tens of thousands of short-lived dicts and tuples, freed by reference
    counting; the cyclic garbage collector would walk the live ones again and again meanwhile
    (8 ms of a 2,000 x 13 rebuild). It is paused for the rebuild and resumes as before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@_collector_paused()
def rebuild_standings(*, stage: Stage) -> StageStandings:
    """Recompute the stage's snapshot from confirmed results, in a fixed number of queries.

    Safe to run twice and in parallel: a concurrent rebuild raises RebuildBusy (try again), and
    a rebuild that finds the snapshot current does nothing. Killed midway, it leaves the
    previous snapshot intact (one transaction).
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        return _rebuild(stage, asynchronous_commit=outermost)


def _rebuild(stage: Stage, *, asynchronous_commit: bool) -> StageStandings:
    if not try_lock(stage.pk, asynchronous_commit=asynchronous_commit):
        raise RebuildBusy(stage.pk)
    meta = StageStandings.objects.filter(stage=stage).first()
    if meta is None:  # never built nor changed; another process may be creating it too
        StageStandings.objects.bulk_create([StageStandings(stage=stage)], ignore_conflicts=True)
        meta = StageStandings.objects.get(stage=stage)
    seq = meta.change_seq
    if meta.built_seq >= seq and meta.computed_at is not None:
        return meta  # current already: a coalesced request
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    # Before the results are read: what this build may count is in the digests or named by the
    # next build (announce.table_digests).
    digests = announce.table_digests(stage)
    records, seats, counted, finished, through, counting = stage_records(stage)
    decisions = [
        rules.Decision(order=tuple(d.order), method=d.method)
        for d in TiebreakDecision.objects.filter(stage=stage).order_by("at")
    ]
    # Ranked like with like: on the rounds every table has confirmed (rules.progress).
    ranked = rank_stage(stage, counting, seats, decisions)
    if counting is not records and time_called.called_clock(stage) is not None:
        ranked = _table_ranks_on_every_round(stage, ranked, records, seats, decisions)
    advancing, flags = advancers(stage, ranked, seats, finished)
    if counting is not records and finished and time_called.called_clock(stage) is None:
        # A table that has played every round while others play on: the ties that decide who
        # advances from it are already known from its own rounds, and asked about now (its own
        # players ranked again on every round; the others' ties wait).
        done = [record for record in records if record.table in finished]
        _, flags = advancers(stage, rank_stage(stage, done, seats, decisions), seats, finished)
    write_rows(stage, snapshot_lines(ranked, records, seats, advancing))
    flags = [{**flag, "names": [seats[p].name for p in flag["players"]]} for flag in flags]
    # The snapshot is shared by every reader, and a rebuild runs in whoever's request or in a
    # worker: store the message in the site's language; pages show tie_message in their own.
    with translation.override(settings.LANGUAGE_CODE):
        meta.flags = [{**flag, "message": tie_message(flag)} for flag in flags]
    # A change other than results in this build (a seat, a name, a tie-break decision, time
    # called) may show on any page: every page fetches again (scoring.standings.mark_changed).
    every_page = meta.every_page_seq > meta.built_seq
    meta.built_seq = seq
    meta.computed_at = timezone.now()
    meta.results_counted = counted
    meta.ranked_through = through
    meta.results_expected = time_called.results_expected(stage)
    meta.rebuilds = F("rebuilds") + 1
    # The tables whose results changed since the last build: only their sheets and their
    # players' pages fetch again when the pages hear of this one (the standings always do).
    tables = announce.tables_to_name(meta.table_digests, digests, every_page=every_page)
    meta.table_digests = digests
    # Never write change_seq back: a change committed meanwhile must keep the stage stale.
    meta.save(
        update_fields=[
            "built_seq",
            "computed_at",
            "results_counted",
            "ranked_through",
            "results_expected",
            "rebuilds",
            "flags",
            "table_digests",
        ]
    )
    meta.refresh_from_db(fields=["rebuilds", "change_seq"])
    transaction.on_commit(lambda: forget_cached(stage.pk))
    # The pages hear the new version, and the tables it changed, once it is readable (live push;
    # nothing without nginx's).
    slug = stage.tournament.slug
    transaction.on_commit(
        lambda: announce.announce_rebuild(
            slug=slug, stage_id=stage.pk, built_seq=seq, tables=tables
        )
    )
    # The apps above (a club's ratings) hear of the stage's confirmed results once they are
    # committed; robust: a receiver's failure is logged and never fails the rebuild's caller.
    transaction.on_commit(
        lambda: signals.results_changed.send(sender=Stage, stage=stage), robust=True
    )
    return meta


def _table_ranks_on_every_round(stage, ranked, records, seats, decisions) -> list[rules.Ranked]:
    """Once time is called, the overall ranking counts the rounds every table played, and each
    table's own ranking (its winner, who advances from it) all of its table's rounds."""
    at_table = {row.player_id: row for row in rank_stage(stage, records, seats, decisions)}
    return [
        row._replace(
            table_rank=at_table[row.player_id].table_rank,
            table_tied=at_table[row.player_id].table_tied,
        )
        for row in ranked
    ]
