"""A rebuild counts the results and the scores from one read: a confirmation that commits while it
runs is counted in both or in neither, never in the results counted and not in the scores (seen
as half a tournament's totals with every result counted, on the production stack)."""

import threading

import pytest
from django.db import connection

from scoring import standings
from scoring.models import RoundResult, StandingRow
from scoring.standings import records
from tests import factories
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_confirmation_committed_during_a_rebuild_is_not_half_counted(
    require_postgres, monkeypatch
):
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    second = play(stage, players, 2, [4, 0, 8], status="submitted")
    standings.rebuild_standings(stage=stage)

    failed = []

    def confirm_elsewhere() -> None:
        try:
            RoundResult.objects.filter(pk=second.pk).update(
                status="confirmed", confirmed_by=second.submitted_by
            )
            standings.mark_changed(stage)
        except Exception as error:
            failed.append(error)
        finally:
            connection.close()

    reads, original = [], records.fetch

    def fetch_and_confirm_after_the_scores(queryset):
        rows = original(queryset)
        reads.append(queryset.model.__name__)
        if reads == ["Seat", "Score"]:  # the scores are read: what else the rebuild reads of the
            # results (the rounds each table confirmed) must agree with them
            other = threading.Thread(target=confirm_elsewhere)
            other.start()
            other.join(10)
        return rows

    monkeypatch.setattr(records, "fetch", fetch_and_confirm_after_the_scores)
    standings.mark_changed(stage)  # owed a rebuild (a seating change, say)
    meta = standings.rebuild_standings(stage=stage)
    assert not failed and reads[:2] == ["Seat", "Score"]  # the confirmation came in between
    played = set(StandingRow.objects.filter(stage=stage).values_list("rounds_played", flat=True))
    assert (meta.results_counted, played) == (1, {1})  # the snapshot as it was, whole
    meta.refresh_from_db()
    assert meta.stale  # and the confirmation keeps the stage owed a rebuild
    monkeypatch.undo()
    meta = standings.rebuild_standings(stage=stage)
    played = set(StandingRow.objects.filter(stage=stage).values_list("rounds_played", flat=True))
    assert (meta.results_counted, played) == (2, {2})
