"""The hall's phones (bench/hall.py), run in processes of their own.

Each phone keeps a keep-alive connection, one page, its ETag and its schedule, as hall.py's
docstring says. A group of phones runs in a child process with an event loop of its own
(`run_group`): the phones of one size are split over `--phone-processes` of them, so that a
burst of answers (every standings phone fetching at once after a push) is read on both cores,
and the officials' and the projector's requests, timed in hall.py's own process, never wait
behind the phones' in one event loop. Times are `time.perf_counter()`, the system's monotonic
clock on Linux: the same in every process, so hall.py compares them with its own.
"""

import asyncio
import gc
import os
import random
import re
import resource
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import hall_parts
from hall_parts import COUNTED_RE, Visit
from loadgen import Sample, run_in_loop, timed
from phone_http import PhoneClient, Unchunk

HOST = "127.0.0.1"
LIVE_JS = (
    Path(__file__).resolve().parent.parent / "tournaments" / "static" / "roundhouse" / "live.js"
)


def live_js_seconds(name: str) -> float:
    """One of live.js's timings (`var NAME_MS = 500;`), in seconds: the phones do as the pages."""
    found = re.search(rf"\bvar {name} = (\d+);", LIVE_JS.read_text())
    if found is None:
        raise LookupError(f"live.js says no {name}")
    return int(found.group(1)) / 1000


SAFETY = live_js_seconds("SAFETY_MS")
SPREAD = live_js_seconds("SPREAD_MS")
RETRY = live_js_seconds("RETRY_MS")
RETRY_MAX = live_js_seconds("RETRY_MAX_MS")
# What a phone's browser says it takes: the public pages come gzip-compressed (once, at the
# origin; nginx keeps the compressed copy), a tenth of their size.
BROWSER_ENCODING = {"Accept-Encoding": "gzip, deflate, br, zstd"}
LIVE_VERSION_RE = re.compile(r'data-live-version="([^"]*)"')
LIVE_TABLE_RE = re.compile(r'data-live-table="([^"]*)"')


@dataclass(frozen=True)
class Target:
    """Where the phones go: nginx's port, and the event stream's path (push mode)."""

    nginx_port: int
    live_path: str


def body_of(response, limit: int = 40000) -> bytes:
    """The first `limit` bytes of the page as the browser reads it (decompressed when it came
    compressed): all that is read of it here, and decompressing only that much keeps this
    process's CPU for the phones."""
    if response.headers.get("content-encoding") == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(response.body, limit)
    return response.body[:limit]


# ---- phones ----------------------------------------------------------------------------------


@dataclass
class PhoneAnswer:
    kind: str
    sample: Sample
    cache: str  # nginx's X-Cache-Status
    counted: int | None  # the standings' results counted, when the answer had a body


@dataclass
class Crowd:
    """What the phones of one size got."""

    answers: list[PhoneAnswer] = field(default_factory=list)
    # (perf time, results counted, which phone): each standings answer with a count
    sightings: list[tuple[float, int, str]] = field(default_factory=list)
    opened: int = 0
    push_events: int = 0
    # version -> when a channel of this process first heard it (bench/saturday.py's parts of
    # confirmation to phone: the message's arrival)
    heard: dict[str, float] = field(default_factory=dict)


# How much of a standings answer is read for its count ("N of M results in"): the fragment
# says it in its first lines (templates/scoring/_standings.html), the whole page after the
# site's header. Decompressing no more than that is most of this process's CPU it saves.
COUNT_BYTES = {"fragment": 6000, "page": 20000}


def counted_in(body: bytes) -> int | None:
    match = COUNTED_RE.search(body.decode(errors="replace"))
    return int(match.group(1)) if match else None


async def phone_poll(
    target: Target, visit: Visit, load_at: float, end: float, crowd: Crowd, timeout: float
):
    """One phone polling its page: the page in full at load_at, then an HTMX poll every period."""
    client = PhoneClient(HOST, target.nginx_port, timeout=timeout)
    etag = ""
    try:
        for n, due in enumerate(hall_parts.poll_times(visit.period, load_at, 0.0, end)):
            await sleep_until(due)
            headers = {"Accept-Language": "en", "Accept": "text/html", **BROWSER_ENCODING}
            if n:
                headers["HX-Request"] = "true"
                if etag:
                    headers["If-None-Match"] = etag
            if n:
                etag = await _fetch(client, visit, visit.path, due, headers, crowd, timeout) or etag
            else:
                etag = await _open(client, visit, due, headers, crowd, timeout, end)
    finally:
        crowd.opened += client.opened
        await client.close()


