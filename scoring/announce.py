"""Announcing a tournament's live version to the pages that show it: after a standings snapshot
commits, its version goes to nginx's nchan publisher (settings.LIVE_PUBLISH_URL), which passes it
to every page's EventSource (one channel a language); the pages then fetch their parts with
?v=<version> (live.js).

A version is a short token that changes whenever a rebuild changes what a public page shows:
the snapshot's stage and its built_seq. An announce that fails costs the pages nothing but
speed: they still poll."""

import ipaddress
import json
import logging
import socket
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import Count, Max, Sum
from django.http import HttpRequest
from django.urls import reverse
from django.utils import translation

from config.http_cache import VERSION_PARAMETER
from scoring.models import RoundResult
from scoring.signals import snapshot_announcing
from tournaments.models import Stage

logger = logging.getLogger(__name__)

# The rebuild's worker waits for this at most (per connect and per read): nginx on this machine
# answers in a millisecond, and a dead one must not hold the next rebuild back.
TIMEOUT_SECONDS = 0.5

# Each warm fetch (below) waits this long at most: a render of a 500-player stage under load
# takes a few hundred ms. Per fetch, not for all of them: with one deadline for all, an origin
# slow under a 5,000-phone hall had pages skipped, the worker announcing faster than the origin
# kept up, and the hall run collapsed (docs/PERFORMANCE.md's git history, "Standings in pages
# of rows"); a slow warm holds the next rebuild back instead.
WARM_SECONDS = 2.0

# Never through an HTTP proxy from the environment: the publisher is on this machine.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def live_push(request: HttpRequest) -> dict[str, bool]:
    """A context processor: whether the pages' live parts listen for versions (live.js), which
    they do only where something announces them (nginx's nchan in front, LIVE_PUBLISH_URL)."""
    return {"live_push": bool(settings.LIVE_PUBLISH_URL)}


def language_codes() -> list[str]:
    """The site's languages ("en", "es"): one channel each, one warm of each version each."""
    return [code for code, _name in settings.LANGUAGES]


def live_version(*, stage_id: int, built_seq: int) -> str:
    return f"{stage_id}-{built_seq}"


def table_digests(stage: Stage) -> dict[str, str]:
    """Each table's confirmed results (by table id), what its sheet and its players' pages show
    of them, in a few characters: how many, the sum of their versions (every correction and
    confirmation adds one) and the latest save. A rebuild reads them before the results it
    counts: a result committed in between is in the count and not in the digest, so the next
    build names its table again (once too many, harmless), and no result is ever counted
    without its table being named."""
    rows = (
        RoundResult.objects.filter(stage=stage, status=RoundResult.Status.CONFIRMED)
        .values("table_id")
        .annotate(count=Count("id"), versions=Sum("version"), last=Max("updated_at"))
        .order_by()
    )
    return {
        str(row["table_id"]): f"{row['count']}:{row['versions']}:{row['last'].isoformat()}"
        for row in rows
    }


def changed_tables(before: dict[str, str] | None, now: dict[str, str]) -> list[int] | None:
    """The tables (ids) whose digest differs between the last build's and this one's (a table
    whose results are gone too); None when the last build's is not known."""
    if before is None:
        return None
    return sorted(
        int(table) for table in before.keys() | now.keys() if before.get(table) != now.get(table)
    )


def tables_to_name(
    before: dict[str, str] | None, now: dict[str, str], *, every_page: bool
) -> list[int] | None:
    """What a build tells the pages to fetch besides the standings: the tables whose confirmed
    results changed (changed_tables), or None, every part, when the build includes a change
    that may show on any page (`every_page`: a seat, a name, a tie-break decision, time called)
    or the last build's digests are not known. A player's rank moves with other tables'
    results too: a page whose table no message names shows its new rank at its next fetch
    (the safety poll, live.js's SAFETY_MS), as the standings page shows it at once."""
    if every_page:
        return None
    return changed_tables(before, now)


def message(version: str, tables: list[int] | None) -> str:
    """What the pages hear: the version, then the changed tables' ids ("12-40 7,9", "12-40 -"
    for none: the standings only); the version alone when every part is to fetch again.
    live.js reads it."""
    if tables is None:
        return version
    return f"{version} {','.join(map(str, tables)) or '-'}"


