"""The pages players read without logging in: live standings and a table's score sheet (a
player's page, the search for one and the projector are in scoring.views). Each refreshes
itself with HTMX polling; an unchanged page costs a 304."""

import functools
import hashlib
import logging
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from config import redis_keys
from config.http_cache import VERSION_PARAMETER, not_modified
from config.release import release
from scoring import selectors, standings, standings_html, time_called
from scoring.divisions import chosen_division, division_members, podium
from scoring.models import StageStandings
from scoring.services import clock
from scoring.standings_html import (
    ALL,
    TablePage,
    asked_page,
    digest,
    keep,
    kept,
    kept_table,
    standings_table,
)
from tables import selectors as table_selectors
from tournaments.models import Stage, Tournament
from tournaments.selectors import entries_open

logger = logging.getLogger(__name__)


_fresh_or_304 = not_modified  # a 304 while the visitor (or the cache in front) holds it


def _live(response: HttpResponse, etag: str) -> HttpResponse:
    """A live page's version; its caching is config/http_cache.py's (public for anonymous
    visitors, private for a signed-in person). The HTMX fragment shares the page's address."""
    response["ETag"] = etag
    patch_vary_headers(response, ("HX-Request",))
    return response


def _etag(*parts: object) -> str:
    """A page's version: what it shows (`parts`), its language, and the release drawing it (a
    deploy draws every page anew, config/release.py)."""
    return '"' + "-".join(str(part) for part in (*parts, get_language(), release())) + '"'


def _standings_etag(
    stage_id: int,
    built_seq: int,
    status: str,
    tournament_name: str,
    stage_name: str,
    partial: bool,
    page: int | None = 1,
) -> str:
    """The standings page's version: the snapshot, the stage's status (closing a stage changes
    the page, "This stage is over.", but not the snapshot) and the names (renamed in the admin,
    the page must not stay as it was; hashed, as they may hold quotes and letters a header
    cannot); and the page of rows, after the first."""
    # The rows' layout too: pages of another size (a deploy that changed it) are other pages.
    rows = f"r{standings_html.ROWS_PER_PAGE}" + ("" if page == 1 else f"p{page or ALL}")
    names = _names_tag(tournament_name, stage_name)
    return _etag("standings", stage_id, built_seq, status, names, int(partial), rows)


def _names_tag(*names: str) -> str:
    """Names a page shows, for its ETag: hashed (they may hold what a header cannot)."""
    return hashlib.blake2b("\x00".join(names).encode(), digest_size=6).hexdigest()


def _standings_state(
    slug: str, order: int | None = None
) -> tuple[Tournament, Stage | None, StageStandings | None]:
    """The tournament, its current stage (or the played stage of that order) and the snapshot's
    header: one query once play has begun."""
    stages = Stage.objects.select_related("tournament", "standings").filter(tournament__slug=slug)
    if order is not None:
        stages = stages.filter(order=order)
    stage = selectors.current_stage(stages)
    if stage is None and order is not None:
        raise Http404(_("This stage has not been played."))
    if stage is None:
        return get_object_or_404(Tournament, slug=slug), None, None
    meta = getattr(stage, "standings", None)
    if meta is None or meta.computed_at is None:
        meta = standings.standings_meta(stage)
    return stage.tournament, stage, meta


# A slug no address can carry (slugs are letters, digits, - and _), compiled into the statement
# in place of the real one.
_ANY_SLUG = "slug placeholder"


@functools.cache
def _version_statement() -> tuple[str, tuple[Any, ...]]:
    """The SQL of the current stage's version, compiled by Django once per process: compiling
    the page's query took more of a request than running it (docs/PERFORMANCE.md's git history)."""
    current = selectors.played_stages(Stage.objects.filter(tournament__slug=_ANY_SLUG))
    stages = Stage.objects.filter(tournament_id=OuterRef("tournament_id"))
    current = current.annotate(placed=Subquery(stages.last_decides_placings()))
    fields = (
        "tournament_id",
        "pk",
        "status",
        "standings__built_seq",
        "standings__computed_at",
        "tournament__name",
        "name",
        "placed",
        "tournament__practice",
        "tournament__listed",
        "tournament__starts_on",
        "tournament__ends_on",
    )
    return current.values_list(*fields)[:1].query.sql_with_params()


