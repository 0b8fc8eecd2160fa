"""A rally's pages for everyone: the chapter standings (/<lang>/rallies/<slug>/) and the
projector's view of them, both refreshing themselves (a poll that a 304 answers while nothing
changed); the one entry form for several events; and a player's own schedule at its private
address."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from config import throttles
from config.http_cache import not_modified
from config.refusals import PageRefusal
from config.release import release
from entries.models import Entry
from entries.services import entering
from rallies import points, selectors, services
from rallies.forms import RallyEntryForm, event_when
from rallies.models import Rally, RallyEntry
from scoring.results import ordinal
from tournaments.exceptions import StateConflict
from tournaments.links import site_host, site_origin

# The standings page and the projector ask for a new version this often (seconds); a poll of
# an unchanged version is a 304 from the ETag.
POLL_SECONDS = 15


def _etag(*parts: object) -> str:
    return '"' + "-".join(str(p) for p in (*parts, get_language(), release())) + '"'


def _lines(table: selectors.RallyStandings) -> list[dict]:
    """Each chapter's line as the pages show it, its points said."""
    return [
        {"line": line, "place": ordinal(line.place), "total": points.points_text(line.total)}
        for line in table.lines
    ]


def _events(table: selectors.RallyStandings) -> list[dict]:
    """Each event with the chapters' points in it (a decided event), in the standings' order."""
    return [
        {
            "state": state,
            "when": event_when(state.event),
            "points": [
                (line.name, points.points_text(line.by_event[state.event.pk]))
                for line in table.lines
                if state.event.pk in line.by_event
            ],
        }
        for state in table.events
    ]


def _standings_context(request: HttpRequest, rally: Rally) -> tuple[dict, str]:
    table = selectors.standings(rally)
    context = {
        "rally": rally,
        "table": table,
        "lines": _lines(table),
        "events": _events(table),
        "points_table": ", ".join(str(p) for p in rally.points_table),
        "poll_seconds": POLL_SECONDS,
        "site_host": site_host(request),
    }
    return context, table.version


def rally_page(request: HttpRequest, rally_slug: str) -> HttpResponse:
    """The chapters' standings and each event's state; "most points" once finished."""
    rally = get_object_or_404(Rally, slug=rally_slug)
    context, version = _standings_context(request, rally)
    partial = bool(getattr(request, "htmx", False))
    etag = _etag("rally", rally.pk, version, partial)
    if (unchanged := not_modified(request, etag)) is not None:
        return unchanged
    template = "rallies/_standings.html" if partial else "rallies/rally.html"
    response = render(request, template, context)
    response["ETag"] = etag
    return response


def rally_screen(request: HttpRequest, rally_slug: str) -> HttpResponse:
    """The projector: the chapters' standings in large type."""
    rally = get_object_or_404(Rally, slug=rally_slug)
    context, version = _standings_context(request, rally)
    partial = bool(getattr(request, "htmx", False))
    etag = _etag("rally-screen", rally.pk, version, partial)
    if (unchanged := not_modified(request, etag)) is not None:
        return unchanged
    template = "rallies/_screen.html" if partial else "rallies/screen.html"
    response = render(request, template, context)
    response["ETag"] = etag
    return response


def _entered_text(rally_entry: RallyEntry, email: str) -> str:
    """What the player is told once entered: in how many events, and on which waitlists."""
    entries = list(rally_entry.entries.select_related("tournament"))
    waiting = [e.tournament.name for e in entries if e.status == Entry.Status.WAITLISTED]
    entered = len(entries) - len(waiting)
    if not waiting:
        said = ngettext(
            "You are entered in %(count)s event.", "You are entered in %(count)s events.", entered
        )
    elif entered:
        said = ngettext(
            "You are entered in %(count)s event; on the waitlist for %(events)s.",
            "You are entered in %(count)s events; on the waitlist for %(events)s.",
            entered,
        )
    else:
        said = _("You are on the waitlist for %(events)s.")
    said %= {"count": entered, "events": ", ".join(waiting)}
    return f"{said} " + _(
        "Each event's link is mailed to %(email)s; keep this page's address: it is your schedule."
    ) % {"email": email}


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def register(request: HttpRequest, rally_slug: str) -> HttpResponse:
    """One entry for several of the rally's events; then the player's schedule."""
    rally = get_object_or_404(Rally, slug=rally_slug)
    events = list(selectors.rally_events(rally))
    states = {event.pk: selectors.entry_state(event) for event in events}
    form = RallyEntryForm(request.POST or None, rally=rally, events=events, states=states)
    status = 200
    if request.method == "POST":
        if (wait := throttles.ENTRIES.wait(request)) is not None:
            response = render(request, "entries/too_many.html", {"wait": wait}, status=429)
            response["Retry-After"] = str(wait)
            return response
        throttles.ENTRIES.mark(request)
        if form.is_valid():
            data = form.cleaned_data
            details = entering.Details(
                name=data["name"],
                email=data["email"],
                phone=data["phone"],
                household=data["household"],
                birth_year=data.get("birth_year"),
                messages_ok=data["messages_ok"],
            )
            with PageRefusal(StateConflict, ValidationError) as refusal:
                rally_entry = services.enter_rally(
                    rally=rally,
                    events=data["events"],
                    chapter=data["chapter"],
                    details=details,
                    origin=site_origin(request),
                    language=request.LANGUAGE_CODE,
                )
                messages.success(request, _entered_text(rally_entry, data["email"]))
                return redirect("rally-schedule", rally_slug=rally.slug, key=rally_entry.manage_key)
            refusal.onto(form)
            status = refusal.status
        else:
            status = 400
    context = {
        "rally": rally,
        "form": form,
        "events": events,
        "any_open": any(state in (selectors.OPEN, selectors.WAITLIST) for state in states.values()),
    }
    return render(request, "rallies/register.html", context, status=status)


@never_cache
@require_http_methods(["GET", "HEAD"])
def schedule(request: HttpRequest, rally_slug: str, key: str) -> HttpResponse:
    """The player's own events in time order, each with its entry's state and link, and where
    to sit once a stage is seated."""
    if (wait := throttles.ENTRY_KEYS.wait(request)) is not None:
        response = render(request, "entries/too_many.html", {"wait": wait}, status=429)
        response["Retry-After"] = str(wait)
        return response
    rally_entry = (
        RallyEntry.objects.select_related("rally", "chapter")
        .filter(manage_key=key, rally__slug=rally_slug)
        .first()
    )
    if rally_entry is None:
        throttles.ENTRY_KEYS.mark(request)
        return render(request, "entries/no_entry.html", status=404)
    context = {
        "rally": rally_entry.rally,
        "rally_entry": rally_entry,
        "lines": [(line, event_when(line.event)) for line in selectors.schedule(rally_entry)],
    }
    return render(request, "rallies/schedule.html", context)