def announce_rebuild(
    *, slug: str, stage_id: int, built_seq: int, tables: list[int] | None = None
) -> bool:
    """Publish the tournament's new version and the tables it changed; True when nginx took it.
    Never raises: a failure is logged as a warning and the pages keep polling. Call it after the
    snapshot commits."""
    base = settings.LIVE_PUBLISH_URL
    if not base:
        return False
    version = live_version(stage_id=stage_id, built_seq=built_seq)
    started = time.monotonic()
    pages = 1
    languages = watched_languages(slug) if settings.LIVE_PUBLIC_ORIGIN else []
    if languages:
        # The snapshot's standings tables drawn here, in the worker, in each language a page
        # listens in (kept in Redis for the web processes): the web's render of the warm fetch
        # below only wraps them, and the officials' requests do not wait behind 500 rows drawn
        # twice. The receiver answers how many pages of rows they have.
        for _receiver, answer in snapshot_announcing.send_robust(
            sender=None, stage_id=stage_id, languages=languages
        ):
            if isinstance(answer, Exception):
                logger.warning("live push: could not draw the standings of %s: %s", slug, answer)
            elif isinstance(answer, int):
                pages = max(pages, answer)
    drawn = time.monotonic()
    hosts = warm(slug, version, pages, languages)
    warmed = time.monotonic()
    said = message(version, tables).encode()
    try:
        # Every language's channel, whether a page listens or not (a channel keeps its newest
        # message for a page that connects later), then the channel of the pages from before
        # the languages had channels of their own.
        for channel in [f"{slug}/{code}" for code in language_codes()] + [slug]:
            request = urllib.request.Request(
                base + channel,
                data=said,
                method="POST",
                headers={"Content-Type": "text/plain", "Accept": "text/json"},
            )
            with _opener.open(request, timeout=TIMEOUT_SECONDS) as answer:
                answer.read()
    except Exception as error:  # refused, timed out, a 403 or 5xx: the pages poll meanwhile
        logger.warning(
            "live push: could not announce version %s of %s to %s after %.2f s: %s",
            version,
            slug,
            base,
            time.monotonic() - started,
            error,
        )
        return False
    logger.info(
        "live push: announced version %s of %s (drawn in %.3f s, %d pages warmed in %s at %d "
        "hosts in %.3f s, announced in %.3f s)",
        version,
        slug,
        drawn - started,
        pages if languages else 0,
        ",".join(languages) or "no language",
        hosts,
        warmed - drawn,
        time.monotonic() - warmed,
    )
    return True


# How long after a page last opened a language's channel that language is still warmed: the
# day a channel keeps its message (deploy/nginx.conf, nchan_message_timeout).
READ_WITHIN_SECONDS = 24 * 60 * 60


def watched_languages(slug: str) -> list[str]:
    """The languages in which pages read the tournament: only those are drawn and warmed for a
    new version. nginx's nchan answers a GET on a channel's publisher address with the
    channel's subscribers and how long ago a page last opened it ("requested": -1 for never;
    the channel exists once a version is published to it), and a 404 for a channel nobody has
    opened or published to. A language is read when a page listens on its channel now or
    opened it within READ_WITHIN_SECONDS: with more than one nginx worker the subscribers are
    counted per worker, and a GET answered by a worker that holds none of them says 0 (it
    comes and goes every second or two), where "requested" is shared by all the workers.
    Every language when it cannot tell (an error, an answer it cannot read): warming one nobody
    reads costs the origin a few renders; not warming one a hall reads costs every phone in it
    a wait on nginx's cache lock."""
    codes = language_codes()
    watched = []
    for code in codes:
        request = urllib.request.Request(
            f"{settings.LIVE_PUBLISH_URL}{slug}/{code}", headers={"Accept": "text/json"}
        )
        try:
            with _opener.open(request, timeout=TIMEOUT_SECONDS) as answer:
                channel = json.loads(answer.read())
                listening, opened_ago = int(channel["subscribers"]), int(channel["requested"])
        except urllib.error.HTTPError as error:
            if error.code == 404:
                continue
            logger.warning("live push: who listens to %s in %s: %s", slug, code, error)
            return codes
        except Exception as error:  # refused, timed out, not what nchan answers
            logger.warning("live push: who listens to %s in %s: %s", slug, code, error)
            return codes
        if listening > 0 or 0 <= opened_ago <= READ_WITHIN_SECONDS:
            watched.append(code)
    return watched


# Warm fetches made at once at each host: a few of its public pool's threads (gunicorn's), not all.
WARM_AT_ONCE = 4