def _placed_mark(placed: bool | None) -> str:
    """What the menu's "Final placings" or "Playoffs" adds to a page's names (its ETag)."""
    return "\x00placed" if placed else ""


def _event_mark(practice: bool, listed: bool) -> str:
    """What a tournament's practice and listing add to its pages' names (their ETags): every
    page says "Practice" on a practice tournament's."""
    return f"\x00practice{int(practice)}listed{int(listed)}"


def _days_mark(starts_on: Any, ends_on: Any) -> str:
    """What a tournament's days add to the standings page's names (its ETag): with days set,
    the page links to their calendar file (scoring/event_calendar.py)."""
    return "\x00days" if starts_on or ends_on else ""


class CurrentVersion(NamedTuple):
    """A tournament's current stage as plain values, in the order _version_statement selects
    them: all the page's ETag and kept copy need."""

    tournament_id: int
    stage_id: int
    status: str
    built_seq: int
    computed_at: Any  # None until the stage's standings were built once
    tournament_name: str
    stage_name: str
    placed: bool | None  # the last stage places everyone by total
    practice: bool
    listed: bool
    starts_on: Any  # the tournament's days (a date, or None)
    ends_on: Any


def _current_version(slug: str) -> CurrentVersion | None:
    """The tournament's current stage's version (CurrentVersion). The names too: renamed (in the
    admin), the page must not stay as it was; and a stage added that places everyone by total
    (or that makes a playoff follow) renames the menu's "Playoffs" (Tournament.placed_by_total)."""
    sql, params = _version_statement()
    with connection.cursor() as cursor:
        cursor.execute(sql, [slug if param == _ANY_SLUG else param for param in params])
        row = cursor.fetchone()
    return None if row is None else CurrentVersion(*row)


