"""The pure parts of the hall benchmark (bench/hall_parts.py): the phones' pages and schedule,
the access-log lines, confirmation-to-phone, percentiles. No stack: the benchmark itself runs
by hand (bench/hall.py)."""

import asyncio
import concurrent.futures
import json
import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import hall_parts
import hall_phones
from hall_phones import Crowd, Heard, _Channel
from loadgen import percentile, run_in_loop

NGINX_HIT = (
    '127.0.0.1 [26/Nov/2026:14:30:01 +0000] "GET /en/t/hall/ HTTP/1.1" 304 0 cache=HIT '
    'rt=0.000 urt=- "-"'
)
NGINX_MISS = (
    '127.0.0.1 [26/Nov/2026:14:30:01 +0000] "GET /en/t/hall/players/7/ HTTP/1.1" 200 5120 '
    'cache=EXPIRED rt=0.004 urt=0.004 "-"'
)
NGINX_API = (
    '127.0.0.1 [26/Nov/2026:14:30:02 +0000] "PUT /api/v1/tables/3/rounds/3/ HTTP/1.1" 201 '
    '700 cache=BYPASS rt=0.020 urt=0.020 "-"'
)


def test_parse_nginx_line_reads_cache_status_and_upstream():
    hit = hall_parts.parse_nginx_line(NGINX_HIT)
    assert (hit.method, hit.path, hit.status, hit.cache, hit.upstream) == (
        "GET",
        "/en/t/hall/",
        304,
        "HIT",
        False,
    )
    miss = hall_parts.parse_nginx_line(NGINX_MISS)
    assert (miss.cache, miss.upstream, miss.request_time) == ("EXPIRED", True, 0.004)
    assert hall_parts.parse_nginx_line("not a log line") is None


def test_nginx_digest_counts_public_pages_only():
    digest = hall_parts.nginx_digest("\n".join([NGINX_HIT, NGINX_HIT, NGINX_MISS, NGINX_API]))
    assert digest["public"] == 3
    assert digest["by_cache"] == {"EXPIRED": 1, "HIT": 2}
    assert digest["upstream"] == 1
    assert digest["hit_ratio"] == pytest.approx(2 / 3)
    # nginx's own times in ms: the cached answers, those through gunicorn, the officials'.
    assert digest["cached_ms"]["p99"] == 0.0
    assert digest["through_gunicorn_ms"]["p50"] == pytest.approx(4.0)
    assert digest["officials_ms"]["p50"] == pytest.approx(20.0)
    assert math.isnan(hall_parts.nginx_digest("")["hit_ratio"])
    # What they weigh: every public answer's bytes; the standings answers with a body only.
    assert digest["public_bytes"] == 5120
    standings = NGINX_HIT.replace('/ HTTP/1.1" 304 0', '/?page=3&v=1-9 HTTP/1.1" 200 2400')
    weighed = hall_parts.nginx_digest("\n".join([standings, NGINX_HIT, NGINX_MISS]))
    assert weighed["public_bytes"] == 2400 + 5120
    assert weighed["standings_bytes"]["p50"] == pytest.approx(2400)


def test_gunicorn_public_by_page_counts_public_requests_by_kind():
    log = "\n".join(
        [
            '127.0.0.1 "GET /en/t/hall/ HTTP/1.0" 304 - 1ms "-"',
            '127.0.0.1 "GET /t/hall/?v=1-9 HTTP/1.0" 200 900 3ms "-"',
            '127.0.0.1 "GET /en/t/hall/tables/1/12/ HTTP/1.0" 200 900 3ms "-"',
            '127.0.0.1 "GET /es/t/hall/players/4/ HTTP/1.0" 200 900 3ms "-"',
            '127.0.0.1 "GET /en/t/hall/screen/?page=2 HTTP/1.0" 200 900 3ms "-"',
            '127.0.0.1 "GET /t/hall/manage/ HTTP/1.0" 200 900 3ms "-"',
            '127.0.0.1 "POST /api/v1/tables/1/rounds/3/confirm/ HTTP/1.0" 200 9 9ms "-"',
            '127.0.0.1 "GET /health/live/ HTTP/1.0" 200 2 1ms "-"',
        ]
    )
    assert hall_parts.gunicorn_public_by_page(log) == {
        "player": 1,
        "screen": 1,
        "sheet": 1,
        "standings": 2,
    }


