"""A circuit breaker per Redis server in each process (pybreaker): a frozen or dead Redis costs a
request at most one short wait.

Closed, the normal state: calls go to Redis. The first connection error or timeout opens the
breaker: for REDIS_BREAKER_SECONDS every call to that server (a cache operation, a task sent
from a web request) raises pybreaker.CircuitBreakerError at once, without touching a socket,
and the callers, which already take any exception for "Redis is down", go on without it. Then
the breaker is half-open: one trial call goes to Redis (the process's other calls wait for its
answer), and closes the breaker again or opens it for another period. Only a server that does
not answer counts (a value that will not pickle, or incr of a missing key, does not).

One breaker per server (host and port), not per URL: the cache and the broker in two databases
of one Redis share it (its first timeout spares the other's), while the two Redis servers of
deploy/compose.yaml each have their own (a frozen cache never holds back the broker).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pybreaker
import redis.exceptions
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)

T = TypeVar("T")

# A server that does not answer: refused, reset, timed out (socket.timeout is TimeoutError), or a
# send that kombu gave up on. Not RedisError as a whole: a wrong command is an answer.
SERVER_DOWN = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OperationalError,
    ConnectionError,
    TimeoutError,
)
# What a caller sees from a server that is down: its error, or the open breaker's.
UNAVAILABLE = (*SERVER_DOWN, pybreaker.CircuitBreakerError)


def _answered(error: BaseException) -> bool:
    """pybreaker's exclusion: every error but a server's silence leaves the breaker closed."""
    return not isinstance(error, SERVER_DOWN)


class LogStateChanges(pybreaker.CircuitBreakerListener):
    """One line when a server stops answering, one when it answers again; nothing per call."""

    def failure(self, cb: pybreaker.CircuitBreaker, exc: BaseException) -> None:
        cb.last_error = exc  # type: ignore[attr-defined]

    def state_change(
        self,
        cb: pybreaker.CircuitBreaker,
        old_state: pybreaker.CircuitBreakerState | None,
        new_state: pybreaker.CircuitBreakerState,
    ) -> None:
        was = old_state.name if old_state is not None else None
        if new_state.name == pybreaker.STATE_OPEN and was == pybreaker.STATE_CLOSED:
            logger.warning(
                "Redis at %s does not answer (%s): skipped for %s s, then tried again",
                cb.name,
                getattr(cb, "last_error", None),
                cb.reset_timeout,
            )
        elif new_state.name == pybreaker.STATE_OPEN and was == pybreaker.STATE_HALF_OPEN:
            logger.debug("Redis at %s still does not answer", cb.name)
        elif new_state.name == pybreaker.STATE_CLOSED and was not in (None, new_state.name):
            logger.info("Redis at %s answers again", cb.name)


class RedisBreaker(pybreaker.CircuitBreaker):
    """pybreaker's breaker, opened by the first failure, with two changes: the reset time is the
    REDIS_BREAKER_SECONDS setting of the moment, and a closed breaker does not hold its lock
    around the call (pybreaker's would queue every Redis call of a process's threads behind
    one another: a gunicorn worker runs 4)."""

    def __init__(self, name: str) -> None:
        super().__init__(
            fail_max=1,
            exclude=[_answered],
            listeners=[LogStateChanges()],
            name=name,
            throw_new_error_on_trip=False,  # the call that opens it raises the server's error
        )
        self.last_error: BaseException | None = None
        self._opening = threading.Lock()

    @property
    def reset_timeout(self) -> float:
        return float(settings.REDIS_BREAKER_SECONDS)

    def call(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self.current_state != pybreaker.STATE_CLOSED:
            # Open: CircuitBreakerError at once; past the reset time, pybreaker's half-open
            # state makes this the one trial call, under its lock.
            return super().call(func, *args, **kwargs)
        try:
            return func(*args, **kwargs)
        except BaseException as error:
            if self.is_system_error(error):
                with self._opening:  # two threads timing out together open it once
                    if self.current_state == pybreaker.STATE_CLOSED:
                        self.last_error = error
                        self.open()
            raise


_breakers: dict[str, RedisBreaker] = {}
_breakers_lock = threading.Lock()


def server_of(url: str) -> str:
    """host:port of a redis:// or rediss:// URL (the first of a list), or a unix socket's path."""
    parts = urlsplit(url.split(";")[0].split(",")[0].strip())
    if parts.scheme == "unix" or not parts.hostname:
        return parts.path or url
    return f"{parts.hostname}:{parts.port or 6379}"


def breaker_for(url: str) -> RedisBreaker:
    """This process's breaker for the Redis server of `url`."""
    server = server_of(url)
    with _breakers_lock:
        if server not in _breakers:
            _breakers[server] = RedisBreaker(server)
        return _breakers[server]


def _guarded(operation: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(operation)
    def guarded(self: BreakerRedisCacheClient, *args: Any, **kwargs: Any) -> T:
        return self.breaker.call(operation, self, *args, **kwargs)

    return guarded


class BreakerRedisCacheClient(RedisCacheClient):
    """Django's Redis client with every operation through its server's breaker."""

    def __init__(self, servers: list[str], **options: Any) -> None:
        super().__init__(servers, **options)
        self.breaker = breaker_for(servers[0])

    add = _guarded(RedisCacheClient.add)
    get = _guarded(RedisCacheClient.get)
    set = _guarded(RedisCacheClient.set)
    touch = _guarded(RedisCacheClient.touch)
    delete = _guarded(RedisCacheClient.delete)
    get_many = _guarded(RedisCacheClient.get_many)
    has_key = _guarded(RedisCacheClient.has_key)
    incr = _guarded(RedisCacheClient.incr)
    set_many = _guarded(RedisCacheClient.set_many)
    delete_many = _guarded(RedisCacheClient.delete_many)
    clear = _guarded(RedisCacheClient.clear)


class BreakerRedisCache(RedisCache):
    """Django's RedisCache through the breaker. OPTIONS["fail_open_key_prefixes"] names keys
    whose readers cannot take an exception (django-allauth's rate limits: a 500 on signing in):
    with Redis down they answer as an empty cache that takes every write, so the rate limit
    lets the request through (fails open) instead of failing it."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS", {}))
        self.fail_open_prefixes = tuple(options.pop("fail_open_key_prefixes", ()))
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = BreakerRedisCacheClient

    def _or_when_down(
        self, key: str, answer: Any, operation: Callable[..., Any], *args: Any, say: bool = False
    ) -> Any:
        try:
            return operation(key, *args)
        except UNAVAILABLE as error:
            if not key.startswith(self.fail_open_prefixes):
                raise
            if say:  # one line per limit checked (its read), not per operation
                logger.warning("Redis unavailable (%s): a rate limit let a request through", error)
            return answer

    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None):
        return self._or_when_down(key, True, super().add, value, timeout, version)

    def get(self, key: str, default: Any = None, version: Any = None) -> Any:
        return self._or_when_down(key, default, super().get, default, version, say=True)

    def set(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None):
        return self._or_when_down(key, None, super().set, value, timeout, version)

    def delete(self, key: str, version: Any = None) -> bool:
        return self._or_when_down(key, False, super().delete, version)
