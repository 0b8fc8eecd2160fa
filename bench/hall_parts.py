"""The pure parts of the hall benchmark (bench/hall.py), tested without a stack in
tests/bench/test_hall.py: the phones' pages and schedule, the lines of nginx's and gunicorn's
access logs, confirmation-to-phone from the phones' answers, and the markdown table.

Vocabulary: a *phone* has one public page open and polls it at that page's rhythm (HTMX's
`every Ns`); a *visit* is the page a phone has open; a *sighting* is a phone's answer that showed
the standings' "N of M results in" count; the *origin* is gunicorn (behind nginx)."""

import bisect
import math
import random
import re
from dataclasses import dataclass
from typing import Any

from loadgen import percentile

# What the public pages poll (templates/scoring/_standings.html every 5s, _sheet.html every 10s,
# player.html every 15s, _screen.html every 8s) and the share of phones on each page: most
# people in a hall watch the standings, fewer their table's sheet or their own page.
PAGE_MIX = (("standings", 5.0, 0.60), ("sheet", 10.0, 0.25), ("player", 15.0, 0.15))
# The standings come in pages of this many rows (scoring/standings_html.py's ROWS_PER_PAGE;
# tests/bench/test_hall.py holds them equal): a standings phone has one of the pages open, each
# page as likely as another (the first is the address a phone opens, the others a link away; a
# hall's phones spread over them is the most the origin can be asked for).
ROWS_PER_PAGE = 100
SCREEN_PERIOD = 8.0
COUNTED_RE = re.compile(r"(\d+)\s+of\s+(\d+)\s+results in")


@dataclass(frozen=True)
class Visit:
    """The page a phone has open: what it polls, and how often (seconds)."""

    kind: str
    path: str
    period: float