async def _fetch(
    client: PhoneClient,
    visit: Visit,
    path: str,
    due: float,
    headers: dict[str, str],
    crowd: Crowd,
    timeout: float,
    live_version: bool = False,
    table_out: list[str] | None = None,
    busy_out: list[float] | None = None,
) -> str:
    """GET one of the phone's pages and record the answer; the answer's ETag when it had one
    (with live_version, the live version the page shows: its data-live-version; and into
    table_out, the table its part follows: its data-live-table, "" for the standings; into
    busy_out, when it failed for want of the origin (a 502, 503 or 504, or no answer), the
    seconds to wait before asking again: the answer's Retry-After, else RETRY)."""
    sample, response = await timed(client, "GET", path, due=due, headers=headers, timeout=timeout)
    counted = None
    cache = etag = ""
    if response is not None:
        cache = response.headers.get("x-cache-status", "")
        if response.status == 200:
            etag = response.headers.get("etag", "")
            if live_version:
                head = body_of(response)[:40000].decode(errors="replace")
                shown = LIVE_VERSION_RE.search(head)
                etag = shown.group(1) if shown else ""
                if table_out is not None:
                    table = LIVE_TABLE_RE.search(head)
                    table_out.append(table.group(1) if table else "")
            if visit.kind == "standings":
                read = COUNT_BYTES["fragment" if "HX-Request" in headers else "page"]
                counted = counted_in(body_of(response, read))
                if counted is not None:
                    # The phone's name says its page: bench/saturday.py tells the events apart.
                    phone = f"{os.getpid()}-{id(client)} {visit.path}"
                    crowd.sightings.append((sample.done, counted, phone))
        elif response.status != 304:
            sample.error = f"HTTP {response.status}"
    if busy_out is not None and (response is None or response.status in (502, 503, 504)):
        retry_after = response.headers.get("retry-after", "") if response is not None else ""
        busy_out.append(int(retry_after) if retry_after.isdigit() and int(retry_after) else RETRY)
    crowd.answers.append(PhoneAnswer(visit.kind, sample, cache, counted))
    return etag


async def _open(
    client: PhoneClient,
    visit: Visit,
    due: float,
    headers: dict[str, str],
    crowd: Crowd,
    timeout: float,
    end: float,
    live_version: bool = False,
    table_out: list[str] | None = None,
) -> str:
    """The page in full, as a browser opens it: turned away as late (503), it shows
    templates/503.html, which reloads itself after the answer's Retry-After (another failure
    of the origin: the person reloads it as soon)."""
    while True:
        busy: list[float] = []
        etag = await _fetch(
            client, visit, visit.path, due, headers, crowd, timeout, live_version, table_out, busy
        )
        if not busy or time.perf_counter() + busy[0] >= end:
            return etag
        await asyncio.sleep(busy[0])
        due = time.perf_counter()


@dataclass
class Backoff:
    """live.js's retry of a fetch at a version that failed for want of the origin: after the
    answer's Retry-After (RETRY without one), twice as long for each failure in a row (up to
    RETRY_MAX), and a moment of up to SPREAD; a failure while a retry is due changes nothing,
    and a success starts the count again."""

    failures: int = 0
    due: float | None = None  # when the retry is made; None: none due

    def failed(self, retry_after: float, now: float) -> None:
        if self.due is not None:
            return
        self.failures += 1
        wait = min(retry_after * 2 ** (self.failures - 1), RETRY_MAX)
        self.due = now + wait + random.uniform(0, SPREAD)


@dataclass
class Heard:
    """What a phone's channel said since its last fetch, folded as live.js's heard() folds it.
    A version the page has not seen opens a wait of a random moment of up to SPREAD seconds
    (live.js's SPREAD_MS), unless one is open; versions heard during it join it; at its end the
    page fetches once, at the newest version, if any of them concerns it: the standings always,
    a sheet or a player's page (`table`) when one names its table or names none. The wait is
    kept as its end time, without a timer: a phone's task wakes only for a wait that ends in a
    fetch (`news`, `wait_ends`)."""

    version: str
    table: str = ""
    window_ends: float | None = None  # the open wait's end (live.js's timer); None: none open
    wait_ends: float | None = None  # that end, once a version in it concerns the page
    news: asyncio.Event = field(default_factory=asyncio.Event)
    error: BaseException | None = None

    def hear(self, line: bytes, now: float, spread: float = SPREAD) -> bool:
        """Take one line of the event stream; True when it was a version not heard before."""
        if not line.startswith(b"data:"):
            return False
        words = line[5:].decode(errors="replace").split()
        if not words or words[0] == self.version:
            return False
        self.version = words[0]  # then the changed tables' ids, as live.js reads them
        if self.wait_ends is None and (self.window_ends is None or now >= self.window_ends):
            self.window_ends = now + random.uniform(0, spread)  # a new wait opens
        concerns = not self.table or len(words) < 2 or self.table in words[1].split(",")
        if concerns and self.wait_ends is None:
            self.wait_ends = self.window_ends
            self.news.set()
        return True

    def take(self) -> str:
        """The version to fetch; the next version opens a new wait."""
        self.wait_ends = self.window_ends = None
        self.news.clear()
        return self.version


