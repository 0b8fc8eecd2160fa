"""The Redis breaker (config/redis_breaker.py) on a real redis-server that the tests freeze with
SIGSTOP, the way a Redis stuck in a fork or a paused container behaves: it accepts connections
and never answers."""

import base64
import json
import logging
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pybreaker
import pytest
import redis
import redis.exceptions
from django.core.cache import caches
from kombu.exceptions import OperationalError

from config import redis_breaker, task_names
from config.celery import app as celery_app
from config.redis_breaker import BreakerRedisCache, breaker_for
from scoring import queue
from scoring.models import StageStandings
from tests import factories
from tests.conftest import services_missing
from tests.integration.conftest import REDIS_SERVER, RedisServer, celery_app_on
from tests.integration.test_frozen_redis import FrozenRedis

SOCKET_TIMEOUT = 1.0
AT_ONCE = 0.1  # a call that never touches a socket


@pytest.fixture
def redis_server(tmp_path) -> Iterator[FrozenRedis]:
    """A redis-server of the test's own on a free port (never the shared one), thawed and
    stopped afterwards whatever happened."""
    if not shutil.which(REDIS_SERVER):
        services_missing("redis-server is not installed (a real Redis is needed)")
    server = FrozenRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.thaw()
        server.stop()


@pytest.fixture(autouse=True)
def fresh_breakers(monkeypatch) -> None:
    """Each test starts with this process's breakers closed (a port may be handed out again)."""
    monkeypatch.setattr(redis_breaker, "_breakers", {})


def cache_on(server: RedisServer) -> BreakerRedisCache:
    return BreakerRedisCache(
        server.url(1),
        {"OPTIONS": {"socket_connect_timeout": SOCKET_TIMEOUT, "socket_timeout": SOCKET_TIMEOUT}},
    )


def timed(call: Callable[[], object]) -> tuple[float, BaseException | None]:
    started = time.monotonic()
    try:
        call()
    except Exception as error:
        return time.monotonic() - started, error
    return time.monotonic() - started, None


def every_operation(on: BreakerRedisCache) -> dict[str, Callable[[], object]]:
    return {
        "get": lambda: on.get("seen"),
        "set": lambda: on.set("seen", "again"),
        "add": lambda: on.add("new", 1),
        "delete": lambda: on.delete("seen"),
        "touch": lambda: on.touch("seen", 30),
        "incr": lambda: on.incr("count"),
        "get_many": lambda: on.get_many(["seen", "new"]),
        "set_many": lambda: on.set_many({"a": 1, "b": 2}),
        "delete_many": lambda: on.delete_many(["a", "b"]),
        "has_key": lambda: on.has_key("seen"),
        "clear": lambda: on.clear(),
    }


def test_a_frozen_redis_costs_one_socket_timeout_then_every_operation_fails_at_once(
    redis_server, settings
):
    settings.REDIS_BREAKER_SECONDS = 10
    frozen = cache_on(redis_server)
    frozen.set("seen", "yes")
    frozen.set("count", 1)
    assert frozen.get("seen") == "yes"

    redis_server.freeze()
    seconds, error = timed(lambda: frozen.get("seen"))
    assert isinstance(error, redis.exceptions.TimeoutError)
    assert SOCKET_TIMEOUT * 0.8 < seconds < SOCKET_TIMEOUT * 1.6

    for name, operation in every_operation(frozen).items():
        seconds, error = timed(operation)
        assert isinstance(error, pybreaker.CircuitBreakerError), name
        assert seconds < AT_ONCE, f"{name} took {seconds:.3f} s"


def test_after_the_thaw_and_the_reset_time_one_trial_call_closes_it(redis_server, settings):
    settings.REDIS_BREAKER_SECONDS = 0.5
    frozen = cache_on(redis_server)
    frozen.set("seen", "yes")
    redis_server.freeze()
    assert isinstance(timed(lambda: frozen.get("seen"))[1], redis.exceptions.TimeoutError)
    redis_server.thaw()
    # Redis answers again, but the breaker does not ask it before the reset time.
    assert isinstance(timed(lambda: frozen.get("seen"))[1], pybreaker.CircuitBreakerError)

    time.sleep(0.6)
    assert frozen.get("seen") == "yes"  # the trial call
    assert breaker_for(redis_server.url(1)).current_state == pybreaker.STATE_CLOSED
    frozen.set("seen", "later")
    assert frozen.get("seen") == "later"


