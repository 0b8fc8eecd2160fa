"""Small stages' rebuilds on a queue of their own, through a real broker and worker: a club
night's rebuild is published to STANDINGS_SMALL_QUEUE, which a worker of the default queue
does not take; a big stage's goes to the default queue and is built."""

import time

import pytest
import redis

from scoring.models import StageStandings
from scoring.standings.requests import send_rebuild
from tests import factories


def seated(players: int):
    stage = factories.StageFactory(table_size_min=4, table_size_max=4, status="seated")
    for n in range(players // 4):
        table = factories.TableFactory(stage=stage, number=n + 1)
        for position in range(1, 5):
            factories.SeatFactory(table=table, position=position)
    return stage


def built(stage) -> bool:
    return StageStandings.objects.filter(stage=stage, computed_at__isnull=False).exists()


@pytest.fixture
def small_queue(live_worker, settings):
    settings.STANDINGS_SMALL_QUEUE = f"{live_worker.queue}-small"
    settings.STANDINGS_SMALL_PLAYERS = 4
    return settings.STANDINGS_SMALL_QUEUE


def test_a_small_stages_rebuild_waits_on_its_own_queue_and_a_big_ones_is_built(
    live_worker, small_queue, require_redis
):
    broker = redis.Redis.from_url(require_redis)
    small, big = seated(4), seated(8)
    send_rebuild(small.pk)
    send_rebuild(big.pk)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not built(big):
        time.sleep(0.1)
    assert built(big), live_worker.log.read_text()[-2000:]
    assert broker.llen(small_queue) == 1  # published there, and no worker of that queue runs
    assert not built(small)
    broker.delete(small_queue)
