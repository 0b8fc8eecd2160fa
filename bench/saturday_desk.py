"""The Saturday's officials (bench/saturday.py), in a process of their own, as the hall's desk
(bench/hall_desk.py, whose `official` each of them is): every event's officials, each entering
the results of its tables (a PUT with an Idempotency-Key, then the confirm with If-Match),
pausing before each; what each event's officials did, by event, at the end."""

import asyncio
import os
import time
from dataclasses import dataclass

from hall_desk import Desk, official
from loadgen import run_in_loop


@dataclass(frozen=True)
class Official:
    """One official: the event, the host (nginx's port) it enters through, its token, its
    table-rounds and its pause before each (min, max seconds)."""

    key: str  # "<slug>#<n>": the event's n-th official
    port: int
    token: str
    jobs: list[tuple]
    think: tuple[float, float]
    seed: int


async def _desk(officials: list[Official], until: float) -> dict[str, Desk]:
    desks = {o.key: Desk() for o in officials}
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(official(o.port, o.token, o.jobs, o.seed, o.think, stop, desks[o.key]))
        for o in officials
    ]
    await asyncio.sleep(max(0.0, until - time.perf_counter()))
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return desks


def run_desk(officials: list[Official], until: float, loop: str = "uvloop") -> dict[str, Desk]:
    """The officials at work until `until` (time.perf_counter(): the same clock in every
    process), then what each did (by its key): its requests' samples and its confirmations'
    answers."""
    return run_in_loop(_desk(officials, until), loop)


def ready() -> int:
    return os.getpid()
