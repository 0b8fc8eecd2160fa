"""The hall's officials and projector (bench/hall.py), timed in hall.py's own process: the
officials enter results at tables of their own (a PUT with an Idempotency-Key, then the confirm
with If-Match, bench/hall_event.py), pausing `think` seconds before each; the projector polls
`/screen/` every SCREEN_PERIOD seconds, following its `?page=` as the page does."""

import asyncio
import contextlib
import random
import re
import time
from dataclasses import dataclass, field
from html import unescape

from hall_event import ROUNDS, SETUP_ROUNDS, submit_and_confirm
from hall_parts import SCREEN_PERIOD
from hall_phones import BROWSER_ENCODING, HOST, body_of
from loadgen import HttpClient, Sample, run_in_loop, timed


@dataclass
class Desk:
    """What the officials did: every PUT and confirm, and when each confirm was answered 200."""

    samples: list[Sample] = field(default_factory=list)
    acks: list[float] = field(default_factory=list)
    out_of_work: int = 0


def official_jobs(event, officials: int) -> list[list[tuple]]:
    """Each official's table-rounds: the tables whose index is theirs modulo `officials`, the
    rounds after the setup's, round by round."""
    tables = [(tid, *event.tables[tid]) for tid in event.table_ids()]
    jobs: list[list[tuple]] = [[] for _ in range(officials)]
    for round_no in range(len(SETUP_ROUNDS) + 1, ROUNDS + 1):
        for i, (tid, number, seats) in enumerate(tables):
            jobs[i % officials].append((tid, number, seats, round_no))
    return jobs


async def official(
    port: int,
    token: str,
    jobs: list[tuple],
    seed: int,
    think: tuple[float, float],
    stop: asyncio.Event,
    desk: Desk,
):
    rng = random.Random(seed)
    client = HttpClient(HOST, port, max_conns=1, timeout=30)
    try:
        first = True
        for table_id, number, seats, round_no in jobs:
            pause = rng.uniform(0, think[1]) if first else rng.uniform(*think)
            first = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
            if stop.is_set():
                return
            put, confirm = await submit_and_confirm(
                client, token, table_id, number, seats, round_no, rng
            )
            desk.samples += [put, confirm]
            if confirm.status == 200 and not confirm.error:
                desk.acks.append(confirm.done)
        desk.out_of_work += 1
    finally:
        await client.close()


async def projector(port: int, path: str, stop: asyncio.Event, samples: list[Sample]) -> None:
    client = HttpClient(HOST, port, max_conns=1, timeout=30)
    base = path.split("?")[0]
    due = time.perf_counter()
    etag = ""
    try:
        while not stop.is_set():
            headers = {"Accept-Language": "en", "HX-Request": "true", **BROWSER_ENCODING}
            if etag:
                headers["If-None-Match"] = etag
            sample, response = await timed(client, "GET", path, due=due, headers=headers)
            if response is not None and response.status == 200:
                etag = response.headers.get("etag", "")
                found = re.search(
                    r'hx-get="([^"]+)"', body_of(response)[:4000].decode(errors="replace")
                )
                if found:
                    path = unescape(found.group(1))
                    path = path if path.startswith("/") else base
            elif response is not None and response.status != 304:
                sample.error = f"HTTP {response.status}"
            samples.append(sample)
            due += SCREEN_PERIOD
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, due - time.perf_counter()))
    finally:
        await client.close()


# ---- the officials and the projector in a process of their own ---------------------------------


@dataclass(frozen=True)
class DeskPlan:
    """What the desk's process runs: each official's token and table-rounds, and the projector."""

    port: int
    officials: list[tuple[str, list[tuple]]]  # (token, its table-rounds)
    seed: int
    think: tuple[float, float]
    screen_path: str
    loop: str = "uvloop"  # the event loop's kind (loadgen.run_in_loop)


async def _desk(plan: DeskPlan, out, stopped) -> None:
    desk, screen, stop = Desk(), [], asyncio.Event()
    tasks = [
        asyncio.create_task(official(plan.port, token, jobs, plan.seed + i, plan.think, stop, desk))
        for i, (token, jobs) in enumerate(plan.officials)
    ]
    tasks.append(asyncio.create_task(projector(plan.port, plan.screen_path, stop, screen)))
    sent = [0, 0, 0]

    def flush() -> None:
        # What came since the last flush: ("sample", ...), ("ack", ...), ("screen", ...).
        for kind, items, i in (
            ("sample", desk.samples, 0),
            ("ack", desk.acks, 1),
            ("screen", screen, 2),
        ):
            if len(items) > sent[i]:
                out.put((kind, items[sent[i] :]))
                sent[i] = len(items)

    while not stopped.is_set():
        await asyncio.sleep(0.5)
        flush()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    flush()
    out.put(("done", desk.out_of_work))


def run_desk(plan: DeskPlan, out, stopped) -> None:
    """The desk's process: the officials and the projector in an event loop of their own until
    `stopped` (a multiprocessing.Event) is set, putting what they got on `out` (a
    multiprocessing.Queue) every half second, then ("done", officials out of work)."""
    run_in_loop(_desk(plan, out, stopped), plan.loop)
