"""An origin that has fallen behind, through nginx on the stack (deploy/nginx.conf,
config/queue_limit.py): a public request that waited for gunicorn longer than
PUBLIC_QUEUE_LIMIT_SECONDS is turned away at once, and the phone gets nginx's copy of the page
when nginx has one, or a short notice that reloads itself when it has none, never kept; the
worker's warm fetch of a new version, which every phone waits for, is served however long it
waited. Behind, here, is the public pool stopped (SIGSTOP) for longer than the limit: every
request sent to it meanwhile waits, as behind a queue."""

import concurrent.futures
import contextlib
import os
import signal
import time
from collections.abc import Iterator

import pytest

from tests.integration.test_proxy import fetch, gunicorn_log, text_of
from tests.integration.test_stack import Stack, started_stack

pytestmark = pytest.mark.services

LIMIT_SECONDS = 1.0


@pytest.fixture
def stack(private_redis, tmp_path) -> Iterator[Stack]:
    # A page kept 1 s and then revalidated with the origin before it is served (no
    # stale-while-revalidate), so that a phone asking for it waits on the origin.
    yield from started_stack(
        private_redis,
        tmp_path,
        PUBLIC_STALE_SECONDS="0",
        PUBLIC_QUEUE_LIMIT_SECONDS=str(LIMIT_SECONDS),
    )


@contextlib.contextmanager
def public_pool_stopped(stack: Stack) -> Iterator[None]:
    """gunicorn's public pool (deploy/stack.sh's "web": its master and workers, a process
    group of their own) stopped until the block ends."""
    group = int((stack.directory / "web.pid").read_text())
    os.killpg(group, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(group, signal.SIGCONT)


def test_a_phone_gets_nginx_copy_or_a_short_notice_while_the_origin_is_behind(stack):
    stack.open_event("Busy Night", "busy-night", players=8)
    standings, player = "/en/t/busy-night/", "/en/t/busy-night/players/3/"
    phone = {"Accept": "text/html", "Accept-Encoding": "gzip"}
    kept = fetch(stack, standings, headers=phone)
    assert kept.status == 200, kept.body
    assert kept.cache in {"MISS", "EXPIRED"}, kept.headers
    time.sleep(2.2)  # past its max-age: the next request for it goes to the origin first

    warm_headers = {**phone, "HX-Request": "true", "X-Roundhouse-Warm": "1"}
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        with public_pool_stopped(stack):
            copy = pool.submit(fetch, stack, standings, headers=phone)
            notice = pool.submit(fetch, stack, player, headers=phone)
            warm = pool.submit(fetch, stack, f"{standings}?v=busy-1", headers=warm_headers)
            time.sleep(LIMIT_SECONDS + 1.5)
        copy, notice, warm = copy.result(), notice.result(), warm.result()

    # The standings nginx kept: its copy, as it was (the origin turned the revalidation away).
    assert copy.status == 200, copy.body
    assert copy.cache == "STALE", copy.headers
    assert copy.body == kept.body
    # A player's page nginx had not kept: the notice, which asks the browser to come back.
    assert notice.status == 503, notice.body
    assert notice.headers["Retry-After"] == "3"
    assert "Busy, one moment" in text_of(notice)
    assert '<meta http-equiv="refresh" content="3">' in text_of(notice)
    # The worker's warm fetch waited as long, and was served.
    assert warm.status == 200, warm.body
    assert "The tables have not been seated yet" in text_of(warm)  # the standings, as they are

    log = gunicorn_log(stack)
    assert f'"GET {standings} HTTP/1.1" 503' in log
    assert f'"GET {player} HTTP/1.1" 503' in log
    # Once the origin keeps up, the player's page is served: the notice was never kept.
    again = fetch(stack, player, headers=phone)
    assert again.status == 200, again.body
    assert again.cache == "MISS", again.headers
    assert "Player 03" in text_of(again)
