"""A small load generator for bench_load.py: HTTP/1.1 on asyncio streams, standard library only.

Why not wrk2 or locust: Debian 12 packages wrk (closed loop only), not wrk2; locust's
constant_throughput paces each simulated user after its previous response, so a slow response
delays the next request and hides the queue that builds behind it (coordinated omission).
Here an open-loop schedule sends request i at t0 + i / rate whatever happened before, and its
latency is counted from that scheduled time, so time spent waiting for a free connection in the
client counts too. Every loop is bounded in count and in time, and only loopback is allowed.

Also here: the CPU that each group of processes used during a phase (sampled from /proc), and
the memory of a process tree.
"""

import asyncio
import contextlib
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class HttpError(Exception):
    """A request that got no complete HTTP answer (refused, reset, closed, timed out)."""


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Sample:
    """One request: when it was due, when it went out, when its answer was complete."""

    due: float
    sent: float
    done: float
    status: int  # 0 when there was no HTTP answer
    error: str = ""

    @property
    def latency(self) -> float:
        """From the scheduled time: what a user who asked at that moment waited."""
        return self.done - self.due

    @property
    def service(self) -> float:
        """From the moment the request left the client."""
        return self.done - self.sent


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.used = 0

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class HttpClient:
    """Keep-alive connections to one loopback host, at most max_conns at once."""

    def __init__(self, host: str, port: int, *, max_conns: int = 64, timeout: float = 10.0):
        if host not in LOOPBACK:
            raise ValueError(f"loopback only, not {host!r}")
        self.host, self.port, self.timeout = host, port, timeout
        self._slots = asyncio.Semaphore(max_conns)
        self._idle: list[_Conn] = []
        self.opened = 0

    async def close(self) -> None:
        for conn in self._idle:
            conn.close()
        self._idle.clear()

    async def _connect(self) -> _Conn:
        reader, writer = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
        self.opened += 1
        return _Conn(reader, writer)

    async def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
        timeout: float | None = None,
        slot_timeout: float | None = None,
    ) -> Response:
        """One request; raises HttpError when no complete answer came within `timeout` (from
        now, the wait for a free connection included), or, with `slot_timeout`, when no
        connection was free within that many seconds (the request was then never sent)."""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        for name, value in (headers or {}).items():
            head.append(f"{name}: {value}")
        if body or method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {len(body)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body

        async def exchange() -> Response:
            if slot_timeout is None:
                await self._slots.acquire()
            else:
                try:
                    await asyncio.wait_for(self._slots.acquire(), max(0.0, slot_timeout))
                except TimeoutError:
                    raise HttpError("gave up: no connection free in time (never sent)") from None
            try:
                return await self._exchange(method, data)
            finally:
                self._slots.release()

        try:
            return await asyncio.wait_for(
                exchange(), timeout if timeout is not None else self.timeout
            )
        except TimeoutError:
            raise HttpError("timeout") from None

    async def _exchange(self, method: str, data: bytes) -> Response:
        conn = self._idle.pop() if self._idle else None
        # A reused connection may have been closed by the server's keep-alive timeout: such a
        # failure before any byte of the answer is retried once on a new connection.
        for attempt in (1, 2):
            fresh = conn is None
            if conn is None:
                try:
                    conn = await self._connect()
                except OSError as error:
                    raise HttpError(f"connect: {type(error).__name__}") from None
            try:
                response, keep = await _roundtrip(conn, method, data)
            except (asyncio.IncompleteReadError, ConnectionError) as error:
                conn.close()
                conn = None
                if fresh or attempt == 2:
                    raise HttpError(f"closed: {type(error).__name__}") from None
                continue
            except BaseException:
                conn.close()  # cancelled or timed out midway: the connection is unusable
                raise
            conn.used += 1
            if keep:
                self._idle.append(conn)
            else:
                conn.close()
            return response
        raise AssertionError("unreachable")


async def _roundtrip(conn: _Conn, method: str, data: bytes) -> tuple[Response, bool]:
    conn.writer.write(data)
    await conn.writer.drain()
    head = await conn.reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise ConnectionError(f"not HTTP: {lines[0][:80]!r}")
    status = int(parts[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    keep = headers.get("connection", "").lower() != "close"
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        body = b""
    elif "content-length" in headers:
        body = await conn.reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int((await conn.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await conn.reader.readuntil(b"\r\n")
                break
            chunks.append(await conn.reader.readexactly(size))
            await conn.reader.readexactly(2)
        body = b"".join(chunks)
    else:
        body = await conn.reader.read()
        keep = False
    return Response(status, headers, body), keep


async def timed(
    client: HttpClient, method: str, path: str, due: float | None = None, **kwargs: Any
) -> tuple[Sample, Response | None]:
    sent = time.perf_counter()
    try:
        response = await client.request(method, path, **kwargs)
    except HttpError as error:
        done = time.perf_counter()
        return Sample(due if due is not None else sent, sent, done, 0, str(error)), None
    done = time.perf_counter()
    return Sample(due if due is not None else sent, sent, done, response.status), response


async def open_loop(
    client: HttpClient,
    path: str,
    *,
    rate: float,
    seconds: float,
    give_up: float = 10.0,
    headers: dict[str, str] | None = None,
    drain_seconds: float = 15.0,
) -> tuple[list[Sample], float]:
    """GET path at a constant arrival rate: request i is due at t0 + i / rate and starts then,
    whatever the earlier ones are doing. Bounded: rate x seconds requests.

    A request that finds no free connection within `give_up` seconds of its due time is never
    sent (an error); one that is sent is waited for, and is an error when its answer came more
    than `give_up` seconds after it was due. So the client never abandons a request the server
    has (a server cannot tell, and would do the work for nobody), and the server holds at most
    the client's connections' worth of requests. Whatever is still open `drain_seconds` after
    the last was due is cut off (an error). Returns the samples and the seconds the schedule
    took (more than `seconds` when the client itself fell behind)."""
    count = int(rate * seconds)
    slots: list[Sample | None] = [None] * count
    tasks: list[asyncio.Task] = []

    async def one(i: int, due: float) -> None:
        wait = due + give_up - time.perf_counter()
        sample, _ = await timed(
            client,
            "GET",
            path,
            due=due,
            headers=headers,
            slot_timeout=wait,
            timeout=give_up + drain_seconds + seconds,
        )
        if sample.status and sample.latency > give_up:
            sample.error = f"answered more than {give_up:.0f} s after it was due"
        slots[i] = sample

    t0 = time.perf_counter() + 0.05
    for i in range(count):
        due = t0 + i / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i, due)))
    scheduled = time.perf_counter() - t0
    end = t0 + count / rate + drain_seconds
    pending = [t for t in tasks if not t.done()]
    if pending:
        await asyncio.wait(pending, timeout=max(0.0, end - time.perf_counter()))
    cut = time.perf_counter()
    for task in tasks:
        if not task.done():
            task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    samples = [
        slot
        if slot is not None
        else Sample(t0 + i / rate, t0 + i / rate, cut, 0, "not answered by the end of the drain")
        for i, slot in enumerate(slots)
    ]
    return samples, scheduled


async def closed_loop(
    client: HttpClient,
    path: str,
    *,
    concurrency: int,
    seconds: float,
    headers: dict[str, str] | None = None,
    max_requests: int = 1_000_000,
) -> tuple[list[Sample], float]:
    """concurrency loops, each sending its next request when the previous answer is in, for
    `seconds` (bounded by max_requests too). Returns the samples and the elapsed seconds."""
    samples: list[Sample] = []
    start = time.perf_counter()
    stop = start + seconds

    async def loop() -> None:
        while time.perf_counter() < stop and len(samples) < max_requests:
            sample, _ = await timed(client, "GET", path, headers=headers)
            samples.append(sample)

    await asyncio.gather(*(loop() for _ in range(concurrency)))
    return samples, time.perf_counter() - start


async def gather_bounded(jobs: Iterable[Callable[[], Awaitable[Any]]], limit: int) -> list[Any]:
    """Run the jobs, at most `limit` at a time, in order of the iterable; results in that order."""
    gate = asyncio.Semaphore(limit)

    async def run(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return await asyncio.gather(*(run(job) for job in jobs))


# ---- figures -----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of the values; nan when there are none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Summary:
    count: int
    ok: int
    errors: dict[str, int]
    p50: float
    p95: float
    p99: float
    max: float
    mean: float
    rate: float  # answers per second over the phase
    service_p50: float = math.nan
    service_p99: float = math.nan

    @property
    def error_count(self) -> int:
        return self.count - self.ok


def summarize(
    samples: list[Sample], elapsed: float, ok_statuses: Iterable[int] = (200,)
) -> Summary:
    ok_set = set(ok_statuses)
    errors: dict[str, int] = {}
    for s in samples:
        if s.status not in ok_set or s.error:
            key = s.error or f"HTTP {s.status}"
            errors[key] = errors.get(key, 0) + 1
    latencies = [s.latency * 1000 for s in samples]
    services = [s.service * 1000 for s in samples]
    ok = sum(1 for s in samples if s.status in ok_set and not s.error)
    return Summary(
        count=len(samples),
        ok=ok,
        errors=errors,
        p50=percentile(latencies, 50),
        p95=percentile(latencies, 95),
        p99=percentile(latencies, 99),
        max=max(latencies) if latencies else math.nan,
        mean=sum(latencies) / len(latencies) if latencies else math.nan,
        rate=ok / elapsed if elapsed > 0 else math.nan,
        service_p50=percentile(services, 50),
        service_p99=percentile(services, 99),
    )


# ---- CPU and memory from /proc -----------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(ppid, process group, utime + stime in ticks) of a live process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[2]), int(fields[11]) + int(fields[12])


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _busy_ticks() -> int:
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal: everything but idle and iowait
    return sum(values) - values[3] - values[4]


def pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


class BackgroundSampler:
    """A sampler whose `_run` loops in a thread of its own from `with` until the block ends
    (`_run` checks `self._stop` between samples)."""

    join_timeout: float | None = None

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> "BackgroundSampler":
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.join_timeout)


class CpuSampler(BackgroundSampler):
    """CPU used by each group of processes while it runs, sampled every `interval` seconds, so
    short-lived processes (recycled gunicorn workers) lose at most one interval.

    `classify(pid, pgid, cmdline)` names a process's group, or None for "other"; what the
    machine used that no live process accounts for (processes that came and went between two
    samples, the kernel) is "other" too."""

    def __init__(self, classify: Callable[[int, int, str], str | None], interval: float = 0.5):
        super().__init__()
        self.classify, self.interval = classify, interval
        self._names: dict[int, tuple[str, str | None]] = {}
        self.ticks: dict[str, int] = {}
        self.seconds = 0.0
        self.machine_ticks = 0

    def _group(self, pid: int, pgid: int) -> str | None:
        cmd = _cmdline(pid)
        known = self._names.get(pid)
        if known is None or known[0] != cmd:
            known = (cmd, self.classify(pid, pgid, cmd))
            self._names[pid] = known
        return known[1]

    def _sample(self) -> dict[int, tuple[str | None, int]]:
        out = {}
        for pid in pids():
            stat = _stat(pid)
            if stat is not None:
                out[pid] = (self._group(pid, stat[1]), stat[2])
        return out

    def _run(self) -> None:
        last, busy = self._sample(), _busy_ticks()
        start = time.perf_counter()
        while not self._stop.wait(self.interval):
            now, now_busy = self._sample(), _busy_ticks()
            for pid, (group, ticks) in now.items():
                before = last.get(pid)
                used = ticks - before[1] if before is not None else 0
                if used > 0 and group is not None:
                    self.ticks[group] = self.ticks.get(group, 0) + used
            self.machine_ticks += now_busy - busy
            last, busy = now, now_busy
        self.seconds = time.perf_counter() - start

    def cores(self) -> dict[str, float]:
        """Average cores busy per group over the sampled time, with "other" and "machine"."""
        if self.seconds <= 0:
            return {}
        scale = 1 / (CLK_TCK * self.seconds)
        out = {group: ticks * scale for group, ticks in sorted(self.ticks.items())}
        out["other"] = max(0.0, (self.machine_ticks - sum(self.ticks.values())) * scale)
        out["machine"] = self.machine_ticks * scale
        return out


@dataclass
class ProcMemory:
    pid: int
    role: str
    rss_mb: float
    pss_mb: float
    command: str = field(default="")


def memory_of(pid: int) -> tuple[float, float]:
    """(RSS, PSS) in MB of a live process; PSS shares pages between the processes that map them
    (a preloaded gunicorn master and its forked workers), so PSS adds up, RSS does not."""
    rss = pss = math.nan
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, pss


def process_tree(root: int) -> list[int]:
    """The root and every process in its process group or below it (a stack role's processes)."""
    root_stat = _stat(root)
    if root_stat is None:
        return []
    found = {root}
    table = {pid: _stat(pid) for pid in pids()}
    changed = True
    while changed:
        changed = False
        for pid, stat in table.items():
            if stat and pid not in found and (stat[0] in found or stat[1] == root):
                found.add(pid)
                changed = True
    return sorted(found)


def parent_of(pid: int) -> int:
    stat = _stat(pid)
    return stat[0] if stat else 0
