"""The test run's cache keys are its own: the pytest-xdist workers of `make test` share one
Redis database, and emptying one worker's cache leaves the other's keys alone."""

import pytest
from django.core.cache import cache

from tests.conftest import clear_cache


@pytest.fixture
def redis(require_redis):
    client = getattr(getattr(cache, "_cache", None), "get_client", None)
    if client is None:
        pytest.fail("REDIS_URL is set but the default cache is not Redis")
    return client(None, write=True)


def test_emptying_this_runs_cache_leaves_another_workers_keys(redis):
    other = "roundhouse-other-worker:1:standings"
    redis.set(other, b"kept")
    cache.set("standings", "dropped")
    try:
        clear_cache()
        assert cache.get("standings") is None
        assert redis.get(other) == b"kept"
    finally:
        redis.delete(other)
