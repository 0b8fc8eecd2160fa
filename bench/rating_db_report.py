"""bench_rating_db.py's figures: a measured case, and the small table it writes into the "Ratings
(issue #26)" section of docs/PERFORMANCE.md (that part only, replaced on each run)."""

import statistics
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FULL_TARGET = 60.0
EVENT_TARGET = 1.0
DOCS = ROOT / "docs" / "PERFORMANCE.md"
DOCS_SECTION = "## Ratings (issue #26)"
DOCS_PART = "### Through the database (bench/bench_rating_db.py)"


@dataclass
class Case:
    """One measured case: its times (seconds), parts of the first run, load and memory."""

    name: str
    times: list[float] = field(default_factory=list)
    parts: dict[str, float] = field(default_factory=dict)
    detail: dict[str, float] = field(default_factory=dict)  # the parts, function by function
    gc_seconds: float = 0.0
    load_before: float = 0.0
    load_after: float = 0.0
    rss_before_mib: float = 0.0
    peak_rss_mib: float = 0.0
    points: int = 0
    rounds: int = 0

    @property
    def first(self) -> float:
        return self.times[0]

    def describe(self) -> str:
        parts = ", ".join(f"{name} {seconds:.2f}" for name, seconds in self.parts.items())
        repeats = (
            f"; median of {len(self.times)} runs {statistics.median(self.times):.3f} s "
            f"(min {min(self.times):.3f}, max {max(self.times):.3f})"
            if len(self.times) > 1
            else ""
        )
        detail = ", ".join(f"{name} {seconds:.3f}" for name, seconds in self.detail.items())
        return (
            f"{self.name}: {self.first:.3f} s ({parts}; garbage collector {self.gc_seconds:.2f})"
            f"{repeats}; {self.rounds:,} table-rounds rated, {self.points:,} points written; "
            f"RSS {self.rss_before_mib:.0f} MiB at the start, peak {self.peak_rss_mib:.0f} MiB; "
            f"load average {self.load_before:.2f} -> {self.load_after:.2f}"
            f"\n  function by function: {detail}"
        )


def fill(text: str) -> str:
    return textwrap.fill(text, width=96, break_long_words=False, break_on_hyphens=False)


def summary(cases: dict[str, Case], sizes: dict[str, int], when: str, server: str) -> str:
    """The docs' part: a small table of the figures against the targets."""
    a, b, c = cases["a"], cases["b"], cases["c"]
    event = sizes["corrected event"]

    def split(case: Case) -> str:
        p = case.parts
        return f"{p['load']:.2f} / {p['rate']:.2f} / {p['save'] + p['commit']:.2f}"

    def rss(case: Case) -> str:
        return f"{case.peak_rss_mib:.0f} MiB ({case.rss_before_mib:.0f} at its start)"

    def met(seconds: float, target: float) -> str:
        return "met" if seconds < target else f"**missed** ({seconds / target:.1f}x)"

    loads = [x for case in cases.values() for x in (case.load_before, case.load_after)]
    median_b = statistics.median(b.times)
    rows = [
        f"| a. from nothing ({a.rounds:,} table-rounds, {a.points:,} points) | {a.first:.2f} s "
        f"| {split(a)} | {rss(a)} | < {FULL_TARGET:.0f} s: "
        f"{met(a.first, FULL_TARGET)} |",
        f"| b. one new event ({b.rounds} table-rounds, {b.points} points) | first "
        f"{b.first * 1000:.0f} ms, median {median_b * 1000:.0f} ms of {len(b.times)} | "
        f"{split(b)} | {rss(b)} | < {EVENT_TARGET:.0f} s: "
        f"{met(median_b, EVENT_TARGET)} |",
        f"| c. a correction at event {event} (year 5), replayed from it "
        f"({c.rounds:,} table-rounds, {c.points:,} points) | {c.first:.2f} s | {split(c)} | "
        f"{rss(c)} | — |",
    ]
    return "\n".join(
        [
            DOCS_PART,
            "",
            fill(
                "`clubs.rating_store.rate_club` (what the Celery task runs) on the same history as "
                f"rows: a club, 500 members, 500 tournaments of one stage, {sizes['players']:,} "
                f"players linked to members, {sizes['results']:,} confirmed round results, "
                f"{sizes['scores']:,} scores; then a 501st tournament of 300 table-rounds, and one "
                f"score of event {event} changed (the table's second drops to last). {when}, "
                f"{server}, load average {min(loads):.1f}-{max(loads):.1f} while "
                "other sessions ran tests. Load / rate / save are the rating_store parts (reading "
                "the events, stored points and scores; the engine; deleting and inserting the "
                "points, with the commit); peak RSS is the process's during the case (VmHWM), "
                "its RSS at the start mostly the setup's memory, which Python keeps."
            ),
            "",
            "| case | time | load / rate / save (s) | peak RSS | target |",
            "|---|---|---|---|---|",
            *rows,
            "",
            fill(
                "Where the database's time goes in a: reading the scores (`load_history`, the "
                f"ORM's values_list) {a.detail['load_history'] / sizes['scores'] * 1e6:.1f} µs a "
                f"score, writing the points (`_save`'s bulk_create, and the commit) "
                f"{(a.parts['save'] + a.parts['commit']) / a.points * 1e6:.0f} µs a point; the "
                "engine's part is the engine-only figure above. An event's update (b) is mostly "
                "`load_state`, which reads every stored point of the club "
                f"({b.detail.get('load_state', 0) * 1000:.0f} ms for {a.points:,} points): it "
                "grows with the club's history (a point per member per event); it meets the "
                f"1 s target {EVENT_TARGET / median_b:.1f} times over at this size."
            ),
            "",
            fill(
                "After b and after c the bench checks that the stored points equal a full "
                "recompute of the club's history, float for float, and before it starts that "
                "`load_history` returns the generator's history, table-round for table-round. "
                "Reproduce (about 2 minutes with `--reuse`; the first run builds the rows, about "
                "45 s more):"
            ),
            "",
            "```",
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench \\",
            "    .venv/bin/python bench/bench_rating_db.py --reuse",
            "```",
        ]
    )


def write_docs(part: str) -> None:
    """Replace (or add) the part at the end of the Ratings section, and nothing else."""
    text = DOCS.read_text()
    start = text.index(DOCS_SECTION)
    following = text.find("\n## ", start + len(DOCS_SECTION))
    end = len(text) if following == -1 else following + 1
    section = text[start:end]
    if DOCS_PART in section:
        at = section.index(DOCS_PART)
        after = section.find("\n### ", at + len(DOCS_PART))
        rest = "" if after == -1 else section[after + 1 :]
        section = section[:at] + part + "\n" + ("\n" + rest if rest else "")
    else:
        section = section.rstrip("\n") + "\n\n" + part + "\n"
    if following != -1 and not section.endswith("\n\n"):
        section += "\n"
    DOCS.write_text(text[:start] + section + text[end:])
    print(f"wrote {DOCS_PART[4:]} in {DOCS.relative_to(ROOT)}")
