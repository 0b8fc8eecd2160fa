"""An origin that has fallen behind, through nginx on the stack (deploy/nginx.conf,
config/queue_limit.py). A public request that waited for gunicorn longer than
PUBLIC_QUEUE_LIMIT_SECONDS is turned away at once:
- a page nginx keeps: the phones get nginx's copy without waiting on the origin, and nginx's
  background refresh, turned away, leaves the copy as it was;
- a page nginx does not keep: the phones get a short notice that reloads itself, one of them
  from the origin and the others, waiting on nginx's cache lock, from nginx (kept a second);
- the worker's warm fetch of a new version, which every phone waits for, and everything of the
  staff's pool (a token's write), are served however long they waited.
Behind, here, is each gunicorn pool stopped (SIGSTOP) for longer than the limit: every request
sent to it meanwhile waits, as behind a queue."""

import concurrent.futures
import contextlib
import os
import signal
import time
from collections.abc import Iterator

import pytest

from tests.integration.test_proxy import fetch, gunicorn_log, text_of
from tests.integration.test_stack import Stack, started_stack, wait_for

pytestmark = pytest.mark.services

LIMIT_SECONDS = 0.5


@pytest.fixture
def stack(private_redis, tmp_path) -> Iterator[Stack]:
    yield from started_stack(private_redis, tmp_path, PUBLIC_QUEUE_LIMIT_SECONDS=str(LIMIT_SECONDS))


@contextlib.contextmanager
def stopped(stack: Stack, *roles: str) -> Iterator[None]:
    """deploy/stack.sh's processes of these roles ("web": the public's gunicorn, "staff": the
    staff's; each its master and workers, a process group of its own) stopped until the block
    ends."""
    groups = [int((stack.directory / f"{role}.pid").read_text()) for role in roles]
    for group in groups:
        os.killpg(group, signal.SIGSTOP)
    try:
        yield
    finally:
        for group in groups:
            os.killpg(group, signal.SIGCONT)


def logged(stack: Stack, line: str) -> str:
    return wait_for(lambda: gunicorn_log(stack), lambda log: line in log, line, timeout=10)


def test_while_the_origin_is_behind_phones_get_a_copy_or_a_notice_and_nothing_sent_is_lost(
    stack,
):
    stack.open_event("Busy Night", "busy-night", players=8)
    standings, player = "/en/t/busy-night/", "/en/t/busy-night/players/3/"
    phone = {"Accept": "text/html", "Accept-Encoding": "gzip"}
    kept = fetch(stack, standings, headers=phone)
    assert kept.status == 200, kept.body
    assert kept.cache in {"MISS", "EXPIRED"}, kept.headers
    time.sleep(2.2)  # past its max-age: nginx refreshes it at the next request

    warm_headers = {**phone, "HX-Request": "true", "X-Roundhouse-Warm": "1"}
    newcomer = {"number": 9, "name": "Player 09"}
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        with stopped(stack, "web", "staff"):
            # Answered while the origin is stopped: nginx's copy, as it was.
            copy = fetch(stack, standings, headers=phone)
            notices = [pool.submit(fetch, stack, player, headers=phone) for _ in range(3)]
            warm = pool.submit(fetch, stack, f"{standings}?v=busy-1", headers=warm_headers)
            sent = pool.submit(
                stack.request, "POST", "/api/v1/tournaments/busy-night/players/", newcomer
            )
            time.sleep(LIMIT_SECONDS + 0.8)
        notices = [notice.result() for notice in notices]
        warm, sent = warm.result(), sent.result()

    assert copy.status == 200, copy.body
    assert copy.cache == "STALE", copy.headers
    assert copy.body == kept.body
    # nginx's refresh of it reached the origin late, and was turned away.
    logged(stack, f'"GET {standings} HTTP/1.1" 503')

    # A player's page nginx had not kept: the notice, which asks the browser to come back.
    for notice in notices:
        assert notice.status == 503, notice.body
        assert notice.headers["Retry-After"] == "3"
        assert "Busy, one moment" in text_of(notice)
        assert '<meta http-equiv="refresh" content="3">' in text_of(notice)
    # One from the origin; the two waiting on nginx's lock got its copy, not a turn each.
    assert sorted(n.cache for n in notices) == ["HIT", "HIT", "MISS"], [n.headers for n in notices]
    logged(stack, f'"GET {player} HTTP/1.1" 503')
    assert gunicorn_log(stack).count(f'"GET {player} HTTP/1.1"') == 1

    # The worker's warm fetch and the organiser's new player waited as long, and were served.
    assert warm.status == 200, warm.body
    assert "The tables have not been seated yet" in text_of(warm)  # the standings, as they are
    assert sent.status == 201, sent.body
    assert stack.get("/api/v1/tournaments/busy-night/players/")[-1]["name"] == "Player 09"

    # Once the origin keeps up: the standings' copy was not replaced by the 503, and the
    # player's page comes (the notice, kept a second, may answer once more while nginx
    # fetches the page behind it).
    after = fetch(stack, standings, headers=phone)
    assert after.status == 200, (after.status, after.headers)
    page = wait_for(
        lambda: fetch(stack, player, headers=phone),
        lambda answer: answer.status == 200,
        "the player's page, once the origin keeps up",
        timeout=10,
    )
    assert "Player 03" in text_of(page)
