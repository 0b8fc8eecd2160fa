"""What a rebuild announces to the pages (live push): its version, then the tables whose results
changed since the last build, so that only those tables' sheets and players' pages fetch again.
Heard by a real HTTP server standing in for nginx's publisher."""

import http.server
import socket
import threading

import pytest
from django.db.models import F
from django.utils import translation

from scoring import announce, standings, standings_html
from scoring.models import StageStandings
from tests import factories
from tests.scoring.helpers import play, seat_tables


class Heard(http.server.BaseHTTPRequestHandler):
    said: list[tuple[str, str]] = []
    # As nchan answers a GET on a channel's publisher address, for each language's channel: how
    # many pages listen, and how many seconds ago a page last opened it (-1: never) (a language
    # not here: no such channel, a 404; None: a 500).
    listening: dict[str, tuple[int, int] | None] = {}
    asked_who: list[str] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        Heard.said.append((self.path, body))
        self.send_response(201)
        self.end_headers()

    def do_GET(self):
        if self.path.startswith("/_live/publish/"):
            Heard.asked_who.append(self.path)
            code = self.path.rsplit("/", 1)[1]
            if code not in Heard.listening:
                self.send_response(404)
            elif Heard.listening[code] is None:
                self.send_response(500)
            else:
                subscribers, requested = Heard.listening[code]
                body = (
                    f'{{"messages": 1, "requested": {requested}, "subscribers": {subscribers}, '
                    '"last_message_id": "1795815980:0" }'
                ).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.end_headers()
            return
        names = ("Host", "X-Forwarded-Proto", "HX-Request", "Accept-Encoding")
        headers = [self.headers[name] for name in names]
        Heard.said.append(("GET " + self.path, " ".join(headers)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def publisher(settings):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Heard)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Heard.said, Heard.asked_who = [], []
    Heard.listening = {"en": (3, 40), "es": (1, 700)}
    settings.LIVE_PUBLISH_URL = f"http://127.0.0.1:{server.server_address[1]}/_live/publish/"
    yield Heard.said
    server.shutdown()


@pytest.mark.django_db(transaction=True)
def test_a_rebuild_names_the_tables_it_changed(publisher):
    stage = factories.StageFactory(status="seated", rounds=2)
    first, second = seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Eve", "Fay"]])
    tables = {t.number: t for t in stage.tables.all()}
    slug = stage.tournament.slug

    def said() -> str:
        return publisher[-1][1].removeprefix(f"{stage.pk}-{meta.built_seq}")

    one = play(stage, first, 1, [0, 5, 9])
    meta = standings.rebuild_standings(stage=stage)  # the first build: every part fetches
    assert publisher[-1] == (f"/_live/publish/{slug}", f"{stage.pk}-{meta.built_seq}")

    play(stage, second, 1, [4, 0, 7])
    meta = standings.rebuild_standings(stage=stage)
    assert said() == f" {tables[2].pk}"

    play(stage, second, 2, [3, 0, 8])
    meta = standings.rebuild_standings(stage=stage)
    # Only table 2 changed: table 1's sheet and players' pages do not fetch again.
    assert said() == f" {tables[2].pk}"

    # A correction (a new version of table 1's confirmed result) names table 1, and only it.
    one.version += 1
    one.save(update_fields=["version", "updated_at"])
    standings.request_rebuild(stage, results=True)
    meta = standings.rebuild_standings(stage=stage)
    assert said() == f" {tables[1].pk}"

    # A result entered, not yet confirmed: no public page shows it; the standings only.
    play(stage, first, 2, [0, 2, 2], status="submitted")
    meta = standings.rebuild_standings(stage=stage)
    assert said() == " -"

    # A change that is no result's (a seat, a name, a tie-break decision): every part.
    standings.request_rebuild(stage)
    meta = standings.rebuild_standings(stage=stage)
    assert said() == ""

    # Confirmed: its table. (The ranking now counts round 2; the other players' pages show
    # their new ranks at their next poll, the standings at once.)
    stage.round_results.filter(table=tables[1], round_no=2).update(
        status="confirmed", confirmed_by=F("submitted_by")
    )
    standings.request_rebuild(stage, results=True)
    meta = standings.rebuild_standings(stage=stage)
    assert meta.ranked_through == 2
    assert said() == f" {tables[1].pk}"


@pytest.mark.django_db
def test_changed_tables_compare_each_tables_digest_with_the_last_builds():
    stage = factories.StageFactory(status="seated", rounds=2)
    first, second = seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Eve", "Fay"]])
    one = play(stage, first, 1, [0, 5, 9])
    before = announce.table_digests(stage)
    assert list(before) == [str(one.table_id)]
    assert announce.changed_tables(before, announce.table_digests(stage)) == []
    two = play(stage, second, 1, [4, 0, 7])  # a new result
    assert announce.changed_tables(before, announce.table_digests(stage)) == [two.table_id]
    # A new version of a result, a result gone: its table.
    type(one).objects.filter(pk=one.pk).update(version=2)
    assert announce.changed_tables(before, announce.table_digests(stage)) == sorted(
        [one.table_id, two.table_id]
    )
    one.delete()
    assert announce.changed_tables(before, announce.table_digests(stage)) == sorted(
        [one.table_id, two.table_id]
    )
    # Not known (a first build, or built before digests were kept): every part fetches.
    assert announce.changed_tables(None, announce.table_digests(stage)) is None


@pytest.mark.django_db
def test_a_result_committed_after_the_digest_is_named_by_the_next_build(monkeypatch):
    """A result committed between a build's digest and its read of the results is counted
    without its table being named; the next build names it."""
    stage = factories.StageFactory(status="seated", rounds=2)
    first, second, third = seat_tables(
        stage, [["Ann", "Bob", "Cy"], ["Di", "Eve", "Fay"], ["Gus", "Hal", "Ida"]]
    )
    for players, pips in ((first, [0, 5, 9]), (second, [4, 0, 7]), (third, [6, 6, 0])):
        play(stage, players, 1, pips)
    standings.rebuild_standings(stage=stage)  # ranked through round 1; table 3 plays no more
    digests, to_name = announce.table_digests, announce.tables_to_name
    named = []

    def then_a_result_commits(stage_):
        read = digests(stage_)
        play(stage_, second, 2, [3, 0, 8])
        return read

    def recorded(before, now, *, every_page):
        named.append(to_name(before, now, every_page=every_page))
        return named[-1]

    monkeypatch.setattr(announce, "table_digests", then_a_result_commits)
    monkeypatch.setattr(announce, "tables_to_name", recorded)
    play(stage, first, 2, [0, 1, 1])  # the result this build is for
    meta = standings.rebuild_standings(stage=stage)
    assert meta.results_counted == 5  # both round-2 results counted...
    assert named[-1] == [stage.tables.get(number=1).pk]  # ...table 2's not named yet
    assert meta.stale  # its change came after the build began
    monkeypatch.setattr(announce, "table_digests", digests)
    standings.rebuild_standings(stage=stage)
    assert named[-1] == [stage.tables.get(number=2).pk]


def test_the_message_is_the_version_then_the_tables():
    assert announce.message("12-40", None) == "12-40"
    assert announce.message("12-40", [7, 9]) == "12-40 7,9"
    assert announce.message("12-40", []) == "12-40 -"  # the standings only


@pytest.mark.django_db(transaction=True)
def test_the_standings_at_a_new_version_are_fetched_through_nginx_before_the_pages_hear(
    publisher, settings
):
    """Each language's live part, at the address live.js asks and under the phones' host and
    scheme (nginx's cache key), so that the burst after the message finds it cached."""
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    meta = standings.rebuild_standings(stage=stage)
    slug, version = stage.tournament.slug, f"{stage.pk}-{meta.built_seq}"
    assert sorted(publisher[:2]) == [
        (f"GET /en/t/{slug}/?v={version}", "hall.example.org https true gzip"),
        (f"GET /es/t/{slug}/?v={version}", "hall.example.org https true gzip"),
    ]
    assert publisher[2:] == [  # then the message, to each language's channel and the plain one
        (f"/_live/publish/{slug}/en", version),
        (f"/_live/publish/{slug}/es", version),
        (f"/_live/publish/{slug}", version),
    ]


@pytest.mark.django_db(transaction=True)
def test_every_page_of_rows_is_fetched_through_nginx_before_the_pages_hear(
    publisher, settings, monkeypatch
):
    """A stage of 60 players in pages of 50 rows (scoring.standings_html) has two: a phone on
    either finds its page of the new version cached, the first pages fetched first."""
    monkeypatch.setattr(standings_html, "ROWS_PER_PAGE", 50)
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    stage = factories.StageFactory(status="seated", rounds=2)
    tables = seat_tables(stage, [[f"P{t}-{s}" for s in range(4)] for t in range(15)])
    for players in tables[:-1]:
        play(stage, players, 1, [0, 5, 9, 12])
    del publisher[:]
    play(stage, tables[-1], 1, [0, 5, 9, 12])  # its rebuild, inline here, announces
    slug = stage.tournament.slug
    version = f"{stage.pk}-{StageStandings.objects.get(stage=stage).built_seq}"
    assert sorted(path for path, _ in publisher[:2]) == [
        f"GET /en/t/{slug}/?v={version}",
        f"GET /es/t/{slug}/?v={version}",
    ]
    assert sorted(path for path, _ in publisher[2:4]) == [
        f"GET /en/t/{slug}/?page=2&v={version}",
        f"GET /es/t/{slug}/?page=2&v={version}",
    ]
    assert publisher[4][0] == f"/_live/publish/{slug}/en"  # then the message
    assert publisher[4][1].split()[0] == version


@pytest.mark.django_db(transaction=True)
def test_without_the_phones_origin_nothing_is_warmed(publisher, settings):
    settings.LIVE_PUBLIC_ORIGIN = ""
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    standings.rebuild_standings(stage=stage)
    slug = stage.tournament.slug
    assert [path for path, _ in publisher] == [
        f"/_live/publish/{slug}/en",
        f"/_live/publish/{slug}/es",
        f"/_live/publish/{slug}",
    ]
    assert Heard.asked_who == []  # nothing to warm: nobody asked who listens


@pytest.mark.django_db(transaction=True)
def test_the_worker_draws_the_standings_tables_before_announcing(publisher, settings):
    """So that the web's render of the warm fetch only wraps them: the tables of the new
    snapshot, in every language, are kept before the message goes out."""
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    meta = standings.rebuild_standings(stage=stage)
    for code, header in (("en", ">Total after round 1<"), ("es", ">Total tras la ronda 1<")):
        with translation.override(code):
            kept = standings_html.kept(standings_html.table_cache_key(stage, meta))
        assert kept is not None and header in kept[0] and "Ann" in kept[0], code
    with translation.override("es"):
        spanish = standings_html.kept(standings_html.table_cache_key(stage, meta))
    assert "/es/t/" in spanish[0] and "/en/t/" not in spanish[0]  # its links in its language


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "listening, warmed",
    [
        ({"en": (2, 30)}, ["en"]),  # no Spanish channel: nobody has opened a page in Spanish
        # The English channel has had versions published to it but no page ever opened it.
        ({"en": (0, -1), "es": (4, 5)}, ["es"]),
        # The English pages went yesterday: nothing drawn or warmed; the message still goes.
        ({"en": (0, 25 * 3600), "es": (0, -1)}, []),
        # nginx's worker that answered counts none, but a page opened the channel 10 minutes
        # ago (with two workers the count of a channel with one page says 0 for a second or
        # two at a time, about a third of the asks).
        ({"en": (0, 600)}, ["en"]),
        # One page has listened since yesterday: it is counted.
        ({"es": (1, 30 * 3600)}, ["es"]),
    ],
)
def test_a_new_version_is_drawn_and_warmed_only_in_the_languages_pages_listen_in(
    publisher, settings, listening, warmed
):
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    Heard.listening = listening
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    meta = standings.rebuild_standings(stage=stage)
    slug, version = stage.tournament.slug, f"{stage.pk}-{meta.built_seq}"
    assert sorted(Heard.asked_who) == [f"/_live/publish/{slug}/en", f"/_live/publish/{slug}/es"]
    assert [path for path, _ in publisher if path.startswith("GET")] == [
        f"GET /{code}/t/{slug}/?v={version}" for code in warmed
    ]
    for code in ("en", "es"):
        with translation.override(code):
            kept = standings_html.kept(standings_html.table_cache_key(stage, meta))
        assert (kept is not None) == (code in warmed), code
    assert [path for path, _ in publisher if not path.startswith("GET")] == [
        f"/_live/publish/{slug}/en",
        f"/_live/publish/{slug}/es",
        f"/_live/publish/{slug}",
    ]


