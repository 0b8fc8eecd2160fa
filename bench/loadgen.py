"""The hall's HTTP client (bench/hall.py and its phones): HTTP/1.1 on asyncio streams, standard
library only.

Why not wrk2 or locust: Debian 12 packages wrk (closed loop only), not wrk2; locust's
constant_throughput paces each simulated user after its previous response, so a slow response
delays the next request and hides the queue that builds behind it (coordinated omission).
Here each phone's schedule is open loop (bench/hall_phones.py): a request is due whatever
happened before, and its latency is counted from when it was due (`timed`'s `due`), so time
spent waiting for a free connection in the client counts too. Only loopback is allowed.

The CPU that each group of processes used (sampled from /proc) is in procstats.py.
"""

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")
LOOPS = ("uvloop", "asyncio")


def run_in_loop(main: Awaitable[Any], loop: str = "uvloop") -> Any:
    """asyncio.run(main) in an event loop of the kind named: "uvloop" (libuv's, in C: a 40 KB
    answer on a kept-alive connection cost this client 92 µs of CPU against 108 µs on the
    standard library's, measured once: see bench/phone_http.py) or "asyncio" (the standard
    library's)."""
    if loop not in LOOPS:
        raise ValueError(f"event loop {loop!r} is not one of {LOOPS}")
    if loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    else:
        factory = asyncio.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


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

        # asyncio.timeout, not wait_for: on 3.11 wait_for runs the exchange in a task of its
        # own, a cost per request that a process of thousands of phones feels.
        try:
            async with asyncio.timeout(timeout if timeout is not None else self.timeout):
                return await exchange()
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
    client: Any, method: str, path: str, due: float | None = None, **kwargs: Any
) -> tuple[Sample, Response | None]:
    """One request of `client` (an HttpClient, or anything with its `request`: the hall's
    phone_http.PhoneClient), timed; the answer, or None when it failed (the sample says why)."""
    sent = time.perf_counter()
    try:
        response = await client.request(method, path, **kwargs)
    except HttpError as error:
        done = time.perf_counter()
        return Sample(due if due is not None else sent, sent, done, 0, str(error)), None
    done = time.perf_counter()
    return Sample(due if due is not None else sent, sent, done, response.status), response


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