def test_is_public_excludes_the_console_and_entry_pages():
    assert hall_parts.is_public("/en/t/hall/")
    assert hall_parts.is_public("/t/hall/tables/1/3/")
    assert not hall_parts.is_public("/en/t/hall/manage/stages/1/")
    assert not hall_parts.is_public("/t/hall/enter/3/")
    assert not hall_parts.is_public("/api/v1/stages/1/standings/")


def test_prefix_from_location_reads_the_language_prefix():
    assert hall_parts.prefix_from_location("/en/t/hall/", "hall") == "/en"
    assert hall_parts.prefix_from_location("http://127.0.0.1:8590/es/t/hall/", "hall") == "/es"
    assert hall_parts.prefix_from_location("/t/hall/", "hall") == ""
    assert hall_parts.prefix_from_location("", "hall") == ""


def test_poll_times_are_every_period_from_the_load_until_the_end():
    assert hall_parts.poll_times(5.0, 1.0, 100.0, 112.0) == [101.0, 106.0, 111.0]
    assert hall_parts.poll_times(5.0, 3.0, 0.0, 3.0) == []
    with pytest.raises(ValueError):
        hall_parts.poll_times(0.0, 0.0, 0.0, 1.0)


def test_phone_visits_follow_the_mix_and_the_seed():
    kwargs = dict(
        prefix="/en",
        slug="hall",
        stage_order=1,
        table_numbers=[1, 2, 3],
        player_numbers=[1, 2, 3, 4],
        seed=7,
    )
    visits = hall_parts.phone_visits(1000, **kwargs)
    kinds = {k: sum(v.kind == k for v in visits) for k in ("standings", "sheet", "player")}
    assert kinds == {"standings": 600, "sheet": 250, "player": 150}
    assert {v.period for v in visits if v.kind == "standings"} == {5.0}
    assert all(v.path.startswith("/en/t/hall/tables/1/") for v in visits if v.kind == "sheet")
    assert visits == hall_parts.phone_visits(1000, **kwargs)
    assert len(hall_parts.phone_visits(7, **kwargs)) == 7
    # Four players: one page of standings. 500: each of its five pages is open on some phones.
    assert {v.path for v in visits if v.kind == "standings"} == {"/en/t/hall/"}
    many = hall_parts.phone_visits(1000, **{**kwargs, "player_numbers": list(range(1, 501))})
    pages = {v.path for v in many if v.kind == "standings"}
    assert pages == {"/en/t/hall/"} | {f"/en/t/hall/?page={n}" for n in range(2, 6)}
    assert all(hall_parts.page_kind(path) == "standings" for path in pages)


def test_the_hall_pages_the_standings_as_the_pages_do():
    from scoring.standings_html import ROWS_PER_PAGE

    assert hall_parts.ROWS_PER_PAGE == ROWS_PER_PAGE


def test_confirmation_to_phone_waits_for_the_count_after_the_answer():
    # 10 results counted before; two confirmations answered at 1.0 and 2.0 s.
    sightings = [(0.5, 11), (1.2, 10), (1.5, 11), (2.1, 11), (2.8, 12), (3.0, 12)]
    delays, missed = hall_parts.confirmation_to_phone([2.0, 1.0], sightings, 10)
    assert delays == pytest.approx([0.5, 0.8])  # 11 seen at 1.5 (not 0.5: before its answer)
    assert missed == 0
    delays, missed = hall_parts.confirmation_to_phone([1.0, 2.0, 2.5], sightings, 10)
    assert missed == 1  # a 13th result never shown


def test_confirmation_to_each_phone_counts_every_phone_that_had_the_page_open():
    # 10 results counted before; confirmations answered at 1.0 and 2.0 s. Phone "a" sees the
    # first at 1.5 and the second at 2.8; "b" sees both only at 3.0; "c" opened its page at 2.5
    # (after both: left out); "d" had it open but never saw the second (left out for it).
    sightings = [
        (0.5, 10, "a"), (1.5, 11, "a"), (2.8, 12, "a"),
        (0.9, 10, "b"), (3.0, 12, "b"),
        (2.5, 12, "c"),
        (0.7, 10, "d"), (1.1, 11, "d"),
    ]  # fmt: skip
    delays = hall_parts.confirmation_to_each_phone([1.0, 2.0], sightings, 10)
    assert sorted(delays) == pytest.approx(sorted([0.5, 0.8, 2.0, 1.0, 0.1]))
    assert hall_parts.confirmation_to_each_phone([], sightings, 10) == []


