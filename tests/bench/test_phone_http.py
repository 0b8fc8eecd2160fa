"""The hall's phone connection (bench/phone_http.py) against a real socket server: what a
phone gets for each kind of answer, and what it says when there is none."""

import asyncio
import concurrent.futures
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import hall_phones
from hall_parts import Visit
from loadgen import HttpError, run_in_loop
from phone_http import PhoneClient, Unchunk

BODY = b"<section>12 of 250 results in.</section>" * 1000  # 40 KB, as a standings fragment


def run(coroutine, loop: str = "uvloop"):
    # In a thread of its own: in the whole suite, the browser tests' Playwright keeps an event
    # loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(run_in_loop, coroutine, loop).result()


def chunked(body: bytes, size: int) -> bytes:
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


async def serving(answers, check):
    """A server that answers the n-th request of each connection with answers(n) (bytes, split
    into writes of 1,000 bytes; None: close the connection without answering), and runs
    check(port) as a client against it."""
    connections = []

    async def handle(reader, writer):
        connections.append(writer)
        n = 0
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                answer = answers(len(connections), n)
                n += 1
                if answer is None:
                    writer.close()
                    return
                for i in range(0, len(answer), 1000):  # in pieces, as a network delivers it
                    writer.write(answer[i : i + 1000])
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await check(port), len(connections)
    finally:
        server.close()


def ok(body: bytes, extra: bytes = b"") -> bytes:
    return b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\nETag: "v7"\r\n%s\r\n%s' % (
        len(body),
        extra,
        body,
    )


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_phone_reads_its_answers_on_one_kept_alive_connection(loop):
    """Content-Length, chunked (split anywhere) and 304 answers, one after the other on the same
    connection: each whole, the headers read, no second connection opened."""
    answers = [
        ok(BODY),
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(BODY, 777),
        b'HTTP/1.1 304 Not Modified\r\nETag: "v7"\r\n\r\n',
    ]

    async def check(port):
        phone = PhoneClient("127.0.0.1", port, timeout=5)
        got = [await phone.request("GET", "/t/x/?v=1") for _ in answers]
        await phone.close()
        return got, phone.opened

    (got, opened), connections = run(serving(lambda c, n: answers[n], check), loop)
    assert [r.status for r in got] == [200, 200, 304]
    assert got[0].body == BODY and got[1].body == BODY and got[2].body == b""
    assert got[0].headers["etag"] == '"v7"'
    assert (opened, connections) == (1, 1)


def test_a_connection_the_server_closed_meanwhile_is_opened_again_once():
    """nginx closes an idle kept-alive connection: the next request (failing before any byte of
    its answer) goes out again on a new one; a second failure is the phone's error."""

    async def check(port):
        phone = PhoneClient("127.0.0.1", port, timeout=5)
        first = await phone.request("GET", "/")
        second = await phone.request("GET", "/")  # the first connection closes instead
        return first.body, second.body, phone.opened

    first, second, opened = run(serving(lambda c, n: ok(b"hello") if n == 0 else None, check))[0]
    assert (first, second, opened) == (b"hello", b"hello", 2)

    async def never(port):
        phone = PhoneClient("127.0.0.1", port, timeout=5)
        with pytest.raises(HttpError, match="closed"):
            await phone.request("GET", "/")
        return phone.opened

    assert run(serving(lambda c, n: None, never))[0] == 1  # a fresh connection: no retry


def test_an_answer_cut_midway_or_late_or_unframed_is_an_error_not_a_short_body():
    def cut(connection, n):
        return ok(BODY)[:5000] if connection == 1 else ok(b"x")

    async def check_cut(port):
        phone = PhoneClient("127.0.0.1", port, timeout=5)

        async def cut_off():
            # the server sends 5,000 bytes and waits: the answer never completes
            return await phone.request("GET", "/", timeout=0.3)

        with pytest.raises(HttpError, match="timeout"):
            await cut_off()
        after = await phone.request("GET", "/")  # a new connection: the old one is unusable
        return after.body, phone.opened

    assert run(serving(cut, check_cut))[0] == (b"x", 2)

    async def check_unframed(port):
        phone = PhoneClient("127.0.0.1", port, timeout=5)
        with pytest.raises(HttpError, match="closed"):
            await phone.request("GET", "/")

    run(serving(lambda c, n: b"HTTP/1.1 200 OK\r\n\r\nno length", check_unframed))

    async def check_not_http(port):
        phone = PhoneClient("127.0.0.1", port, timeout=5)
        with pytest.raises(HttpError, match="closed"):
            await phone.request("GET", "/")

    run(serving(lambda c, n: b"SSH-2.0-OpenSSH\r\n\r\n", check_not_http))
    bad_chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n"
    run(serving(lambda c, n: bad_chunk, check_not_http))  # an error, not a phone's task ended
    with pytest.raises(ValueError, match="loopback only"):
        PhoneClient("example.org", 80)


def test_unchunk_reads_a_body_split_at_every_point():
    framed = chunked(b"0123456789abcdef" * 5, 7)
    for split in range(len(framed) + 1):
        unchunk = Unchunk()
        body = unchunk.feed(framed[:split])
        assert not unchunk.done or split == len(framed)
        body += unchunk.feed(framed[split:])
        assert body == b"0123456789abcdef" * 5
        assert unchunk.done


def test_a_phone_turned_away_as_late_opens_its_page_again_after_the_wait_named():
    # As a browser on templates/503.html does (it reloads itself after Retry-After): the hall's
    # phone counts the 503 as an error and asks again; the page it then gets is what it shows.
    page = b'<section id="standings" data-live-version="7-1">3 of 9 results in.</section>'

    def answers(connection, n):
        if n == 0:
            return b"HTTP/1.1 503 Busy\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
        head = b'HTTP/1.1 200 OK\r\nETag: "s-7"\r\nContent-Length: %d\r\n\r\n' % len(page)
        return head + page

    async def check(port):
        client = PhoneClient("127.0.0.1", port, timeout=5)
        crowd = hall_phones.Crowd()
        visit = Visit("standings", "/en/t/x/", 5.0)
        now = time.perf_counter()
        try:
            shown = await hall_phones._open(
                client, visit, now, {}, crowd, 5.0, now + 30, live_version=True
            )
        finally:
            await client.close()
        return shown, [(a.sample.error, a.counted) for a in crowd.answers]

    (shown, got), _ = run(serving(answers, check))
    assert shown == "7-1"
    assert got == [("HTTP 503", None), ("", 3)]
