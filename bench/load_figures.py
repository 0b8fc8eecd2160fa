"""The figures of a bench_load.py run as its report reads them, the targets they are held to, and
how a figure is written (milliseconds, verdicts, the cores in use)."""

import argparse
import math
from dataclasses import dataclass
from typing import Any

from load_event import Event
from load_phases import Phase
from procstats import ProcMemory

TARGET_PAGE_P99_MS = 50.0
TARGET_SUBMIT_P99_MS = 100.0
TARGET_VISIBLE_P95_S = 2.0


@dataclass
class Results:
    """Everything report() reads: what the run measured, and the figures drawn from it."""

    args: argparse.Namespace
    event: Event
    info: dict[str, str]
    phases: dict[str, Phase]
    mem: list[ProcMemory]
    standalone: dict[str, float]
    profile: dict[str, Any]
    breakdown: dict[str, Any]
    submit_profile: dict[str, Any]
    quiet: dict[str, float]
    command: str

    @property
    def a(self) -> Phase:
        return self.phases["a"]

    @property
    def a2(self) -> Phase | None:
        return self.phases.get("a2")

    @property
    def bp(self) -> Phase:
        return self.phases["b_page"]

    @property
    def bh(self) -> Phase:
        return self.phases["b_health"]

    @property
    def c(self) -> Phase:
        return self.phases["c"]

    @property
    def c2(self) -> Phase:
        return self.phases["c2"]

    @property
    def d(self) -> Phase:
        return self.phases["d"]

    @property
    def met(self) -> dict[str, bool]:
        """Whether each phase that has a target met it: a, a2, c, c2 and d."""
        sa, a2, sc, sc2, d = self.a.summary, self.a2, self.c.summary, self.c2.summary, self.d
        return {
            "a": sa.p99 < TARGET_PAGE_P99_MS and sa.error_count == 0,
            "a2": a2 is not None
            and a2.summary.p99 < TARGET_PAGE_P99_MS
            and not a2.summary.error_count,
            "c": sc.p99 < TARGET_SUBMIT_P99_MS and sc.error_count == 0,
            "c2": sc2.p99 < TARGET_SUBMIT_P99_MS and sc2.error_count == 0,
            "d": d.extra["p95_s"] < TARGET_VISIBLE_P95_S and not d.extra["failures"],
        }

    @property
    def page_ms(self) -> float:
        return self.standalone.get("p50_ms", math.nan)

    @property
    def web_workers(self) -> int:
        return sum(1 for m in self.mem if m.role == "gunicorn worker")

    @property
    def total_rss(self) -> float:
        return sum(m.rss_mb for m in self.mem)

    @property
    def total_pss(self) -> float:
        return sum(m.pss_mb for m in self.mem)


def ms(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:,.0f} ms" if value >= 10 else f"{value:.1f} ms"


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def cores_line(phase: Phase) -> str:
    c = phase.cores
    if not c:
        return ""
    parts = [f"{k} {v:.2f}" for k, v in c.items() if k not in ("machine",) and v >= 0.01]
    return f"machine {c.get('machine', 0):.2f} of 2 cores busy: " + ", ".join(parts)


def times_over(value: float, target: float) -> str:
    """How many times the target a figure is, with enough digits to tell 1.04x from 1x."""
    ratio = value / target
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2f}x" if ratio < 1.1 else f"{ratio:.1f}x"


def waits_text(waits: dict[str, float]) -> str:
    return "; ".join(f"{name} {value:.2f}" for name, value in waits.items())