def test_a_trial_call_that_times_out_opens_it_for_another_period(redis_server, settings):
    settings.REDIS_BREAKER_SECONDS = 0.5
    frozen = cache_on(redis_server)
    frozen.set("seen", "yes")
    redis_server.freeze()
    timed(lambda: frozen.get("seen"))
    time.sleep(0.6)

    seconds, error = timed(lambda: frozen.get("seen"))  # the trial waits its socket timeout
    assert isinstance(error, redis.exceptions.TimeoutError)
    assert seconds > SOCKET_TIMEOUT * 0.8
    seconds, error = timed(lambda: frozen.get("seen"))
    assert isinstance(error, pybreaker.CircuitBreakerError)
    assert seconds < AT_ONCE


def test_a_stopped_redis_opens_it_at_the_first_refused_connection(redis_server, settings):
    settings.REDIS_BREAKER_SECONDS = 10
    dead = cache_on(redis_server)
    redis_server.stop()
    seconds, error = timed(lambda: dead.get("seen"))
    assert isinstance(error, redis.exceptions.ConnectionError)
    assert seconds < SOCKET_TIMEOUT
    assert isinstance(timed(lambda: dead.get("seen"))[1], pybreaker.CircuitBreakerError)


def test_errors_that_redis_answered_leave_it_closed(redis_server):
    answering = cache_on(redis_server)
    with pytest.raises(AttributeError):  # a local function cannot be pickled (3.11 to 3.13)
        answering.set("unpicklable", lambda: None)
    with pytest.raises(ValueError):
        answering.incr("missing")
    assert breaker_for(redis_server.url(1)).current_state == pybreaker.STATE_CLOSED
    answering.set("seen", "yes")
    assert answering.get("seen") == "yes"


def test_one_line_when_it_opens_and_one_when_it_closes(redis_server, settings, caplog):
    settings.REDIS_BREAKER_SECONDS = 0.5
    frozen = cache_on(redis_server)
    frozen.set("seen", "yes")
    redis_server.freeze()
    with caplog.at_level(logging.INFO, logger="config.redis_breaker"):
        for _ in range(20):
            timed(lambda: frozen.get("seen"))
        redis_server.thaw()
        time.sleep(0.6)
        for _ in range(20):
            assert frozen.get("seen") == "yes"
    lines = [r.getMessage() for r in caplog.records if r.name == "config.redis_breaker"]
    server = f"127.0.0.1:{redis_server.port}"
    assert lines == [
        f"Redis at {server} does not answer (Timeout reading from socket): skipped for 0.5 s, "
        "then tried again",
        f"Redis at {server} answers again",
    ]


def test_keys_named_to_fail_open_answer_as_an_empty_cache_while_redis_is_down(redis_server):
    """What allauth's rate limit reads: its lock taken, no earlier attempts, writes accepted."""
    limits = BreakerRedisCache(
        redis_server.url(1),
        {"OPTIONS": {"socket_timeout": SOCKET_TIMEOUT, "fail_open_key_prefixes": ["limit:"]}},
    )
    limits.set("limit:ann", [1, 2, 3])
    limits.set("page", "kept")
    redis_server.freeze()
    assert limits.add("limit:ann:lock", True) is True
    assert limits.get("limit:ann", []) == []
    assert limits.set("limit:ann", [4]) is None
    assert limits.delete("limit:ann:lock") is False
    with pytest.raises(pybreaker.CircuitBreakerError):
        limits.get("page")
    redis_server.thaw()


