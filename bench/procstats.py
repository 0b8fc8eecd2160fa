"""CPU from /proc, for bench/hall.py: the CPU that each group of processes used during a
measurement (sampled in a thread), and the base class of the samplers that run in a thread.
"""

import os
import threading
import time
from collections.abc import Callable

# ---- CPU from /proc ------------------------------------------------------------------------

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