def phone_visits(
    count: int,
    *,
    prefix: str,
    slug: str,
    stage_order: int,
    table_numbers: list[int],
    player_numbers: list[int],
    seed: int,
) -> list[Visit]:
    """`count` phones' pages in PAGE_MIX's shares (rounded; the standings take the remainder),
    each page of the standings' rows, sheet and player page one of the event's, chosen with a
    fixed seed."""
    rng = random.Random(seed)
    base = f"{prefix}/t/{slug}"
    sheets = round(count * PAGE_MIX[1][2])
    players = round(count * PAGE_MIX[2][2])
    standings = count - sheets - players
    pages = max(1, -(-len(player_numbers) // ROWS_PER_PAGE))
    visits = [
        Visit("standings", f"{base}/" + (f"?page={page}" if page > 1 else ""), PAGE_MIX[0][1])
        for page in (rng.randint(1, pages) for _ in range(standings))
    ]
    visits += [
        Visit("sheet", f"{base}/tables/{stage_order}/{rng.choice(table_numbers)}/", PAGE_MIX[1][1])
        for _ in range(sheets)
    ]
    visits += [
        Visit("player", f"{base}/players/{rng.choice(player_numbers)}/", PAGE_MIX[2][1])
        for _ in range(players)
    ]
    rng.shuffle(visits)
    return visits


def pages_watched(visits: list[Visit]) -> dict[str, int]:
    """How many distinct pages of each kind the phones have open (the origin's public load
    follows these, not the phones)."""
    return {kind: len({v.path for v in visits if v.kind == kind}) for kind in ("sheet", "player")}


def poll_times(period: float, offset: float, start: float, end: float) -> list[float]:
    """When a phone that opened its page at `start + offset` polls it, before `end`: every
    `period` seconds after the page's load (the load itself is the first)."""
    if period <= 0:
        raise ValueError("period must be positive")
    out = []
    due = start + offset
    while due < end:
        out.append(due)
        due += period
    return out


def prefix_from_location(location: str, slug: str) -> str:
    """The public pages' prefix from the redirect of `/t/<slug>/` ("/en" for `/en/t/<slug>/`, an
    absolute URL too), or "" when there was none."""
    path = re.sub(r"^[a-z]+://[^/]+", "", location or "")
    marker = f"/t/{slug}/"
    at = path.find(marker)
    return path[:at] if at > 0 else ""


# ---- logs ----------------------------------------------------------------------------------------

# deploy/nginx.conf's log_format roundhouse:
# '$remote_addr [$time_local] "$request" $status $body_bytes_sent cache=$upstream_cache_status
#  rt=$request_time urt=$upstream_response_time "$http_user_agent"'
NGINX_LINE = re.compile(
    r'^(?P<addr>\S+) \[(?P<time>[^\]]+)\] "(?P<method>[A-Z]+) (?P<path>\S+)[^"]*" '
    r"(?P<status>\d{3}) (?P<bytes>\d+) cache=(?P<cache>\S*) rt=(?P<rt>[\d.]+) "
    r"urt=(?P<urt>\S+)"
)
# deploy/gunicorn.conf.py's access_log_format: '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
GUNICORN_LINE = re.compile(r'"(?P<method>[A-Z]+) (?P<path>\S+) HTTP/[\d.]+" (?P<status>\d{3}) ')
PUBLIC_PATH = re.compile(r"^(?:/[a-z]{2}(?:-[a-z]+)?)?/t/[^/]+/(?!manage/|enter/)")


@dataclass(frozen=True)
class NginxLine:
    method: str
    path: str
    status: int
    cache: str  # HIT, MISS, EXPIRED, UPDATING, STALE, REVALIDATED, BYPASS, or "-" (not cached)
    request_time: float
    upstream: bool  # nginx went to gunicorn for this answer
    sent: int = 0  # the answer's body bytes, as sent (compressed, when it went so)


def parse_nginx_line(line: str) -> NginxLine | None:
    match = NGINX_LINE.match(line)
    if match is None:
        return None
    return NginxLine(
        method=match["method"],
        path=match["path"],
        status=int(match["status"]),
        cache=match["cache"],
        request_time=float(match["rt"]),
        upstream=match["urt"] != "-",
        sent=int(match["bytes"]),
    )


def is_public(path: str) -> bool:
    """A public page (standings, sheet, player, screen, ...): not the console, the entry pages,
    the API, static files or health checks."""
    return PUBLIC_PATH.match(path) is not None


def nginx_digest(text: str) -> dict:
    """The public pages' answers in a slice of nginx's log: how many, by cache status, and how
    many nginx fetched from gunicorn (background refreshes are subrequests, not logged); and
    nginx's own time (ms, from the request's first byte to the answer's last, the network to the
    phone left out) for a cached answer, for one through gunicorn, and for the officials' results
    (PUT and POST under /api/v1/tables/): the server's side of what the phones and officials
    wait, without the load generator's. Also what the public pages weigh: the bytes nginx sent
    for them, and the size of a standings answer with a body (what a standings phone fetches at
    each version)."""
    by_cache: dict[str, int] = {}
    public = upstream = sent = 0
    standings_sizes: list[float] = []
    hit_ms: list[float] = []
    origin_ms: list[float] = []
    officials_ms: list[float] = []
    for line in text.splitlines():
        parsed = parse_nginx_line(line)
        if parsed is None:
            continue
        if parsed.method in ("PUT", "POST") and parsed.path.startswith("/api/v1/tables/"):
            officials_ms.append(parsed.request_time * 1000)
        if parsed.method != "GET" or not is_public(parsed.path):
            continue
        public += 1
        sent += parsed.sent
        if parsed.status == 200 and page_kind(parsed.path) == "standings":
            standings_sizes.append(parsed.sent)
        by_cache[parsed.cache] = by_cache.get(parsed.cache, 0) + 1
        upstream += parsed.upstream
        (origin_ms if parsed.upstream else hit_ms).append(parsed.request_time * 1000)
    hits = by_cache.get("HIT", 0)
    return {
        "public": public,
        "by_cache": dict(sorted(by_cache.items())),
        "upstream": upstream,
        "hit_ratio": hits / public if public else math.nan,
        "cached_ms": pcts(hit_ms),
        "through_gunicorn_ms": pcts(origin_ms),
        "officials_ms": pcts(officials_ms),
        "public_bytes": sent,
        "standings_bytes": pcts(standings_sizes),
    }


def page_kind(path: str) -> str:
    """standings, sheet, player, screen or other, for a public page's address."""
    path = path.split("?", 1)[0]
    for kind, marker in (("sheet", "/tables/"), ("player", "/players/"), ("screen", "/screen/")):
        if marker in path:
            return kind
    return "standings" if re.fullmatch(r"(?:/[a-z]{2})?/t/[^/]+/", path) else "other"


def gunicorn_public_by_page(text: str) -> dict[str, int]:
    """The public-page requests that reached gunicorn in a slice of its access log (every one,
    nginx's background refreshes included), by page_kind."""
    out: dict[str, int] = {}
    for match in GUNICORN_LINE.finditer(text):
        if match["method"] in ("GET", "HEAD") and is_public(match["path"]):
            kind = page_kind(match["path"])
            out[kind] = out.get(kind, 0) + 1
    return dict(sorted(out.items()))


# ---- confirmation to phone -----------------------------------------------------------------------


def confirmation_to_phone(
    acks: list[float], sightings: list[tuple], counted_before: int
) -> tuple[list[float], int]:
    """For each confirmation (the time its 200 answer came, `acks`), the time until a phone's
    answer (`sightings`: (time the answer came, results counted in it, ...)) first counted it,
    in seconds; and how many were never seen.

    The standings count results: the k-th confirmation answered (in time order) is shown once a
    phone sees `counted_before + k` results, at or after its answer. Confirmations are
    committed before they are answered, so the k-th answered has k results committed before it
    (a result committed earlier but answered later can make this a few milliseconds early)."""
    ordered_acks = sorted(acks)
    ordered = sorted((s[0], s[1]) for s in sightings)
    times = [t for t, _ in ordered]
    delays = []
    missed = 0
    for k, ack in enumerate(ordered_acks, start=1):
        target = counted_before + k
        start = bisect.bisect_left(times, ack)
        seen = next((t for t, n in ordered[start:] if n >= target), None)
        if seen is None:
            missed += 1
        else:
            delays.append(seen - ack)
    return delays, missed


def confirmation_to_each_phone(
    acks: list[float], sightings: list[tuple[float, int, str]], counted_before: int
) -> list[float]:
    """As confirmation_to_phone, for every standings phone rather than the first: for each
    confirmation and each phone that had the standings open before it (a sighting before the
    answer), the seconds until that phone's first answer counting it; a phone that never saw it
    before its last answer is left out (it stopped asking)."""
    by_phone: dict[str, list[tuple[float, int]]] = {}
    for t, n, phone in sightings:
        by_phone.setdefault(phone, []).append((t, n))
    delays = []
    for seen in by_phone.values():
        seen.sort()
        times = [t for t, _ in seen]
        for k, ack in enumerate(sorted(acks), start=1):
            start = bisect.bisect_left(times, ack)
            if start == 0:
                continue  # the phone opened its page after this confirmation
            found = next((t for t, n in seen[start:] if n >= counted_before + k), None)
            if found is not None:
                delays.append(found - ack)
    return delays


# ---- the report --------------------------------------------------------------------------------


def ms(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def seconds(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.2f} s"


def pcts(values: list[float]) -> dict[str, float]:
    return {f"p{q}": percentile(values, q) for q in (50, 95, 99)}


def print_size(r: dict[str, Any]) -> None:
    p = r["phone_ms"]
    print(
        f"  phones: {r['phone_requests']:,} requests ({r['phone_rate']:,.0f}/s), "
        f"{r['phone_errors']} errors, p50 {ms(p['p50'])} p95 {ms(p['p95'])} "
        f"p99 {ms(p['p99'])}; gunicorn {r['origin_public_per_s']:.1f} public/s; "
        f"HIT {r['nginx']['hit_ratio']:.1%}; confirmation to phone p50 "
        f"{seconds(r['visible_s']['p50'])} "
        f"p95 {seconds(r['visible_s']['p95'])}"
        f" ({r['visible_n']}), each phone p95 {seconds(r['visible_each_s']['p95'])}; "
        f"officials p99 {ms(r['official_ms']['p99'])}"
    )
    print("  cores: " + ", ".join(f"{k} {v:.2f}" for k, v in r["cores"].items()), flush=True)
    if r["phone_error_kinds"]:
        print("  errors: " + ", ".join(f"{k}: {v}" for k, v in r["phone_error_kinds"].items()))


def _megabits(sent: int | None, seconds: float) -> str:
    return "-" if sent is None or not seconds else f"{sent * 8 / seconds / 1e6:,.1f} Mbit/s"


def _kilobytes(size: float | None) -> str:
    return "-" if size is None or math.isnan(size) else f"{size / 1000:.1f} KB"


def markdown_table(runs: list[dict], groups: list[str]) -> str:
    """One column per size: the figures of each run (as hall.py's JSON has them)."""
    head = "| | " + " | ".join(f"{r['phones']:,} phones" for r in runs) + " |"
    rule = "|---|" + "---|" * len(runs)

    def row(label: str, cell) -> str:
        return f"| {label} | " + " | ".join(cell(r) for r in runs) + " |"

    rows = [
        head,
        rule,
        row("phone requests/s (answered)", lambda r: f"{r['phone_rate']:,.0f}"),
        row(
            "phones p50 / p95 / p99",
            lambda r: " / ".join(ms(r["phone_ms"][k]) for k in ("p50", "p95", "p99")),
        ),
        row(
            "phones p99 from the send (without the generator's own delay)",
            lambda r: ms(r["phone_service_ms"]["p99"]),
        ),
        row("generator's event loop lag p99", lambda r: ms(r["generator_loop_lag_ms"]["p99"])),
        row(
            "generator's garbage collections: count / longest",
            lambda r: "{count} / {longest}".format(
                count=r.get("generator_gc_pauses_ms", {}).get("count", "-"),
                longest=ms(r.get("generator_gc_pauses_ms", {}).get("max", math.nan)),
            ),
        ),
        row(
            "generator's event loop; its phones' processes' peak memory",
            lambda r: "{loop}; {rss}".format(
                loop=r.get("event_loop", "asyncio"),
                rss=" / ".join(f"{mb:.0f} MB" for mb in r.get("phone_process_max_rss_mb", []))
                or "-",
            ),
        ),
        row("phone errors", lambda r: f"{r['phone_errors']:,} of {r['phone_requests']:,}"),
        row(
            "public requests reaching gunicorn /s",
            lambda r: f"{r['origin_public_per_s']:.1f}",
        ),
        row(
            "of which standings / sheets / players / projector",
            lambda r: " / ".join(
                f"{r['origin_by_page_per_s'].get(k, 0.0):.1f}"
                for k in ("standings", "sheet", "player", "screen")
            ),
        ),
        row(
            "distinct sheets / players' pages the phones watch",
            lambda r: "{sheet} / {player}".format(
                **r.get("pages_watched", {"sheet": "-", "player": "-"})
            ),
        ),
        row("nginx cache HIT ratio (public pages)", lambda r: _ratio(r["nginx"]["hit_ratio"])),
        row(
            "public pages sent by nginx; a standings answer's size p50",
            lambda r: "{rate} ; {size}".format(
                rate=_megabits(r["nginx"].get("public_bytes"), r["seconds"]),
                size=_kilobytes(r["nginx"].get("standings_bytes", {}).get("p50")),
            ),
        ),
        row(
            "confirmation to phone p50 / p95",
            lambda r: (
                f"{seconds(r['visible_s']['p50'])} / {seconds(r['visible_s']['p95'])}"
                f" ({r['visible_n']} results"
                + (f", {r['visible_missed']} not seen" if r["visible_missed"] else "")
                + ")"
            ),
        ),
        row(
            "confirmation to each standings phone p50 / p95",
            lambda r: " / ".join(seconds(r["visible_each_s"][k]) for k in ("p50", "p95")),
        ),
        row(
            "officials p50 / p95 / p99",
            lambda r: (
                " / ".join(ms(r["official_ms"][k]) for k in ("p50", "p95", "p99"))
                + f" ({r['official_requests']} requests, {r['official_errors']} errors)"
            ),
        ),
        row("projector p99", lambda r: ms(r["screen_ms"]["p99"])),
        row(
            "nginx's own time: cached answers p50 / p99",
            lambda r: " / ".join(ms(r["nginx"]["cached_ms"][k]) for k in ("p50", "p99")),
        ),
        row(
            "nginx's own time: public answers through gunicorn p50 / p99",
            lambda r: " / ".join(ms(r["nginx"]["through_gunicorn_ms"][k]) for k in ("p50", "p99")),
        ),
        row(
            "nginx's own time: officials' results p50 / p99",
            lambda r: " / ".join(ms(r["nginx"]["officials_ms"][k]) for k in ("p50", "p99")),
        ),
    ]
    rows += [
        row(f"CPU: {group} (cores)", lambda r, g=group: f"{r['cores'].get(g, 0.0):.2f}")
        for group in groups
    ]
    rows.append(
        row(
            "load average (1 min) at start / end",
            lambda r: f"{r['loadavg_start'][0]:.2f} / {r['loadavg_end'][0]:.2f}",
        )
    )
    return "\n".join(rows)


def _ratio(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.1%}"


# ---- wrk (--compare-wrk) ------------------------------------------------------------------------


WRK_LATENCY = re.compile(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", re.M)


def wrk_figures(text: str) -> dict[str, Any]:
    """Requests/s, latency percentiles (ms) and errors from `wrk --latency`'s output."""
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    out: dict[str, Any] = {f"p{q}": float(v) * scale[u] for q, v, u in WRK_LATENCY.findall(text)}
    rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
    total = re.search(r"(\d+) requests in", text)
    errors = re.search(r"Socket errors: (.*)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out.update(
        rate=float(rate.group(1)) if rate else math.nan,
        requests=int(total.group(1)) if total else 0,
        socket_errors=errors.group(1).strip() if errors else "",
        non_2xx_3xx=int(non2xx.group(1)) if non2xx else 0,
    )
    return out
