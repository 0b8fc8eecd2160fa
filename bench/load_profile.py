"""Where the time of a request goes, in one process: run by bench_load.py in the stack's
environment (PostgreSQL, the Redis cache, DEBUG off) as

    BENCH_MODE=page BENCH_SLUG=<slug> bash deploy/stack.sh manage shell -c \
        "import runpy; runpy.run_path('bench/load_profile.py', run_name='__main__')"

Requests go through Django's test client (the whole middleware stack, no HTTP server); every SQL
query is timed with an execute wrapper. Prints one line: BENCH_JSON {...}.

BENCH_MODE=page: /t/<slug>/ timed part by part (by wrapping the functions the view calls), and
its template rendered again from modified copies of its source (never the files) to tell what
the 1,000 {% url %} tags and the per-cell loop over a row's scores cost.

BENCH_MODE=submit: a round result PUT and its confirmation (BENCH_SUBMIT: token, table, round,
body), each inside a transaction that is rolled back, so nothing is stored and no rebuild is sent.
"""

import cProfile
import functools
import json
import os
import pstats
import statistics
import time
from typing import Any
from unittest import mock

from django.core.cache import cache, caches
from django.db import connection, transaction
from django.template import engines
from django.template.loader import get_template
from django.test import Client, RequestFactory
from django.utils import translation

from scoring import public, selectors, standings, standings_html
from tournaments.models import Tournament

RUNS = 20


class Queries:
    """Every SQL statement the connection runs inside the block, with its time."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []

    def __call__(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.calls.append((sql, time.perf_counter() - start))

    @property
    def ms(self) -> float:
        return sum(t for _, t in self.calls) * 1000


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def page() -> dict[str, Any]:
    slug = os.environ["BENCH_SLUG"]
    tournament = Tournament.objects.get(slug=slug)
    stage = selectors.current_stage(tournament.stages)
    client = Client(HTTP_HOST="127.0.0.1")
    path = f"/en/t/{slug}/"
    for _ in range(3):
        client.get(path)

    clock: dict[str, list[float]] = {}

    def timed(name: str, func: Any) -> Any:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                clock.setdefault(name, []).append(time.perf_counter() - start)

        return wrapper

    views, body = [], b""
    with (
        mock.patch.object(public, "render", timed("template rendering", public.render)),
        mock.patch.object(
            public,
            "standings_table",
            timed("standings table (rendered HTML from Redis)", public.standings_table),
        ),
        mock.patch.object(
            standings, "standings_meta", timed("standings meta (SQL)", standings.standings_meta)
        ),
    ):
        for _ in range(RUNS):
            start = time.perf_counter()
            response = client.get(path)
            views.append(time.perf_counter() - start)
            body = response.content
    queries = Queries()
    with connection.execute_wrapper(queries):
        client.get(path)

    # The snapshot from PostgreSQL, as after a rebuild (the cache entry is dropped then).
    meta = standings.standings_meta(stage)
    from_db = []
    for _ in range(5):
        cache.delete(standings.cache_key(stage.pk))
        start = time.perf_counter()
        payload = standings.standings_payload(stage, meta)
        from_db.append(time.perf_counter() - start)

    # The whole page rendered afresh (the first request after a rebuild: new cache keys).
    fresh = []
    for _ in range(5):
        forget_pages()
        start = time.perf_counter()
        client.get(path)
        fresh.append(time.perf_counter() - start)

    # The table rendered afresh, as by the first request after a rebuild (a new cache key).
    with translation.override("en"):
        cold = []
        for _ in range(5):
            key = standings_html.table_cache_key(stage, meta)
            caches["local"].delete(key)  # kept in the process as well as in Redis
            cache.delete(key)
            start = time.perf_counter()
            standings_html.standings_table(tournament, stage, meta)
            cold.append(time.perf_counter() - start)

    parts = {name: median_ms(times) for name, times in clock.items()}
    parts["standings payload from PostgreSQL (after a rebuild)"] = median_ms(from_db)
    parts["standings table rendered afresh (the first request after a rebuild)"] = median_ms(cold)
    parts["the whole page rendered afresh, table included"] = median_ms(fresh)
    return {
        "runs": RUNS,
        "view_ms": median_ms(views),
        "queries": len(queries.calls),
        "sql_ms": queries.ms,
        "sql": [sql[:160] for sql, _ in queries.calls],
        "parts_ms": parts,
        "bytes": len(body),
        "rows": len(payload["rows"]),
        "variants_ms": template_variants(tournament, stage, meta, payload),
        "template_top": template_profile(client, path),
    }


def template_variants(tournament, stage, meta, payload) -> dict[str, float]:
    """The standings table (rendered on a cache miss) from its own source and from copies changed
    in memory (never the files): with a tenth of the rows (the cost per row), without number
    localization, without autoescaping. Fastest of 9 each, interleaved so other load hits every
    variant."""
    with open(get_template("scoring/_standings_table.html").origin.name) as f:
        source = f.read()
    rounds = list(range(1, stage.rounds + 1))

    def context_for(rows_payload: dict) -> dict:
        rows = standings_html._display_rows(tournament, stage, rows_payload, rounds)
        return {"rows": rows, "rounds": rounds}

    tenth = {**payload, "rows": payload["rows"][: max(1, len(payload["rows"]) // 10)]}
    request = RequestFactory().get(f"/en/t/{tournament.slug}/", HTTP_HOST="127.0.0.1")
    engine = engines["django"]
    full, small = context_for(payload), context_for(tenth)
    variants = {
        f"the fragment as it is ({len(payload['rows'])} rows)": (source, full),
        f"the same with {len(tenth['rows'])} rows": (source, small),
        "without number localization ({% localize off %})": (
            "{% load l10n %}{% localize off %}" + source + "{% endlocalize %}",
            full,
        ),
        "without autoescaping ({% autoescape off %})": (
            "{% autoescape off %}" + source + "{% endautoescape %}",
            full,
        ),
    }
    compiled = {name: (engine.from_string(text), ctx) for name, (text, ctx) in variants.items()}
    times: dict[str, list[float]] = {name: [] for name in compiled}
    for _ in range(10):
        for name, (template, ctx) in compiled.items():
            start = time.perf_counter()
            template.render(ctx, request)
            times[name].append(time.perf_counter() - start)
    return {name: min(values[1:]) * 1000 for name, values in times.items()}


def forget_pages() -> None:
    """Drop the kept pages and tables (this process's and the stack's Redis cache db), so that
    the next request renders afresh."""
    caches["local"].clear()
    cache.clear()


def template_profile(client: Client, path: str) -> list[tuple[str, float]]:
    """One page rendered afresh, under cProfile: cumulative shares of some tags' work."""
    forget_pages()
    profiler = cProfile.Profile()
    original = public.render

    def profiled_render(*args: Any, **kwargs: Any) -> Any:
        profiler.enable()
        try:
            return original(*args, **kwargs)
        finally:
            profiler.disable()

    with mock.patch.object(public, "render", profiled_render):
        client.get(path)
    stats = pstats.Stats(profiler).stats
    total = max(v[3] for v in stats.values())
    wanted = {
        "{% url %} tags (reverse)": ("urls/base.py", "reverse"),
        "number localization (numberformat)": ("utils/numberformat.py", "format"),
        "|stringformat filter": ("defaultfilters.py", "stringformat"),
        "{% blocktranslate %}/{% translate %}": ("templatetags/i18n.py", "render"),
        "autoescaping (conditional_escape)": ("utils/html.py", "conditional_escape"),
    }
    out = []
    for label, (file_part, func) in wanted.items():
        cumulative = sum(
            value[3]
            for (filename, _, name), value in stats.items()
            if filename.endswith(file_part) and name == func
        )
        if cumulative:
            out.append((label, cumulative / total))
    return sorted(out, key=lambda item: -item[1])