def test_a_closed_breaker_lets_threads_call_redis_side_by_side(redis_server):
    """pybreaker holds its lock around the call; a closed breaker here does not, so one slow
    call does not hold up the process's other threads."""
    answering = cache_on(redis_server)
    answering.set("seen", "yes")
    inside, release = threading.Event(), threading.Event()

    def slow_call() -> None:
        inside.set()
        release.wait(5)

    slow = threading.Thread(target=lambda: breaker_for(redis_server.url(1)).call(slow_call))
    slow.start()
    try:
        assert inside.wait(5)
        seconds, error = timed(lambda: answering.get("seen"))
        assert error is None and seconds < 0.5
    finally:
        release.set()
        slow.join()


def test_the_cache_and_the_broker_on_one_server_share_a_breaker_and_others_do_not():
    assert breaker_for("redis://127.0.0.1:6379/3") is breaker_for("redis://127.0.0.1:6379/0")
    assert breaker_for("redis://127.0.0.1:6379/3") is breaker_for("redis://127.0.0.1/1")
    assert breaker_for("redis://127.0.0.1:6379/3") is not breaker_for("redis://127.0.0.1:6380/3")
    assert breaker_for("redis://cache:6379/0") is not breaker_for("redis://broker:6379/0")


@pytest.fixture
def broker_on(redis_server) -> Iterator[FrozenRedis]:
    """This process's Celery app sends to the test's Redis (db 0), tasks not inline."""
    with celery_app_on(redis_server.url(0), f"roundhouse-test-{uuid.uuid4().hex[:12]}"):
        yield redis_server


def test_a_frozen_broker_costs_a_send_one_socket_timeout_then_sends_fail_at_once(
    broker_on, settings
):
    settings.REDIS_BREAKER_SECONDS = 10
    queue.send(task_names.REBUILD_STANDINGS, stage_id=1)  # the app now holds a connection to it
    broker_on.freeze()
    # kombu's retry (reconnect, send again) would wait out two more timeouts.
    seconds, error = timed(lambda: queue.send(task_names.REBUILD_STANDINGS, stage_id=1))
    assert isinstance(error, OperationalError)
    assert seconds < SOCKET_TIMEOUT * 1.6
    seconds, error = timed(lambda: queue.send(task_names.REBUILD_STANDINGS, stage_id=1))
    assert isinstance(error, pybreaker.CircuitBreakerError)
    assert seconds < AT_ONCE


def test_a_cache_timeout_spares_a_send_to_the_same_server_its_own(broker_on, settings):
    settings.REDIS_BREAKER_SECONDS = 10
    frozen = cache_on(broker_on)
    frozen.set("seen", "yes")
    broker_on.freeze()
    timed(lambda: frozen.get("seen"))
    seconds, error = timed(lambda: queue.send(task_names.REBUILD_STANDINGS, stage_id=1))
    assert isinstance(error, pybreaker.CircuitBreakerError)
    assert seconds < AT_ONCE


def test_a_send_after_the_thaw_and_the_reset_time_reaches_the_broker(broker_on, settings):
    settings.REDIS_BREAKER_SECONDS = 0.5
    broker_on.freeze()
    timed(lambda: queue.send(task_names.REBUILD_STANDINGS, stage_id=1))
    broker_on.thaw()
    time.sleep(0.6)
    queue.send(task_names.REBUILD_STANDINGS, stage_id=7)
    assert 7 in queued_stage_ids(broker_on)


def queued_stage_ids(server: RedisServer) -> list[int]:
    """The stage ids of the rebuilds waiting in the queue (Celery's message: a JSON envelope
    with a base64 body of [args, kwargs, embed])."""
    queued = redis.Redis.from_url(server.url(0)).lrange(celery_app.conf.task_default_queue, 0, -1)
    bodies = [json.loads(base64.b64decode(json.loads(message)["body"])) for message in queued]
    return [body[1]["stage_id"] for body in bodies]


def test_inline_tasks_run_even_while_the_brokers_breaker_is_open(db):
    assert celery_app.conf.task_always_eager
    stage = factories.StageFactory(status="seated")
    breaker_for(celery_app.conf.broker_url).open()
    queue.send(task_names.REBUILD_STANDINGS, stage_id=stage.pk)
    assert StageStandings.objects.get(stage=stage).computed_at is not None


def test_with_redis_url_set_the_default_cache_goes_through_the_breaker(require_redis):
    assert isinstance(caches["default"], BreakerRedisCache)
