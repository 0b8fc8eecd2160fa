"""A stalled database costs a request seconds, not gunicorn's 30 s and nginx's HTML 504: behind
nginx (deploy/stack.sh), a request that waits on a lock past DJANGO_DB_LOCK_TIMEOUT gets a 503
with Retry-After, in the API's JSON error shape under /api/ and the site's 503 page elsewhere."""

import json
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from tests.integration.test_proxy import fetch
from tests.integration.test_stack import Stack, started_stack

pytestmark = pytest.mark.services

LOCK_TIMEOUT = 2
HELD_SECONDS = 12


@pytest.fixture
def stack(private_redis, tmp_path) -> Iterator[Stack]:
    yield from started_stack(
        private_redis,
        tmp_path,
        DJANGO_DB_LOCK_TIMEOUT=str(LOCK_TIMEOUT),
        DJANGO_DB_STATEMENT_TIMEOUT="5",
    )


def test_a_request_waiting_on_a_locked_table_gets_a_503_within_the_lock_timeout(stack):
    stack.open_event("Lock Night", "lock-night", players=4)
    locked, release = threading.Event(), threading.Event()

    def hold_the_tournaments() -> None:
        """Another connection (a migration, a stuck transaction) holds the table."""
        with psycopg.connect(f"{stack.pg_url}/{stack.database}") as conn:
            conn.execute("LOCK TABLE tournaments_tournament IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(HELD_SECONDS)

    holder = threading.Thread(target=hold_the_tournaments)
    holder.start()
    try:
        assert locked.wait(10)
        answers = []
        for path in ("/api/v1/tournaments/lock-night/", "/en/t/lock-night/"):
            started = time.monotonic()
            answers.append((fetch(stack, path), time.monotonic() - started))
    finally:
        release.set()
        holder.join()

    (api, api_seconds), (page, page_seconds) = answers
    assert api.status == 503, api.body[:300]
    assert api.headers["Content-Type"] == "application/json"
    assert json.loads(api.body)["detail"] == (
        "The database is not answering in time: try again in a few seconds."
    )
    assert int(api.headers["Retry-After"]) > 0
    assert page.status == 503 and b"Busy, one moment" in page.body
    assert int(page.headers["Retry-After"]) > 0
    for seconds in (api_seconds, page_seconds):
        assert LOCK_TIMEOUT - 0.5 < seconds < LOCK_TIMEOUT + 3