@pytest.mark.django_db(transaction=True)
def test_when_nginx_cannot_say_who_listens_every_language_is_warmed(publisher, settings, caplog):
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    Heard.listening = {"en": (0, -1), "es": None}  # the Spanish channel's answer: a 500
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    with caplog.at_level("WARNING", logger="scoring.announce"):
        meta = standings.rebuild_standings(stage=stage)
    slug, version = stage.tournament.slug, f"{stage.pk}-{meta.built_seq}"
    assert sorted(path for path, _ in publisher if path.startswith("GET")) == [
        f"GET /en/t/{slug}/?v={version}",
        f"GET /es/t/{slug}/?v={version}",
    ]
    assert f"who listens to {slug} in es" in caplog.text


class OtherHost(http.server.BaseHTTPRequestHandler):
    """A second web host's nginx: the warm fetches it is asked, with the Host they name."""

    asked: list[tuple[str, str]] = []

    def do_GET(self):
        OtherHost.asked.append((self.path, self.headers["Host"]))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def other_host():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), OtherHost)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    OtherHost.asked = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.django_db(transaction=True)
def test_a_new_version_is_warmed_at_every_host_and_announced_once(publisher, other_host, settings):
    # Two web hosts, each nginx with a cache of its own; the message goes to one publisher,
    # whose nchan (in Redis) passes it to both hosts' pages.
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    first_host = settings.LIVE_PUBLISH_URL.removesuffix("/_live/publish/")
    settings.LIVE_WARM_URLS = [first_host, other_host]
    stage = factories.StageFactory(status="seated", rounds=2)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, players, 1, [0, 5, 9])
    meta = standings.rebuild_standings(stage=stage)
    slug, version = stage.tournament.slug, f"{stage.pk}-{meta.built_seq}"
    warmed = [f"/en/t/{slug}/?v={version}", f"/es/t/{slug}/?v={version}"]
    assert sorted(path.removeprefix("GET ") for path, _ in publisher[:2]) == warmed
    assert sorted(OtherHost.asked) == [(path, "hall.example.org") for path in warmed]
    assert [path for path, _ in publisher[2:]] == [
        f"/_live/publish/{slug}/en",
        f"/_live/publish/{slug}/es",
        f"/_live/publish/{slug}",
    ]