def test_percentile_is_nearest_rank():
    values = list(range(1, 101))
    assert [percentile(values, q) for q in (50, 95, 99)] == [50, 95, 99]
    assert hall_parts.pcts([3.0]) == {"p50": 3.0, "p95": 3.0, "p99": 3.0}
    assert math.isnan(percentile([], 50))


WRK_OUTPUT = """Running 30s test @ http://127.0.0.1:8590
  2 threads and 5000 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.23ms    2.34ms  50.12ms   95.00%
    Req/Sec   340.12    100.00   500.00     70.00%
  Latency Distribution
     50%  812.00us
     75%    1.20ms
     90%    2.50ms
     99%    1.50s
  20310 requests in 30.01s, 100.00MB read
  Socket errors: connect 0, read 0, write 0, timeout 12
  Non-2xx or 3xx responses: 3
Requests/sec:    676.80
Transfer/sec:      3.33MB
"""


def test_wrk_figures_reads_rate_percentiles_in_ms_and_errors():
    figures = hall_parts.wrk_figures(WRK_OUTPUT)
    assert figures["p50"] == pytest.approx(0.812)  # microseconds, seconds: all in ms
    assert figures["p75"] == pytest.approx(1.2)
    assert figures["p99"] == pytest.approx(1500.0)
    assert (figures["rate"], figures["requests"]) == (676.8, 20310)
    assert figures["socket_errors"] == "connect 0, read 0, write 0, timeout 12"
    assert figures["non_2xx_3xx"] == 3


def test_wrk_figures_of_an_empty_output_are_nan_and_zero():
    figures = hall_parts.wrk_figures("")
    assert math.isnan(figures["rate"]) and figures["requests"] == 0
    assert "p99" not in figures


def test_a_phone_behind_its_channel_fetches_the_newest_version_once():
    """As live.js: versions heard during the page's wait (or while a fetch was under way) fold
    into one fetch at the newest; the wait is the first's."""
    heard = Heard("10-1")
    assert not heard.hear(b"data: 10-1 3", now=100.0)  # the version the page shows
    assert not heard.hear(b": keep-alive", now=100.0)
    assert heard.hear(b"data: 10-2 3,4", now=100.0, spread=0.5)
    first_wait = heard.wait_ends
    assert 100.0 <= first_wait <= 100.5 and heard.news.is_set()
    assert heard.hear(b"data: 10-3 9", now=100.2)
    assert heard.wait_ends == first_wait  # the later version joins the wait
    assert heard.take() == "10-3"
    assert heard.wait_ends is None and not heard.news.is_set()


def test_a_table_page_fetches_at_the_end_of_the_wait_a_version_opened(monkeypatch):
    """As live.js: any new version opens the wait (a timer), even one that does not name the
    page's table; a version naming it during the wait makes the page fetch at its end, at the
    newest version; a wait that ends with none naming it fetches nothing."""
    monkeypatch.setattr(random, "uniform", lambda low, high: high)  # each wait: the longest
    heard = Heard("10-1", table="7")
    assert heard.hear(b"data: 10-2 3,4", now=100.0, spread=0.5)  # opens a wait: not ours
    assert heard.window_ends == 100.5
    assert heard.wait_ends is None and not heard.news.is_set()
    assert heard.hear(b"data: 10-3 4,7", now=100.1)  # ours, within that wait
    assert heard.wait_ends == 100.5 and heard.news.is_set()  # it ends when it was to
    assert heard.hear(b"data: 10-4 2", now=100.2)  # joins: fetched at the newest
    assert heard.take() == "10-4"
    heard.hear(b"data: 10-5 2", now=200.0, spread=0.5)  # not ours: nothing to fetch
    assert not heard.news.is_set()
    assert heard.hear(b"data: 10-6 -", now=200.6, spread=0.5)  # a new wait; no table
    assert heard.window_ends == 201.1 and not heard.news.is_set()
    assert heard.hear(b"data: 10-7", now=200.7)  # a version alone: every part
    assert heard.news.is_set() and heard.wait_ends == 201.1


def test_pages_watched_counts_distinct_sheets_and_players_pages():
    base = "/en/t/hall"
    visits = [
        hall_parts.Visit("standings", f"{base}/", 5.0),
        hall_parts.Visit("sheet", f"{base}/tables/1/3/", 10.0),
        hall_parts.Visit("sheet", f"{base}/tables/1/3/", 10.0),  # the same table: one page
        hall_parts.Visit("sheet", f"{base}/tables/1/4/", 10.0),
        hall_parts.Visit("player", f"{base}/players/9/", 15.0),
    ]
    assert hall_parts.pages_watched(visits) == {"sheet": 2, "player": 1}
    assert hall_parts.pages_watched([]) == {"sheet": 0, "player": 0}


