"""Every module of bench/ imports with the project's locked packages: a benchmark left behind by
a change of library (dj-database-url for django-environ) fails here, not on the day it is run."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"

IMPORT_EACH = """
import importlib, pathlib, sys
sys.path.insert(0, sys.argv[1])
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.py")):
    try:
        importlib.import_module(path.stem)
    except Exception as error:
        print(f"{path.name}: {error!r}")
"""


def test_every_benchmark_module_imports():
    modules = sorted(BENCH.glob("*.py"))
    assert len(modules) > 20  # the benchmarks, the hall and the Saturday, and their parts
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, str(BENCH)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},  # no DATABASE_URL or REDIS_URL: importing needs none
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", done.stdout