@pytest.mark.django_db(transaction=True)
def test_a_host_that_is_down_is_asked_its_first_pages_only_and_the_others_are_warmed(
    publisher, other_host, settings, caplog
):
    settings.LIVE_PUBLIC_ORIGIN = "https://hall.example.org"
    down = f"http://127.0.0.1:{closed_port()}"
    settings.LIVE_WARM_URLS = [down, other_host]
    with caplog.at_level("WARNING", logger="scoring.announce"):
        hosts = announce.warm("busy-hall", "7-3", pages=3, languages=["en", "es"])
    assert hosts == 1
    assert len(OtherHost.asked) == 6  # three pages of rows in two languages
    failed = [r.getMessage() for r in caplog.records if "could not warm" in r.getMessage()]
    assert len(failed) == 2 and all(down in message for message in failed), failed
    assert all("page=" not in message for message in failed)  # not its further pages


def test_a_host_name_is_warmed_at_each_of_its_addresses(settings):
    settings.LIVE_PUBLISH_URL = "http://127.0.0.1:8180/_live/publish/"
    settings.LIVE_WARM_URLS = []
    assert announce.warm_hosts() == ["http://127.0.0.1:8180"]  # one host: the publisher's
    settings.LIVE_WARM_URLS = ["http://localhost:8181", "http://127.0.0.1:8181"]
    assert announce.warm_hosts() == ["http://127.0.0.1:8181"]  # localhost is 127.0.0.1, once
    # An https address is asked by its name (its certificate names the host, not an address);
    # a name that does not resolve is left out.
    settings.LIVE_WARM_URLS = ["https://web-2.example.org", "http://no-such-host.invalid:8080"]
    assert announce.warm_hosts() == ["https://web-2.example.org"]
