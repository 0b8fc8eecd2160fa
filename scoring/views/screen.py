"""The projector's page: large type, the standings a page at a time, the newest results; where
everyone sits while a stage is freshly seated; the medals, the clock and time called."""

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from scoring import selectors, standings, time_called
from scoring.divisions import podium
from scoring.models import RoundResult
from scoring.services import clock, games
from tournaments.links import site_host
from tournaments.models import Stage, Tournament

# The projector shows a page of 30 players, in two columns of 15 that fit a screen's height, and
# turns the page every 8 s: 300 players come round in 80 s. Under a taller heading (the medals of
# every division once the event is decided; a time-limited stage's clock and time called) the
# columns are of 11, so that the rows stay large enough to read across a hall.
SCREEN_COLUMN = 15
SCREEN_SHORT_COLUMN = 11


def screen(request: HttpRequest, slug: str) -> HttpResponse:
    """The projector: large type, pages through the standings, the newest results."""
    tournament = get_object_or_404(Tournament, slug=slug)
    stage = selectors.current_stage(tournament.stages)
    meta = standings.standings_meta(stage) if stage else None
    payload = standings.standings_payload(stage, meta) if stage else None
    newest = (
        RoundResult.objects.filter(stage=stage, status=RoundResult.Status.CONFIRMED)
        .select_related("table")
        .order_by("-updated_at")[:6]
        if stage
        else []
    )
    # A stage just seated, before its first result: where everyone sits, by name.
    seating = stage is not None and stage.status == Stage.Status.SEATED and not newest
    rows = _where_to_sit(stage) if seating else payload["rows"] if payload else []
    placings = podium(tournament, stage)
    timer = clock.page_clock(stage) if stage and stage.status == Stage.Status.SEATED else None
    called = time_called.time_called_summary(stage)
    column = SCREEN_SHORT_COLUMN if placings or timer or called else SCREEN_COLUMN
    pages = max(1, -(-len(rows) // (2 * column)))
    try:
        page = int(request.GET.get("page", "1")) % pages or pages
    except ValueError:
        page = 1
    context = {
        "tournament": tournament,
        "stage": stage,
        "payload": payload,
        "meta": meta,
        "decided": bool(payload)
        and time_called.decided(
            stage,
            payload["ranked_through_round"],
            counted=payload["results_counted"],
            expected=payload["results_expected"],
        ),
        "columns": [
            rows[start : start + column]
            for start in range((page - 1) * 2 * column, page * 2 * column, column)
            if start < len(rows) or start == 0
        ],
        "column_rows": column,  # a full column stretches to the screen's foot
        "page": page,
        "pages": pages,
        "next_page": page % pages + 1,
        "newest": newest,
        "seating": seating,
        "podium": placings,
        "clock": timer,
        "time_called": called,
        # The address the hall types from the screen: the site's, never the request's Host
        # (this page is kept by nginx and shown to everyone after).
        "site_host": site_host(request),
    }
    partial = bool(getattr(request, "htmx", False))
    return render(request, "scoring/_screen.html" if partial else "scoring/screen.html", context)


def _where_to_sit(stage: Stage) -> list[dict[str, Any]]:
    """Every player of a freshly seated stage, by name: their table and seat, and for a game
    seated from the game before, where they came from."""
    seats = stage.seats.select_related("player", "table").order_by("player__name", "player__number")
    return [
        {
            "number": seat.player.number,
            "name": seat.player.name,
            "table": seat.table.number,
            "seat": seat.position,
            "moved": games.moved_text(stage, seat.table.number, seat.from_table),
        }
        for seat in seats
        if seat.to_round is None
    ]