def warm_hosts() -> list[str]:
    """Each web host's nginx that a new version is warmed at (scheme://address:port), each
    with a cache of its own: settings.LIVE_WARM_URLS, a name there with several addresses at
    each of them (compose's nginx service, scaled: one address a replica); without it the
    one host, LIVE_PUBLISH_URL's nginx. A name that does not resolve is left out, warned."""
    if not settings.LIVE_WARM_URLS:
        nginx = urlsplit(settings.LIVE_PUBLISH_URL)
        return [f"{nginx.scheme}://{nginx.netloc}"]
    hosts: list[str] = []
    for url in settings.LIVE_WARM_URLS:
        for host in _each_address(url):
            if host not in hosts:
                hosts.append(host)
    return hosts


def _each_address(url: str) -> list[str]:
    """An http:// URL's host name as each of its IPv4 addresses (IPv6 ones without any), the
    port kept; an address, or an https:// URL (whose certificate names the host), as it is."""
    parts = urlsplit(url)
    name = parts.hostname or ""
    try:
        ipaddress.ip_address(name)
        return [url]
    except ValueError:
        pass
    if parts.scheme != "http":
        return [url]
    port = parts.port or 80
    try:
        found = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    except OSError as error:
        logger.warning("live push: cannot warm %s: %s", url, error)
        return []
    addresses = [info for info in found if info[0] == socket.AF_INET] or found
    hosts = []
    for family, *_rest, address in addresses:
        ip = address[0] if family == socket.AF_INET else f"[{address[0]}]"
        if (host := f"http://{ip}:{port}") not in hosts:
            hosts.append(host)
    return hosts


def warm(slug: str, version: str, pages: int, languages: list[str]) -> int:
    """Fetch the standings' live part at the new version through each web host's nginx
    (warm_hosts: each keeps a cache of its own), each of its `pages` of rows in each of
    `languages`, before the pages hear of it (settings.LIVE_PUBLIC_ORIGIN: the scheme and host
    the phones use, part of nginx's cache key). The burst of phones that follows the message
    then finds it in the cache of the host it reaches; otherwise all but one at each host would
    wait on nginx's cache lock, which it checks every 500 ms. The hosts are warmed at once,
    WARM_AT_ONCE fetches at each; a host whose first pages all failed (down, unreachable) is
    not asked for the others, so a dead host costs a rebuild one WARM_SECONDS at most.
    Never raises; a failed fetch costs the phones that wait. Returns how many hosts took the
    first pages."""
    origin = settings.LIVE_PUBLIC_ORIGIN
    if not origin or not languages:
        return 0
    public = urlsplit(origin)
    hosts = warm_hosts()
    if not hosts:
        return 0

    def fetch(host_code_page: tuple[str, str, int]) -> bool:
        host, code, page = host_code_page
        rows = f"page={page}&" if page > 1 else ""
        with translation.override(code):  # the address live.js asks: the part's hx-get, and v
            home = reverse("tournament-home", args=[slug])
        path = f"{home}?{rows}{VERSION_PARAMETER}={version}"
        request = urllib.request.Request(
            f"{host}{path}",
            headers={
                "Host": public.netloc,
                "X-Forwarded-Proto": public.scheme,
                "HX-Request": "true",  # as htmx asks, and compressed, as browsers take it
                "Accept-Encoding": "gzip",
                # Never turned away as late by the origin (deploy/nginx.conf): the phones wait
                # for this copy on nginx's cache lock.
                "X-Roundhouse-Warm": "1",
            },
        )
        try:
            with _opener.open(request, timeout=WARM_SECONDS) as answer:
                answer.read()
            return True
        except Exception as error:
            logger.warning("live push: could not warm %s at %s: %s", path, host, error)
            return False

    # The first pages first: the origin draws each language's live part for them, and puts
    # the other pages' rows into it (scoring.public).
    with ThreadPoolExecutor(max_workers=WARM_AT_ONCE * len(hosts)) as pool:
        firsts = [(host, code, 1) for host in hosts for code in languages]
        took = {
            host
            for (host, _code, _page), ok in zip(firsts, pool.map(fetch, firsts), strict=True)
            if ok
        }
        live = [host for host in hosts if host in took]
        rest = [
            (host, code, page)
            for page in range(2, pages + 1)
            for host in live
            for code in languages
        ]
        list(pool.map(fetch, rest))
    return len(live)