class Rollback(Exception):
    pass


def submit() -> dict[str, Any]:
    spec = json.loads(os.environ["BENCH_SUBMIT"])
    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Token {spec['token']}")
    url = f"/api/v1/tables/{spec['table']}/rounds/{spec['round']}/"
    out: dict[str, Any] = {"put": [], "confirm": []}
    put_queries = confirm_queries = Queries()
    for i in range(6):
        put_queries, confirm_queries = Queries(), Queries()
        try:
            with transaction.atomic():
                start = time.perf_counter()
                with connection.execute_wrapper(put_queries):
                    response = client.put(
                        url,
                        data=json.dumps(spec["body"]),
                        content_type="application/json",
                        HTTP_IDEMPOTENCY_KEY=f"bench-profile-{time.time_ns()}",
                    )
                put_time = time.perf_counter() - start
                if response.status_code != 201:
                    return {"error": f"PUT {response.status_code}: {response.content[:300]!r}"}
                start = time.perf_counter()
                with connection.execute_wrapper(confirm_queries):
                    response = client.post(url + "confirm/", HTTP_IF_MATCH=response["ETag"])
                confirm_time = time.perf_counter() - start
                if response.status_code != 200:
                    return {"error": f"confirm {response.status_code}: {response.content[:300]!r}"}
                raise Rollback
        except Rollback:
            pass
        if i:  # the first is a warm-up
            out["put"].append(put_time)
            out["confirm"].append(confirm_time)
    return {
        "put_ms": median_ms(out["put"]),
        "confirm_ms": median_ms(out["confirm"]),
        "put_queries": len(put_queries.calls),
        "put_sql_ms": put_queries.ms,
        "confirm_queries": len(confirm_queries.calls),
        "confirm_sql_ms": confirm_queries.ms,
        "put_sql": [sql[:120] for sql, _ in put_queries.calls],
        "confirm_sql": [sql[:120] for sql, _ in confirm_queries.calls],
    }


if __name__ == "__main__":
    mode = os.environ.get("BENCH_MODE", "page")
    print("BENCH_JSON " + json.dumps(page() if mode == "page" else submit()))