def standings_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Live standings of the current stage: one query, then the page from the cache. With
    ?stage=<order>, an earlier stage's (the qualifying standings while the playoffs are on),
    rendered for the request; with ?page=<n> (or all), that page of rows."""
    partial = bool(getattr(request, "htmx", False))
    asked = request.GET.get("page", "")
    page = asked_page(asked)
    chosen = request.GET.get("stage", "")
    order = int(chosen) if chosen.isascii() and chosen.isdigit() and len(chosen) < 6 else None
    asked_division = request.GET.get("division", "")
    fast = order is None and not asked_division
    current = _current_version(slug) if fast else None
    if current is not None and current.computed_at is not None:  # built at least once
        tournament_id, stage_id = current.tournament_id, current.stage_id
        status, built_seq = current.status, current.built_seq
        stage_name = current.stage_name + _placed_mark(current.placed)
        tournament_name = current.tournament_name + _event_mark(current.practice, current.listed)
        tournament_name += _days_mark(current.starts_on, current.ends_on)
        etag = _standings_etag(
            stage_id, built_seq, status, tournament_name, stage_name, partial, page
        )
        if (unchanged := _fresh_or_304(request, etag)) is not None:
            return unchanged
        key = redis_keys.standings_page(tournament_id, etag)
        if (kept_page := _kept_page(request, key)) is not None:
            return _live(kept_page, etag)
        # Another page of rows of a live part already drawn at this version: that part around
        # this page's rows, as kept.
        table = kept_table(stage_id, built_seq, page) if partial and _may_share(request) else None
        version = (tournament_id, stage_id, built_seq, status, tournament_name, stage_name)
        frame = kept(_frame_key(*version, partial)) if table is not None else None
        if frame is not None:
            home = reverse("tournament-home", args=[slug])
            response = HttpResponse(_with_rows(frame, home, None, None, table))
            if _canonical(asked, table):
                _keep_shared(key, response)
            return _live(response, etag)
    # Rendered (or never built) here: the models themselves, and the version again with them.
    tournament, stage, meta = _standings_state(slug, order)
    divisions = list(tournament.divisions.all())
    division = chosen_division(divisions, asked_division)
    played = [(s.order, s.display_name) for s in selectors.played_stages(tournament.stages.all())]
    # An earlier stage's page names the stages played since in its switch: they are part of
    # its version. (The current stage's version changes with them by itself.)
    names = "" if stage is None else stage.name if order is None else f"{stage.name}\x00{played}"
    names += _placed_mark(tournament.placed_by_total) if stage is not None else ""
    members = division_members(division) if division is not None else None
    if division is not None:  # its own page, of its own version: its name and players of now
        names += f"\x00{division.pk}:{division.name}:{digest(members)}"
    # The page says "Practice" on a practice tournament's, before play as after; and before play,
    # "Enter" while entries are open: asked at each request, so that the page's version changes
    # the moment entries open or close by the clock (a seated stage closes them: the fast path
    # above never shows it).
    taking_entries = stage is None and entries_open(tournament)
    tournament_name = tournament.name + _event_mark(tournament.practice, tournament.listed)
    tournament_name += _days_mark(tournament.starts_on, tournament.ends_on)
    tournament_name += "\x00entries" if taking_entries else ""
    etag = (
        _standings_etag(
            stage.pk, meta.built_seq, stage.status, tournament_name, names, partial, page
        )
        if stage and meta
        else _standings_etag(0, 0, "", tournament_name, "", partial, page)
    )
    if (unchanged := _fresh_or_304(request, etag)) is not None:
        return unchanged

    # The live part around the rows is the same for each page of rows of a version: drawn once
    # and kept for the others (the whole field's, for visitors who are not signed in). Not the
    # whole page: its language links name its own address.
    frame_key = None
    if partial and fast and stage and meta and _may_share(request):
        frame_key = _frame_key(
            tournament.pk, stage.pk, meta.built_seq, stage.status, tournament_name, names, partial
        )

    def render_page() -> tuple[HttpResponse, bool]:
        table = standings_table(tournament, stage, meta, members, page) if stage else None
        frame = kept(frame_key) if frame_key else None
        if frame is None:
            context = {
                "tournament": tournament,
                "stage": stage,
                "meta": meta,
                "podium": podium(tournament, stage) if fast else [],  # the final's page
                "stages": list(reversed(played)) if len(played) > 1 else [],
                "chosen": order,
                "divisions": divisions,
                "division": division,
                "time_called": time_called.time_called_summary(stage),
                "entries_open": taking_entries,
                "standings_rows": mark_safe(ROWS_MARK),
                "live_query": mark_safe(QUERY_MARK),
            }
            template = "scoring/_standings.html" if partial else "scoring/standings.html"
            frame = render(request, template, context).content.decode()
            if frame_key and not CSRF_VALUE.search(frame.encode()):
                keep(frame_key, frame)
        home = reverse("tournament-home", args=[tournament.slug])
        response = HttpResponse(_with_rows(frame, home, order, division, table))
        return response, _canonical(asked, table)

    key = redis_keys.standings_page(tournament.pk, etag)
    return _live(_shared_page(request, key, render_page), etag)


def _standings_query(order: int | None, division, page: int | None) -> str:
    """The query of a standings address: its stage, division and page of rows (the first page
    needs none)."""
    asked = [("stage", order), ("division", division and division.pk)]
    if page != 1:
        asked.append(("page", page or ALL))
    query = "&".join(f"{name}={value}" for name, value in asked if value)
    return f"?{query}" if query else ""


# Where a standings page's rows (its page links, its part of the table, the next page's link)
# and its own query go in the frame around them. Never in a page's text: names and everything
# typed are refused with control characters (tournaments.text.check_printable).
ROWS_MARK = "\x00standings-rows\x00"
QUERY_MARK = "\x00standings-query\x00"


def _frame_key(tournament_id: int, *version: Any) -> str:
    """The kept frame of the whole field's standings at a version: named by the version of its
    first page (`version`: _standings_etag's values before the page: the snapshot, the stage's
    status, the names, fragment or page; the language is the request's)."""
    return redis_keys.standings_frame(tournament_id, _standings_etag(*version))


def _canonical(asked: str, table: TablePage | None) -> bool:
    """Whether ?page= as asked is the address of the page of rows shown: not a number beyond the
    last page (each would keep a copy of the last), nor a word or a 0 shown as the first (whose
    language links would carry it)."""
    if table is None:
        return asked == ""
    return asked == ("" if table.page == 1 else str(table.page or ALL))


def _with_rows(frame: str, home: str, order: int | None, division, table) -> str:
    """The frame with a page's rows and its own query in their places."""
    links = _rows_links(order, division, table)
    rows = render_to_string(
        "scoring/_standings_rows.html", {**links, "standings_table": table, "home": home}
    )
    return frame.replace(ROWS_MARK, rows).replace(QUERY_MARK, escape(links["live_query"]))


def _rows_links(order: int | None, division, table) -> dict[str, Any]:
    """The standings part's own query (its hx-get: the stage, division and page chosen), and
    its page links: each page's query, rows and whether it is this one, and the next page's."""
    links = [
        {**link, "query": _standings_query(order, division, link["page"])}
        for link in (table.links() if table else [])
    ]
    page = table.page if table else 1
    following = [link for link in links if page is not None and link["page"] == page + 1]
    shown = [link for link in links if link["current"] and link["page"]]
    return {
        "live_query": _standings_query(order, division, page),
        "row_pages": links,
        "shown_rows": shown[0] if shown else None,  # a page of rows, not every row
        "next_rows": following[0] if following else None,
    }


# The value of a form's CSRF token as {% csrf_token %} writes it. Escaped page content cannot
# imitate it: its quotes would be &quot;.
CSRF_VALUE = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]*)"')


