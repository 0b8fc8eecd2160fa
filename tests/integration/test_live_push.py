"""Live push through nginx's nchan (deploy/nginx.conf, scoring/announce.py, live.js): a confirmed
result's new version reaches a subscriber of /live/<slug>/<language>/ within moments of the
confirmation, the pages' parts fetched at that version come from nginx's cache after the first
(in the languages pages listen in), the publisher answers this machine only, and an announce
that cannot reach nginx costs a rebuild nothing."""

import concurrent.futures
import gzip
import http.client
import logging
import queue
import re
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from scoring import announce, standings
from tests import factories
from tests.conftest import services_missing
from tests.integration.test_proxy import Answer, fetch, gunicorn_log
from tests.integration.test_stack import Stack, play_round, wait_for
from tests.integration.test_stack import stack as stack  # the fixture: one stack per module
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.services

NCHAN_MODULE = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")


@pytest.fixture(autouse=True)
def nchan_installed(request) -> None:
    """Without the module stack.sh starts nginx without live push, and there would be nothing
    to test: said before each test that takes the (module's) stack."""
    if "stack" in request.fixturenames and not NCHAN_MODULE.exists():
        services_missing(
            "nginx's nchan module is not installed (apt-get install libnginx-mod-nchan)"
        )


class Subscriber:
    """An EventSource as a page holds it: one streaming GET of /live/<slug>/<language>/ through
    nginx (`channel`: "<slug>/en"; "<slug>" the channel of pages from before the languages had
    their own), each message's data with the moment it arrived."""

    def __init__(self, stack: Stack, channel: str) -> None:
        self.messages: queue.Queue[tuple[float, str]] = queue.Queue()
        self.connection = http.client.HTTPConnection("127.0.0.1", stack.nginx_port, timeout=60)
        self.connection.request("GET", f"/live/{channel}/", headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, (self.response.status, self.response.read()[:300])
        assert self.response.headers["Content-Type"].startswith("text/event-stream")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while line := self.response.readline():
                if line.startswith(b"data:"):
                    self.messages.put((time.monotonic(), line[5:].strip().decode()))
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            # Closed by close(). A chunked stream (through a balancer) closed under
            # http.client's read of a chunk's size fails in its clean-up (AttributeError).
            pass

    def next(self, timeout: float) -> tuple[float, str]:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message on the live channel within {timeout} s") from None

    def close(self) -> None:
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def page_path(stack: Stack, path: str) -> str:
    """Where a public page lives now: its address, or where that redirects (the language's)."""
    for _ in range(3):
        answer = fetch(stack, path, headers={"Accept": "text/html", "Accept-Language": "en"})
        if answer.status not in (301, 302):
            assert answer.status == 200, (path, answer.status, answer.body[:300])
            return path
        path = urlsplit(answer.headers["Location"]).path
    raise AssertionError(f"{path}: redirected too often")


def total_of(body: bytes, name: str) -> int:
    """A player's total in the standings table (its row's <strong>)."""
    found = re.search(rf"{re.escape(name)}</a>.*?<strong>(\d+)</strong>", body.decode(), re.S)
    assert found, body[:2000]
    return int(found[1])


def versioned_part(stack: Stack, path: str, version: str) -> Answer:
    """A part of a page as live.js fetches it at a version: HTMX's request, with ?v=, from a
    browser that takes gzip (the body decompressed here)."""
    answer = fetch(
        stack,
        f"{path}?v={version}",
        headers={
            "Accept": "text/html",
            "HX-Request": "true",
            "Accept-Language": "en",
            "Accept-Encoding": "gzip, deflate, br, zstd",
        },
    )
    if answer.headers.get("Content-Encoding") == "gzip":
        answer.body = gzip.decompress(answer.body)
    return answer


def test_live_push_brings_a_confirmed_result_to_the_pages_through_nginx(stack):
    stack.open_event("Push Night", "push-night", players=4)  # one table: its totals count at once
    stage = stack.request(
        "POST",
        "/api/v1/tournaments/push-night/stages/",
        {"name": "Qualifying", "kind": "qualifying", "starting_double": 12, "rounds": 2,
         "table_size_min": 4, "table_size_max": 4},
    ).json()  # fmt: skip
    seated = stack.request("POST", f"/api/v1/stages/{stage['id']}/seat/", {"seed": 5})
    assert seated.status == 200, seated.body
    wait_for(
        lambda: stack.get(f"/api/v1/stages/{stage['id']}/standings/"),
        lambda body: body["stale"] is False,
        "the seating's standings snapshot",
        timeout=30,
    )

    # A page that connects after the seating's rebuild hears its version at once (the channel
    # keeps its newest message).
    subscriber = Subscriber(stack, "push-night/en")
    from_before = Subscriber(stack, "push-night")  # a page from before, on the plain channel
    try:
        _, seated_version = subscriber.next(timeout=5)
        assert re.fullmatch(rf"{stage['id']}-\d+", seated_version), seated_version
        assert from_before.next(timeout=5)[1] == seated_version

        table = seated.json()[0]
        watched = next(seat for seat in table["seats"] if seat["position"] != 1)
        name = watched["player"]["name"]
        path = page_path(stack, "/t/push-night/")
        assert total_of(versioned_part(stack, path, seated_version).body, name) == 0

        play_round(stack, table, 1)  # returns on the confirmation's 200
        confirmed = time.monotonic()
        heard, said = subscriber.next(timeout=5)
        # The version, then the tables whose results changed: this one (only its sheet and its
        # players' pages fetch again; the standings always do).
        version, _, tables = said.partition(" ")
        assert tables == str(table["id"]), said
        assert version != seated_version and version.startswith(f"{stage['id']}-"), version
        assert heard - confirmed < 2.0, f"the new version came {heard - confirmed:.2f} s after"
        assert from_before.next(timeout=5)[1] == said

        # The part at the new version shows the new number, and is in nginx's cache before the
        # pages hear of it (the worker fetched it there first): the phones' first ask is a HIT.
        first = versioned_part(stack, path, version)
        assert first.status == 200, first.body[:500]
        assert total_of(first.body, name) == watched["player"]["number"] + 1
        assert first.cache == "HIT", first.headers
        second = versioned_part(stack, path, version)
        assert (second.cache, second.body) == ("HIT", first.body), second.headers
        # No page listens in Spanish: the worker did not warm it (nginx asked it of gunicorn
        # only now), and it shows the same number.
        spanish = versioned_part(stack, path.replace("/en/", "/es/", 1), version)
        assert spanish.status == 200 and spanish.cache == "MISS", spanish.headers
        assert total_of(spanish.body, name) == watched["player"]["number"] + 1

        # A burst of phones at the next version: one request reaches gunicorn (the worker's).
        play_round(stack, table, 2)
        _, said = subscriber.next(timeout=5)
        burst_version = said.partition(" ")[0]
        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(
                pool.map(lambda _: versioned_part(stack, path, burst_version), range(20))
            )
        assert {answer.status for answer in answers} == {200}
        asked = f'"GET {path}?v={burst_version} HTTP/1.1"'
        assert gunicorn_log(stack).count(asked) == 1, [a.cache for a in answers]
    finally:
        subscriber.close()
        from_before.close()


def test_a_language_a_page_listens_in_is_read_whichever_nginx_worker_answers(stack, settings):
    # nginx runs a worker a core, and nchan counts a channel's subscribers per worker: a GET
    # answered by a worker that holds none of them may say 0 for a second or two at a time
    # (for some channels, as their owner and the page's worker fall). Six tournaments, each
    # with a version published to its channels (as the seating's rebuild does) and one English
    # page, asked about for a few seconds: English is read at every ask, Spanish never.
    settings.LIVE_PUBLISH_URL = f"http://127.0.0.1:{stack.nginx_port}/_live/publish/"
    slugs = [f"busy-night-{n}" for n in range(6)]
    assert [announce.watched_languages(slug) for slug in slugs] == [[]] * 6  # no channel yet
    for slug in slugs:
        for code in ("en", "es"):
            published = fetch(stack, f"/_live/publish/{slug}/{code}", method="POST", body=b"1-1")
            assert published.status in (201, 202), published.body
    assert [announce.watched_languages(slug) for slug in slugs] == [[]] * 6  # nobody opened one
    subscribers = [Subscriber(stack, f"{slug}/en") for slug in slugs]
    try:
        for _ in range(30):
            assert [announce.watched_languages(slug) for slug in slugs] == [["en"]] * 6, [
                fetch(stack, f"/_live/publish/{slug}/en").body for slug in slugs
            ]
            time.sleep(0.1)
    finally:
        for subscriber in subscribers:
            subscriber.close()


def test_live_publisher_answers_this_machine_only(stack):
    stack.open_event("Quiet Night", "quiet-night", players=4)
    subscriber = Subscriber(stack, "quiet-night")
    try:
        # From another address than 127.0.0.1 (127.0.0.2 is this machine too, but not allowed),
        # and passed on by a proxy on this machine (X-Forwarded-For): refused.
        other = http.client.HTTPConnection(
            "127.0.0.1", stack.nginx_port, timeout=5, source_address=("127.0.0.2", 0)
        )
        other.request("POST", "/_live/publish/quiet-night", body=b"1-99")
        assert other.getresponse().status == 403
        other.close()
        proxied = fetch(
            stack,
            "/_live/publish/quiet-night",
            method="POST",
            body=b"1-98",
            headers={"X-Forwarded-For": "203.0.113.9"},
        )
        assert proxied.status == 403
        with pytest.raises(AssertionError, match="no message"):
            subscriber.next(timeout=1)

        # The app's own announce, from this machine: heard.
        own = fetch(stack, "/_live/publish/quiet-night", method="POST", body=b"1-97")
        assert own.status in (201, 202), own.body
        assert subscriber.next(timeout=2)[1] == "1-97"
    finally:
        subscriber.close()


def standings_stage():
    """A seated table of three with round 1 confirmed, owed a rebuild."""
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    return stage


@pytest.mark.django_db(transaction=True)
def test_announce_to_a_closed_port_leaves_the_rebuild_done_and_warns(settings, caplog):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    settings.LIVE_PUBLISH_URL = f"http://127.0.0.1:{closed}/_live/publish/"
    stage = standings_stage()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="scoring.announce"):
        meta = standings.rebuild_standings(stage=stage)  # its own transaction: on_commit runs
    assert time.monotonic() - started < 2.0
    meta.refresh_from_db()
    assert meta.results_counted == 1 and meta.built_seq == meta.change_seq
    warnings = [r.getMessage() for r in caplog.records if r.name == "scoring.announce"]
    assert warnings and f"{stage.pk}-{meta.built_seq}" in warnings[0], warnings


