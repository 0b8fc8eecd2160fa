"""Health endpoints for load balancers and orchestrators: `live` (the process answers) and
`ready` (PostgreSQL, the Redis cache and the Celery broker answer, each within a deadline)."""

import copy
import logging
import threading
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config import redis_keys

logger = logging.getLogger(__name__)

# A probe runs every few seconds: a dependency slower than this counts as down.
CHECK_TIMEOUT_SECONDS = 2.0
# libpq's connect_timeout is in whole seconds, and values below 2 are raised to 2.
DATABASE_CONNECT_TIMEOUT_SECONDS = 2


@never_cache
@require_safe
def live(request: HttpRequest) -> JsonResponse:
    """200 while the process can answer at all: no database, no Redis."""
    return JsonResponse({"status": "ok"})


def check_database() -> None:
    """`SELECT 1` on a connection of its own, so a hung probe never holds a request's."""
    wrapper = connections.create_connection(DEFAULT_DB_ALIAS)
    wrapper.settings_dict = copy.deepcopy(wrapper.settings_dict)
    if wrapper.vendor == "postgresql":
        options = wrapper.settings_dict.setdefault("OPTIONS", {})
        options["connect_timeout"] = DATABASE_CONNECT_TIMEOUT_SECONDS
    try:
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        wrapper.close()


def check_cache() -> None:
    """A write and a read back: a Redis that answers PING but refuses writes is not ready."""
    key, value = redis_keys.health_ready(), uuid.uuid4().hex
    cache.set(key, value, timeout=10)
    if cache.get(key) != value:
        raise RuntimeError("the value written was not read back")


def check_broker() -> None:
    """Connect to the broker with the Celery app's own settings (their socket timeouts)."""
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=0)


def checks_to_run() -> dict[str, Callable[[], None]]:
    checks: dict[str, Callable[[], None]] = {"database": check_database}
    if settings.REDIS_URL:
        checks["cache"] = check_cache
    if not settings.CELERY_TASK_ALWAYS_EAGER:  # set when CELERY_BROKER_URL is
        checks["broker"] = check_broker
    return checks


def run_checks(
    checks: dict[str, Callable[[], None]], timeout: float = CHECK_TIMEOUT_SECONDS
) -> dict[str, str]:
    """Run every check in parallel in daemon threads; one still running at the deadline failed.

    Daemon threads, not an executor: a check stuck on a frozen server must not keep a
    gunicorn worker from exiting.
    """
    outcomes: dict[str, str] = {}

    def run(name: str, check: Callable[[], None]) -> None:
        try:
            check()
        except Exception as error:
            logger.warning("health: %s check failed: %r", name, error)
            outcomes[name] = f"failed: {type(error).__name__}"
        else:
            outcomes[name] = "ok"

    threads = [
        threading.Thread(target=run, args=(name, check), name=f"health-{name}", daemon=True)
        for name, check in checks.items()
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    results = {}
    for name in checks:
        if name in outcomes:
            results[name] = outcomes[name]
        else:
            logger.warning("health: %s check timed out after %.1f s", name, timeout)
            results[name] = f"failed: no answer within {timeout:g} s"
    return results


@never_cache
@require_safe
def ready(request: HttpRequest) -> JsonResponse:
    """200 with each check's status when every dependency answers; 503 naming the failed ones."""
    results = run_checks(checks_to_run())
    failed = [name for name, outcome in results.items() if outcome != "ok"]
    if failed:
        body = {"status": "unavailable", "failed": failed, "checks": results}
        return JsonResponse(body, status=503)
    return JsonResponse({"status": "ok", "checks": results})