class _Channel(asyncio.Protocol):
    """A phone's event stream (/live/<slug>/), read as it arrives into its Heard: a callback per
    chunk, no task woken unless a version concerns the page (a process of thousands of phones
    reads every version on each of their channels). The answer's chunked framing is taken off
    before its lines are read, so a message split between two chunks reads whole."""

    def __init__(self, heard: Heard, crowd: Crowd) -> None:
        self.heard, self.crowd = heard, crowd
        self.raw = b""  # the head as received
        self.text = b""  # the body's text not yet split into whole lines
        self.unchunk: Unchunk | None = None  # nchan's answer is chunked
        self.opened: asyncio.Future = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        if not self.opened.done():
            self.raw += data
            head, found, data = self.raw.partition(b"\r\n\r\n")
            if not found:
                return
            self.raw = b""
            if b"transfer-encoding: chunked" in head.lower():
                self.unchunk = Unchunk()
            self.opened.set_result(head)
        self.text += self.unchunk.feed(data) if self.unchunk is not None else data
        *lines, self.text = self.text.split(b"\n")
        now = time.perf_counter()
        for line in lines:
            if self.heard.hear(line.strip(), now):
                self.crowd.push_events += 1
                self.crowd.heard.setdefault(self.heard.version, now)

    def connection_lost(self, exc: Exception | None) -> None:
        error = exc or ConnectionError("the event stream closed")
        if not self.opened.done():
            self.opened.set_exception(error)
        self.heard.error = error
        self.heard.news.set()


async def phone_push(
    target: Target, visit: Visit, load_at: float, end: float, crowd: Crowd, timeout: float
):
    """One phone as live.js runs it: the page in full at load_at, one server-sent-events
    connection to /live/<slug>/, and for each announced version that concerns the page and is
    not already shown, the page's part at `?v=<version>`; while the channel is open the part's
    own poll runs at most every SAFETY seconds (live.js's SAFETY_MS). A phone that falls behind
    its channel fetches the newest version once, as a page does (Heard), not each it missed."""
    client = PhoneClient(HOST, target.nginx_port, timeout=timeout)
    await sleep_until(load_at)
    headers = {"Accept-Language": "en", "Accept": "text/html", **BROWSER_ENCODING}
    mine: list[str] = []
    shown = await _open(client, visit, load_at, headers, crowd, timeout, end, True, mine)
    heard = Heard(shown, table=mine[0] if mine else "")
    headers["HX-Request"] = "true"
    sep = "&" if "?" in visit.path else "?"
    last_fetch = time.perf_counter()
    transport = None
    try:
        transport, channel = await asyncio.get_running_loop().create_connection(
            lambda: _Channel(heard, crowd), HOST, target.nginx_port
        )
        transport.write(
            f"GET {target.live_path} HTTP/1.1\r\nHost: {HOST}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        async with asyncio.timeout(timeout):
            await channel.opened
        crowd.opened += 1
        backoff = Backoff()

        async def fetch_at(at: str, due: float) -> bool:
            busy: list[float] = []
            path = f"{visit.path}{sep}v={at}"
            await _fetch(client, visit, path, due, headers, crowd, timeout, busy_out=busy)
            if busy:
                backoff.failed(busy[0], time.perf_counter())
                return False
            backoff.failures = 0
            return True

        while (now := time.perf_counter()) < end:
            wake = min(end, last_fetch + SAFETY, backoff.due or end)
            try:
                async with asyncio.timeout(max(0.0, wake - now)):
                    await heard.news.wait()
            except TimeoutError:
                now = time.perf_counter()
                if now >= end:
                    continue
                if backoff.due is not None and now >= backoff.due:  # live.js's retry
                    backoff.due = None
                    if heard.version != shown:
                        last_fetch, at = now, heard.version
                        shown = at if await fetch_at(at, now) else shown
                    continue
                last_fetch = now  # the safety-net poll
                await _fetch(client, visit, visit.path, last_fetch, headers, crowd, timeout)
                continue
            if heard.error is not None:
                raise heard.error
            # The page's own wait, not the server's: the latency counts from its end.
            await sleep_until(heard.wait_ends or 0.0)
            at = heard.take()
            if at == shown:
                continue
            last_fetch = time.perf_counter()
            shown = at if await fetch_at(at, last_fetch) else shown
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as error:
        now = time.perf_counter()
        crowd.answers.append(
            PhoneAnswer(visit.kind, Sample(now, now, now, 0, f"event stream: {error!r}"), "", None)
        )
    finally:
        if transport is not None:
            transport.close()
        crowd.opened += client.opened
        await client.close()


async def loop_lag(end: float, lags: list[float], every: float = 0.05) -> None:
    """How late this process's event loop wakes a 50 ms sleep (ms), until `end`: when the load
    generator itself is short of CPU, every phone's request goes out that much late."""
    while time.perf_counter() < end:
        before = time.perf_counter()
        await asyncio.sleep(every)
        lags.append((time.perf_counter() - before - every) * 1000)


async def sleep_until(when: float) -> None:
    delay = when - time.perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)


