"""A queued run frees its burst's key as it starts (scoring.queue.run_started): a change made
while it runs sends a run of its own, instead of being folded into one that may have read too
early for it. The three tasks sent once per burst: a stage's standings, a club's ratings, a
season's ladder."""

from functools import partial

import pytest
from django.core.cache import cache

from clubs import ladder_services, rating_store
from clubs import tasks as club_tasks
from clubs.models import Season
from scoring import standings
from scoring import tasks as scoring_tasks
from tests.factories import ClubFactory, StageFactory

pytestmark = pytest.mark.django_db


def test_each_task_frees_its_pending_key_as_it_starts():
    stage = StageFactory()
    club = ClubFactory()
    season = Season.objects.create(club=club, name="Autumn", slug="autumn", points_table=[3, 2])
    rebuild = partial(scoring_tasks.rebuild_standings, stage_id=stage.pk)
    rate = partial(club_tasks.rate_club, club_id=club.pk)
    ladder = partial(club_tasks.rebuild_ladder, season_id=season.pk)
    runs = [
        (standings.pending_key(stage.pk), rebuild),
        (rating_store.pending_key(club.pk, None), rate),
        (ladder_services.pending_key(season.pk), ladder),
    ]
    for key, run in runs:
        assert cache.add(key, 1, timeout=30)  # a burst's run is queued
        assert not cache.add(key, 1, timeout=30)  # the next change in the burst sends nothing
        run()
        assert cache.add(key, 1, timeout=30), f"{key} still held after its run started"
        cache.delete(key)


def test_a_run_whose_object_was_deleted_meanwhile_frees_its_key_and_does_nothing():
    club = ClubFactory()
    key = rating_store.pending_key(club.pk, None)
    club_id = club.pk
    club.delete()
    assert cache.add(key, 1, timeout=30)
    club_tasks.rate_club(club_id=club_id)
    assert cache.add(key, 1, timeout=30)
    cache.delete(key)