def test_announce_to_a_publisher_that_never_answers_gives_up_quickly(settings, caplog):
    # A port that takes the connection (the kernel's backlog) and never answers: a hung nginx.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        settings.LIVE_PUBLISH_URL = f"http://127.0.0.1:{silent.getsockname()[1]}/_live/publish/"
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="scoring.announce"):
            took = announce.announce_rebuild(slug="any", stage_id=1, built_seq=2)
        elapsed = time.monotonic() - started
    assert took is False
    assert elapsed < 3 * announce.TIMEOUT_SECONDS, elapsed
    assert any("1-2" in r.getMessage() for r in caplog.records if r.name == "scoring.announce")


def test_announce_is_off_without_a_publisher(settings, caplog):
    settings.LIVE_PUBLISH_URL = ""
    with caplog.at_level(logging.INFO, logger="scoring.announce"):
        assert announce.announce_rebuild(slug="any", stage_id=1, built_seq=2) is False
    assert not [r for r in caplog.records if r.name == "scoring.announce"]


@pytest.mark.django_db
@pytest.mark.parametrize("publisher", ["", "http://127.0.0.1:9/_live/publish/"])
def test_live_parts_name_their_tournament_only_where_versions_are_announced(
    client, settings, publisher
):
    settings.LIVE_PUBLISH_URL = publisher
    stage = standings_stage()
    meta = standings.rebuild_standings(stage=stage)
    slug = stage.tournament.slug
    page = client.get(f"/t/{slug}/", follow=True, headers={"Accept-Language": "en"})
    assert page.status_code == 200
    listens = f'data-live-slug="{slug}" data-live-version="{stage.pk}-{meta.built_seq}"'
    assert (listens in page.content.decode()) == bool(publisher)
    assert ("data-live-slug" in page.content.decode()) == bool(publisher)