def test_markdown_table_renders_a_size_row_by_row():
    """The table docs/PERFORMANCE.md takes, from one size of a run (bench/hall.py --json)."""
    run = json.loads((Path(__file__).parent / "hall_run.json").read_text())
    table = hall_parts.markdown_table([run], sorted(run["cores"]))
    lines = table.splitlines()
    assert lines[0] == "| | 500 phones |"
    assert "| phone requests/s (answered) | 368 |" in lines
    assert "| distinct sheets / players' pages the phones watch | 77 / 68 |" in lines
    assert "| generator's garbage collections: count / longest | 95 / 3.8 ms |" in lines
    # A run from before the event loop was chosen ran on the standard library's.
    assert "| generator's event loop; its phones' processes' peak memory | asyncio; - |" in lines
    run.update(event_loop="uvloop", phone_process_max_rss_mb=[212.4, 208.6])
    lines = hall_parts.markdown_table([run], sorted(run["cores"])).splitlines()
    assert (
        "| generator's event loop; its phones' processes' peak memory | uvloop; 212 MB / 209 MB |"
        in lines
    )
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines[2:])


def test_the_channel_reads_messages_split_across_packets_and_chunks():
    """nchan's answer is chunked: a message split between two chunks (or two packets, the head
    included) still reads as one version with its tables."""

    def run(coroutine):
        # In a thread of its own: in the whole suite, the browser tests' Playwright keeps an
        # event loop running in this one.
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            return thread.submit(asyncio.run, coroutine).result()

    async def heard_of(pieces: list[bytes]) -> tuple[Heard, Crowd]:
        heard, crowd = Heard("1-1", table="7"), Crowd()
        channel = _Channel(heard, crowd)
        for piece in pieces:
            channel.data_received(piece)
        assert channel.opened.done()
        return heard, crowd

    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    first, second = b"data: 1-2 3,", b"7\n\n"
    body = b"%x\r\n%s\r\n%x\r\n%s\r\n" % (len(first), first, len(second), second)
    for cut in range(1, len(head + body)):
        stream = head + body
        heard, crowd = run(heard_of([stream[:cut], stream[cut:]]))
        assert (heard.version, crowd.push_events, heard.news.is_set()) == ("1-2", 1, True), cut
    plain = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
    heard, crowd = run(heard_of([plain + b"data: 1-3 4\r\n", b"\r\n"]))
    assert (heard.version, heard.news.is_set()) == ("1-3", False)  # table 4, not this page's


def test_the_generator_runs_in_the_event_loop_named():
    """bench/hall.py --loop: libuv's loop (uvloop) or the standard library's; any other name is
    refused before anything runs."""

    async def loop_kind() -> str:
        return type(asyncio.get_running_loop()).__module__.split(".")[0]

    def run(loop: str) -> str:
        with concurrent.futures.ThreadPoolExecutor(1) as thread:  # (as above: Playwright's loop)
            return thread.submit(run_in_loop, loop_kind(), loop).result()

    assert run("uvloop") == "uvloop"
    assert run("asyncio") == "asyncio"
    never_awaited = loop_kind()
    with pytest.raises(ValueError, match="'trio' is not one of"):
        run_in_loop(never_awaited, "trio")
    never_awaited.close()


def test_a_fetch_the_origin_failed_is_retried_as_live_js_does(monkeypatch):
    monkeypatch.setattr(hall_phones.random, "uniform", lambda a, b: b)  # the longest moment
    backoff = hall_phones.Backoff()
    backoff.failed(3, now=100.0)
    assert backoff.due == 100.0 + 3 + hall_phones.SPREAD
    backoff.failed(3, now=101.0)  # a failure while the retry is due changes nothing
    assert (backoff.failures, backoff.due) == (1, 100.0 + 3 + hall_phones.SPREAD)
    backoff.due = None  # the retry made, and failed again: twice as long
    backoff.failed(3, now=110.0)
    assert backoff.due == 110.0 + 6 + hall_phones.SPREAD
    for _ in range(5):
        backoff.due = None
        backoff.failed(3, now=200.0)
    assert backoff.due == 200.0 + hall_phones.RETRY_MAX + hall_phones.SPREAD  # at most 30 s