# ---- a group of phones in a process of its own -------------------------------------------------


@dataclass(frozen=True)
class Group:
    """A phones' process's share: the phones (each a page and the moment it loads), the measured
    window (perf-counter times), when they stop, and how long a phone waits for an answer."""

    target: Target
    mode: str  # "poll" or "push"
    phones: list[tuple[Visit, float]]
    window: tuple[float, float]
    end: float
    timeout: float
    loop: str = "uvloop"  # the event loop's kind (loadgen.run_in_loop)
    # Each phone's own target, in the order of `phones` (bench/saturday.py: many events, each
    # with its channel, over one or more hosts); empty: every phone's is `target`.
    targets: tuple[Target, ...] = ()


async def _group(group: Group) -> dict:
    crowd = Crowd()
    phone = phone_push if group.mode == "push" else phone_poll
    targets = group.targets or (group.target,) * len(group.phones)
    tasks = [
        asyncio.create_task(phone(target, visit, load_at, group.end, crowd, group.timeout))
        for (visit, load_at), target in zip(group.phones, targets, strict=True)
    ]
    # No cyclic garbage collection in a phones' process: it keeps every answer for the report,
    # and its phones' tasks and connections live for the whole run (100,000 objects and more at
    # 5,000 phones, none of them garbage), which each full collection scanned again, the event
    # loop standing still meanwhile: up to 987 ms at 5,000 phones, and still up to 108 ms with
    # gc.freeze() once a second (docs/PERFORMANCE.md's git history). What it would have collected
    # is the little cyclic garbage of a few minutes (a timed-out wait's exception and its
    # frames); the process's peak memory is in the report ("max_rss_mb").
    gc.disable()
    measure_from, measure_end = group.window
    await sleep_until(measure_from)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    lags: list[float] = []
    pauses: list[float] = []  # the garbage collector's, in ms: the event loop stands still
    started: list[float] = []

    def collecting(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append((time.perf_counter() - started.pop()) * 1000)

    gc.callbacks.append(collecting)
    try:
        await loop_lag(measure_end, lags)
    finally:
        gc.callbacks.remove(collecting)
    cores = (time.process_time() - cpu0) / max(1e-9, time.perf_counter() - wall0)
    left = max(0.0, group.end - time.perf_counter()) + group.timeout + 5
    _, pending = await asyncio.wait(tasks, timeout=left) if tasks else (set(), set())
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "pid": os.getpid(),
        "answers": crowd.answers,
        "sightings": crowd.sightings,
        "opened": crowd.opened,
        "push_events": crowd.push_events,
        "heard": crowd.heard,
        "lags": lags,
        "gc_pauses": pauses,
        "cores": cores,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_group(group: Group) -> dict:
    """Run the group's phones until its end, in this process's own event loop; what they got,
    and over its window this process's event loop lag (ms) and its CPU (cores). The entry point
    of a phones' process."""
    return run_in_loop(_group(group), group.loop)


def ready() -> int:
    """A phones' process's pid, once it has started and imported this module."""
    return os.getpid()