def _shared_page(
    request: HttpRequest, key: str, render_page: Callable[[], tuple[HttpResponse, bool]]
) -> HttpResponse:
    """A page that is the same for every visitor who is not signed in: rendered once per key and
    kept, in this process and in Redis. Signed-in people, and addresses with a query string
    (which the page links back to), get it rendered for them. `render_page` gives the page and
    whether it is the one of its key's every address (when not, it is shown and not kept)."""
    if not _may_share(request):
        return render_page()[0]
    if (kept := _kept_page(request, key)) is not None:
        return kept
    response, for_every_address = render_page()
    if for_every_address:
        _keep_shared(key, response)
    return response


def _keep_shared(key: str, response: HttpResponse) -> None:
    """Keep a page rendered for every visitor who is not signed in: never one holding a
    visitor's CSRF token."""
    if response.status_code == 200 and not CSRF_VALUE.search(response.content):
        keep(key, response.content)


def _may_share(request: HttpRequest) -> bool:
    """The pages ignore every query parameter but the version and the standings' page (part of
    their keys): an address with another is rendered for its visitor."""
    return not (set(request.GET) - {VERSION_PARAMETER, "page"} or request.user.is_authenticated)


def _kept_page(request: HttpRequest, key: str) -> HttpResponse | None:
    """The kept page of _shared_page, if it may be shared with this visitor and is kept."""
    if not _may_share(request):
        return None
    content = kept(key)
    # bytes: a page kept by this version (an older one kept its parts around a CSRF token)
    return HttpResponse(content) if isinstance(content, bytes) else None


def table_sheet(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    table = selectors.sheet_table(slug, order, number)
    tournament, latest = table.stage.tournament, table.latest
    partial = bool(getattr(request, "htmx", False))
    timer = clock.page_clock(table.stage) if table.stage.status == Stage.Status.SEATED else None
    # The clock's state is part of the sheet's version: started, paused or called shows anew.
    if timer is None:
        state = "no-clock"
    elif timer["mode"] == "running":  # by the minute: clock.js counts the seconds down
        state = f"running{(timer['remaining_seconds'] or 0) // 60}m"
    else:  # paused, waiting, up or called: its exact time left
        state = f"{timer['mode']}{timer['remaining_seconds']}"
    # And what its header and menu show: renamed, or a stage added that decides whether a
    # playoff follows, a kept sheet must not stay as it was.
    names = _names_tag(
        tournament.name + _event_mark(tournament.practice, tournament.listed),
        table.stage.name,
        _placed_mark(tournament.placed_by_total),
    )
    updated = latest.timestamp() if latest else 0
    # Its players too (a late player, a name corrected): the stage's last change not a result.
    others = table.every_page_seq or 0
    etag = _etag("sheet", table.pk, updated, others, int(partial), state, names)
    if (unchanged := _fresh_or_304(request, etag)) is not None:
        return unchanged
    sheet = selectors.table_sheet(table, confirmed_only=True)
    context = {
        "tournament": tournament,
        "stage": table.stage,
        "table": table,
        "sheet": sheet,
        "totals": sheet.totals(),
        "clock": timer,
        "called_after": time_called.called_after(table.stage).get(table.number),
        "over_max": table_selectors.over_max_note(table.stage, sheet.seats),
    }
    template = "scoring/_sheet.html" if partial else "scoring/sheet.html"
    return _live(render(request, template, context), etag)
