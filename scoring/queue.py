"""Sending Celery tasks by name (config/task_names.py): the modules the tasks call (the
standings, a stage's close, the clubs' ratings and ladders) send them without importing the task
modules, which import them."""

import logging
from typing import Any

import redis.exceptions
from celery import current_app
from django.core.cache import cache

from config.redis_breaker import breaker_for

logger = logging.getLogger(__name__)


def send(
    name: str, *, countdown: float | None = None, queue: str | None = None, **kwargs: Any
) -> None:
    """Queue the task `name` with keyword arguments (run at once where tasks run inline), on
    `queue` when one is named, else the default queue (settings.CELERY_TASK_DEFAULT_QUEUE).

    To a broker, through its server's breaker (config/redis_breaker.py): after a send or a
    cache call there timed out, sends raise at once for a while, and the callers leave the work
    to the beat sweeper, which resends the rebuilds and advances still owed (a game's close, to
    the organiser's button). Inline, a task is never skipped."""
    task = current_app.tasks[name]
    if current_app.conf.task_always_eager:
        task.apply_async(kwargs=kwargs, countdown=countdown)
        return
    policy = {
        **(current_app.conf.task_publish_retry_policy or {}),
        "errback": _no_retry_after_a_timeout,
    }
    options = {"queue": queue} if queue else {}
    breaker = breaker_for(current_app.conf.broker_url)
    breaker.call(
        task.apply_async, kwargs=kwargs, countdown=countdown, retry_policy=policy, **options
    )


def _no_retry_after_a_timeout(error: Exception, interval: float) -> None:
    """kombu's hook before it reconnects to retry a send: a broker that did not answer in its
    socket timeout is frozen, and another try (a connection, a second send) would double the
    wait; a refused or reset connection (a restarted Redis) is still retried."""
    if isinstance(error, (TimeoutError, redis.exceptions.TimeoutError)):
        raise error


def send_once(
    key: str,
    name: str,
    *,
    pending: float,
    countdown: float,
    queue: str | None = None,
    **kwargs: Any,
) -> None:
    """Send the task `name` once for a burst of changes: while `key` is in the cache (`pending`
    seconds, or until the task starts and deletes it), a later call sends nothing, as the queued
    run will see its change. Never raises: with the cache down it sends anyway; a send that
    failed forgets the key, so the next change sends again (and the beat sweepers resend what is
    still owed)."""
    try:
        if not cache.add(key, 1, timeout=pending):
            return
    except Exception:
        logger.warning("%s: cache unavailable, sending %s anyway", name, kwargs)
    try:
        send(name, countdown=countdown, queue=queue, **kwargs)
    except Exception:
        logger.warning("could not send %s %s", name, kwargs, exc_info=True)
        try:
            cache.delete(key)
        except Exception:
            logger.warning("%s: cache unavailable, %s stays until it expires", name, key)


def run_started(key: str, what: str) -> None:
    """The start of a task that send_once sent under `key`: from here on a new change sends a
    new run, as this one may have read too early for it. Never raises: with the cache down the
    key expires by itself (send_once's `pending`)."""
    try:
        cache.delete(key)
    except Exception:
        logger.warning("%s: cache unavailable as a run starts; %s expires by itself", what, key)
