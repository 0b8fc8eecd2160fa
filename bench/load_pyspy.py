"""Where the page's time goes in the gunicorn workers, from py-spy's samples (py-spy is no project
dependency: bench_load.py's --py-spy names it)."""

import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from load_stack import ROOT

PROFILE_CATEGORIES = (  # the first that matches, from the innermost frame outwards
    ("SQL: psycopg and the database driver", ("psycopg/", "django/db/backends/")),
    ("cache: Redis client and unpickling", ("redis/", "django/core/cache/")),
    ("template rendering", ("django/template/", "django/templatetags/", "django/utils/html")),
    ("URL reversing", ("django/urls/",)),
    ("ORM: building queries and model instances", ("django/db/models/",)),
    ("middleware, sessions, CSP, axes", ("django/middleware/", "django/contrib/", "csp/", "axes/")),
    ("gunicorn: HTTP, access log", ("gunicorn/",)),
)


def profile_with_py_spy(
    py_spy: str, worker_pids: list[int], seconds: float
) -> list[subprocess.Popen]:
    procs = []
    for pid in worker_pids:
        out = Path(tempfile.gettempdir()) / f"bench-load-pyspy-{pid}.txt"
        procs.append(
            subprocess.Popen(
                [
                    py_spy,
                    "record",
                    "--pid",
                    str(pid),
                    "--duration",
                    str(int(seconds)),
                    "--rate",
                    "200",
                    "--gil",
                    "--format",
                    "raw",
                    "--output",
                    str(out),
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    return procs


def read_py_spy(worker_pids: list[int]) -> dict[str, Any]:
    stacks: Counter = Counter()
    for pid in worker_pids:
        path = Path(tempfile.gettempdir()) / f"bench-load-pyspy-{pid}.txt"
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            frames, _, count = line.rpartition(" ")
            if count.isdigit():
                stacks[frames] += int(count)
        path.unlink()
    total = sum(stacks.values())
    if not total:
        return {}
    categories: Counter = Counter()
    own: Counter = Counter()
    inclusive: Counter = Counter()
    for frames, count in stacks.items():
        parts = frames.split(";")
        category = "other Python (views, Django core, DRF)"
        for frame in reversed(parts):
            hit = next(
                (name for name, keys in PROFILE_CATEGORIES if any(k in frame for k in keys)), None
            )
            if hit:
                category = hit
                break
        categories[category] += count
        own[_short(parts[-1])] += count
        for frame in set(parts):
            if any(k in frame for k in ("/scoring/", "/tournaments/", "/tables/", "/config/")):
                inclusive[_short(frame)] += count
    return {
        "samples": total,
        "categories": {k: v / total for k, v in categories.most_common()},
        "self_top": [(k, v / total) for k, v in own.most_common(12)],
        "project_inclusive": [(k, v / total) for k, v in inclusive.most_common(8)],
    }


def _short(frame: str) -> str:
    # "render (django/template/base.py:1008)" -> "render (django/template/base.py)"
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    for marker in ("site-packages/", "/work/main/", str(ROOT) + "/"):
        if marker in where:
            where = where.split(marker, 1)[1]
    return f"{name} ({where.rsplit(':', 1)[0]})"
