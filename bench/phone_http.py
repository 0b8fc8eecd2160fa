"""A phone's HTTP/1.1 connection, for the hall's phones (bench/hall_phones.py): one kept-alive
connection, one request at a time, its answer read in the protocol's own callback.

Why not loadgen.HttpClient, which the officials and the other benchmarks use: a phones'
process reads thousands of answers in the half second after each version, and each answer's
Python is what makes its event loop late (and the phones' latencies with it). HttpClient reads
through asyncio's streams (a reader, a writer, a semaphore and a timeout's context per request);
here the answer is gathered in `data_received` and handed over once, whole. A 40 KB answer on
a kept-alive connection costs 79 µs of CPU here against 92 µs for HttpClient, both on uvloop
(108 µs for HttpClient on the standard library's loop, as the hall ran before; measured with a
one-off cost bench that is in git history, bench/loadgen_cost.py). The answers are the same
`loadgen.Response`, the failures the same `loadgen.HttpError`, so `loadgen.timed` times either.
"""

import asyncio

from loadgen import LOOPBACK, HttpError, Response


class Unchunk:
    """Takes HTTP's chunked framing off a body as its bytes arrive, in pieces split anywhere
    (a size line, a chunk's data or its line end cut between two reads). `done` once the last
    (zero-size) chunk and the blank line after it are in; trailers are not expected."""

    def __init__(self) -> None:
        self.raw = b""  # received, not yet taken apart
        self.left = 0  # bytes of the current chunk's data still to come
        self.ending = False  # the zero-size chunk came: the blank line ends the body
        self.done = False

    def feed(self, data: bytes) -> bytes:
        """The chunks' data among the bytes received so far, without the framing."""
        self.raw += data
        out = []
        while self.raw and not self.done:
            if self.left:
                piece, self.raw = self.raw[: self.left], self.raw[self.left :]
                out.append(piece)
                self.left -= len(piece)
                continue
            line, found, rest = self.raw.partition(b"\r\n")
            if not found:
                break
            self.raw = rest
            if self.ending:
                self.done = not line  # (a trailer line would come first: none are sent)
            elif line:
                try:
                    self.left = int(line.split(b";")[0], 16)
                except ValueError:
                    raise ConnectionError(f"not a chunk size: {line[:40]!r}") from None
                self.ending = self.left == 0
            # else: the line end after a chunk's data
        return b"".join(out)


class _Answer(asyncio.Protocol):
    """The connection: each answer gathered as it arrives, then set on the request's future."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.future: asyncio.Future | None = None
        self.buffer = bytearray()
        self.received = 0  # bytes of the current answer so far (0: none yet)
        self._reset()

    def _reset(self) -> None:
        self.head: tuple[int, dict[str, str]] | None = None
        self.length = -1  # the body's Content-Length (-1: chunked, or not known yet)
        self.unchunk: Unchunk | None = None
        self.body: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def send(self, data: bytes, method: str) -> asyncio.Future:
        self.future = asyncio.get_running_loop().create_future()
        self.method, self.received = method, 0
        self.transport.write(data)
        return self.future

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self.head is None:
            if self.buffer:  # the head came in pieces
                self.buffer += data
                data = bytes(self.buffer)
            end = data.find(b"\r\n\r\n")
            if end < 0:
                if not self.buffer:
                    self.buffer += data
                return
            self.buffer.clear()
            head, data = data[:end], data[end + 4 :]  # (one copy of the body's first piece)
            if not self._read_head(head):
                return
        if self.unchunk is not None:
            try:
                self.body.append(self.unchunk.feed(data))
            except ConnectionError as error:
                self._failed(error)
                return
            if self.unchunk.done:
                self._answered()
            return
        if data:
            self.body.append(data)
            self.length -= len(data)
        if self.length <= 0:
            self._answered()

    def _read_head(self, head: bytes) -> bool:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            self._failed(ConnectionError(f"not HTTP: {lines[0][:80]!r}"))
            return False
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, found, value = line.partition(":")
            if found:
                headers[name.strip().lower()] = value.strip()
        status = int(parts[1])
        self.head = (status, headers)
        if self.method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            self.length = 0
        elif headers.get("content-length", "").isdigit():
            self.length = int(headers["content-length"])
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            self.unchunk = Unchunk()
        else:
            self._failed(ConnectionError("an answer without a length (read to the close)"))
            return False
        return True

    def _answered(self) -> None:
        status, headers = self.head
        response = Response(status, headers, b"".join(self.body))
        self._reset()
        if self.future is not None and not self.future.done():
            self.future.set_result(response)

    def _failed(self, error: BaseException) -> None:
        if self.future is not None and not self.future.done():
            self.future.set_exception(error)
        if self.transport is not None:
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.future is not None and not self.future.done():
            self.future.set_exception(exc or ConnectionError("closed by the server"))


class PhoneClient:
    """One phone's kept-alive connection to a loopback host: `request` as HttpClient's, one at
    a time. A kept-alive connection the server closed meanwhile (its keep-alive timeout) is
    opened again once, when it failed before any byte of the answer."""

    def __init__(self, host: str, port: int, *, timeout: float = 10.0) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"loopback only, not {host!r}")
        self.host, self.port, self.timeout = host, port, timeout
        self.opened = 0
        self._conn: _Answer | None = None

    async def close(self) -> None:
        if self._conn is not None and self._conn.transport is not None:
            self._conn.transport.close()
        self._conn = None

    async def request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Response:
        """One request; raises HttpError when no complete answer came within `timeout`."""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        head += [f"{name}: {value}" for name, value in (headers or {}).items()]
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout if timeout is not None else self.timeout)
        for attempt in (1, 2):
            fresh = self._conn is None or self._conn.transport is None
            if fresh:
                self._conn = None
                try:
                    async with asyncio.timeout_at(deadline):
                        _, self._conn = await loop.create_connection(_Answer, self.host, self.port)
                except TimeoutError:
                    raise HttpError("timeout") from None
                except OSError as error:
                    raise HttpError(f"connect: {type(error).__name__}") from None
                self.opened += 1
            conn = self._conn
            answer = conn.send(data, method)
            timer = loop.call_at(deadline, _time_out, answer)
            try:
                return await answer
            except TimeoutError:
                await self._drop()
                raise HttpError("timeout") from None
            except ConnectionError as error:
                await self._drop()
                if fresh or conn.received or attempt == 2:
                    raise HttpError(f"closed: {type(error).__name__}") from None
            except BaseException:
                await self._drop()  # cancelled midway: the connection is unusable
                raise
            finally:
                timer.cancel()
        raise AssertionError("unreachable")

    async def _drop(self) -> None:
        if self._conn is not None and self._conn.transport is not None:
            self._conn.transport.abort()
        self._conn = None


def _time_out(answer: asyncio.Future) -> None:
    if not answer.done():
        answer.set_exception(TimeoutError())
