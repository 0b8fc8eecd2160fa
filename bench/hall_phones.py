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
import os
import random
import re
import time
import zlib
from dataclasses import dataclass, field

import hall_parts
from hall_parts import COUNTED_RE, Visit
from loadgen import HttpClient, Sample, timed

HOST = "127.0.0.1"
SAFETY = 60.0
SPREAD = 0.5  # live.js's SPREAD_MS
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


def counted_in(body: bytes) -> int | None:
    match = COUNTED_RE.search(body[:20000].decode(errors="replace"))
    return int(match.group(1)) if match else None


async def phone_poll(
    target: Target, visit: Visit, load_at: float, end: float, crowd: Crowd, timeout: float
):
    """One phone polling its page: the page in full at load_at, then an HTMX poll every period."""
    client = HttpClient(HOST, target.nginx_port, max_conns=1, timeout=timeout)
    etag = ""
    try:
        for n, due in enumerate(hall_parts.poll_times(visit.period, load_at, 0.0, end)):
            await sleep_until(due)
            headers = {"Accept-Language": "en", "Accept": "text/html", **BROWSER_ENCODING}
            if n:
                headers["HX-Request"] = "true"
                if etag:
                    headers["If-None-Match"] = etag
            etag = await _fetch(client, visit, visit.path, due, headers, crowd, timeout) or etag
    finally:
        crowd.opened += client.opened
        await client.close()


async def _fetch(
    client: HttpClient,
    visit: Visit,
    path: str,
    due: float,
    headers: dict[str, str],
    crowd: Crowd,
    timeout: float,
    live_version: bool = False,
    table_out: list[str] | None = None,
) -> str:
    """GET one of the phone's pages and record the answer; the answer's ETag when it had one
    (with live_version, the live version the page shows: its data-live-version; and into
    table_out, the table its part follows: its data-live-table, "" for the standings)."""
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
                counted = counted_in(body_of(response, 20000))
                if counted is not None:
                    crowd.sightings.append((sample.done, counted, f"{os.getpid()}-{id(client)}"))
        elif response.status != 304:
            sample.error = f"HTTP {response.status}"
    crowd.answers.append(PhoneAnswer(visit.kind, sample, cache, counted))
    return etag


async def phone_push(
    target: Target, visit: Visit, load_at: float, end: float, crowd: Crowd, timeout: float
):
    """One phone as live.js runs it: the page in full at load_at, one server-sent-events
    connection to /live/<slug>/, and for each announced version not already shown, the page's
    part at `?v=<version>`; while the channel is open the part's own poll runs at most every
    SAFETY seconds (live.js's SAFETY_MS), and a version's fetch waits up to SPREAD seconds (its
    SPREAD_MS)."""
    client = HttpClient(HOST, target.nginx_port, max_conns=1, timeout=timeout)
    await sleep_until(load_at)
    headers = {"Accept-Language": "en", "Accept": "text/html", **BROWSER_ENCODING}
    mine: list[str] = []
    version = await _fetch(client, visit, visit.path, load_at, headers, crowd, timeout, True, mine)
    table = mine[0] if mine else ""  # a sheet's or a player's page fetches for its table only
    headers["HX-Request"] = "true"
    last_fetch = time.perf_counter()
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, target.nginx_port)
        writer.write(
            f"GET {target.live_path} HTTP/1.1\r\nHost: {HOST}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        crowd.opened += 1
        while (now := time.perf_counter()) < end:
            wake = min(end, last_fetch + SAFETY)
            try:
                line = await asyncio.wait_for(reader.readline(), max(0.0, wake - now))
            except TimeoutError:
                if time.perf_counter() < end:  # the safety-net poll
                    last_fetch = time.perf_counter()
                    await _fetch(client, visit, visit.path, last_fetch, headers, crowd, timeout)
                continue
            if not line:
                raise ConnectionError("the event stream closed")
            text = line.decode(errors="replace").strip()
            words = text[5:].split() if text.startswith("data:") else []
            if not words or words[0] == version:
                continue
            version = words[0]  # then the changed tables' ids, as live.js reads them
            crowd.push_events += 1
            if table and len(words) > 1 and table not in words[1].split(","):
                continue
            # live.js waits a moment of its own, up to its SPREAD_MS, before it fetches; the
            # wait is the page's, not the server's: the latency counts from its end. (A page folds
            # the versions it hears while it waits into one fetch at the newest; here each is
            # fetched in turn: if anything, a request more than a page makes.)
            await asyncio.sleep(random.uniform(0, SPREAD))
            last_fetch = time.perf_counter()
            sep = "&" if "?" in visit.path else "?"
            await _fetch(
                client, visit, f"{visit.path}{sep}v={version}", last_fetch, headers, crowd, timeout
            )
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as error:
        now = time.perf_counter()
        crowd.answers.append(
            PhoneAnswer(visit.kind, Sample(now, now, now, 0, f"event stream: {error!r}"), "", None)
        )
    finally:
        if writer is not None:
            writer.close()
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


async def _group(group: Group) -> dict:
    crowd = Crowd()
    phone = phone_push if group.mode == "push" else phone_poll
    tasks = [
        asyncio.create_task(phone(group.target, visit, load_at, group.end, crowd, group.timeout))
        for visit, load_at in group.phones
    ]
    measure_from, measure_end = group.window
    await sleep_until(measure_from)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    lags: list[float] = []
    await loop_lag(measure_end, lags)
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
        "lags": lags,
        "cores": cores,
    }


def run_group(group: Group) -> dict:
    """Run the group's phones until its end, in this process's own event loop; what they got,
    and over its window this process's event loop lag (ms) and its CPU (cores). The entry point
    of a phones' process."""
    return asyncio.run(_group(group))


def ready() -> int:
    """A phones' process's pid, once it has started and imported this module."""
    return os.getpid()
