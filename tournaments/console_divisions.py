"""The console's divisions: listed with their ages and players, added, changed, moved and
removed, and whether they share the playoffs; and the flights, divisions made by a split, put
by the organiser's list or removed (split by rating: scoring.views.flights, which shows this
page again); for organisers (as every console page)."""

import functools
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.refusals import PageRefusal, refusal_redirects
from tournaments import services
from tournaments.console import _console, focus_first_error, organised_tournament
from tournaments.exceptions import StateConflict
from tournaments.forms import DivisionForm, DivisionPlayoffsForm, FlightListForm, FlightSplitForm
from tournaments.models import Division, Stage, Tournament
from tournaments.services.divisions import ages_said


def division_action(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A form's action: POST only; opened again as a GET, it goes back to the divisions, as it
    does when refused (the refusal said in its messages)."""
    view = refusal_redirects("manage-divisions", "slug")(view)

    @functools.wraps(view)
    def action(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            return redirect("manage-divisions", slug=slug)
        if request.method != "POST":
            return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
        return view(request, slug, **kwargs)

    return login_required(action)


def _page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    status: int = 200,
    new_form: DivisionForm | None = None,
    changed: tuple[int, DivisionForm] | None = None,
    playoffs_form: DivisionPlayoffsForm | None = None,
    split_form: FlightSplitForm | None = None,
    list_form: FlightListForm | None = None,
) -> HttpResponse:
    groups = list(
        tournament.divisions.annotate(player_count=Count("players")).order_by("order", "name")
    )
    divisions = [g for g in groups if not g.flight]
    flights = [g for g in groups if g.flight]
    rows = []
    for division in divisions:
        if changed and changed[0] == division.pk:
            form = changed[1]
        else:
            form = DivisionForm(instance=division, prefix=f"d{division.pk}")
        rows.append({"division": division, "ages": ages_said(division), "form": form})
    new_form = new_form or DivisionForm(prefix="new")
    for form in (new_form, changed and changed[1]):
        focus_first_error(form or None)
    seated = tournament.stages.exclude(status=Stage.Status.PENDING).exists()
    for form in (split_form, list_form):
        focus_first_error(form)
    context = {
        "flights": flights,
        "split_form": split_form or FlightSplitForm(initial={"count": len(flights) or 2}),
        "list_form": list_form or flight_list_form(tournament),
        # A move out of a flight asks first once rounds are entered (services.flights).
        "flights_ask": bool(flights) and services.has_results(tournament),
        "flights_open": bool(split_form and split_form.errors),
        "list_open": bool(list_form and list_form.errors),
        "division_rows": rows,
        "division_form": new_form,
        "division_changed": changed[0] if changed else None,
        "playoffs_form": playoffs_form
        or DivisionPlayoffsForm(initial={"division_playoffs": tournament.division_playoffs}),
        "playoffs_fixed": seated,
    }
    return _console(
        request, tournament, status=status, section="divisions", section_context=context
    )


@login_required
def divisions(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, organised_tournament(request, slug))


@division_action
def add_division(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    form = DivisionForm(request.POST, prefix="new")
    saved = _saved(
        request,
        slug,
        form,
        lambda data: services.create_division(tournament=tournament, **data),
        _("Added the division %(name)s."),
    )
    return saved or _page(request, tournament, status=400, new_form=form)


def _saved(
    request: HttpRequest,
    slug: str,
    form: DivisionForm,
    save: Callable[[dict], Division],
    done: str,
) -> HttpResponse | None:
    """Save a valid division form (`save` takes its cleaned data): back to the page saying
    `done`, or to it with the refusal (division_action); None when the form or the service
    found a bad field (put on the form, for the page to show again with a 400)."""
    with PageRefusal(ValidationError) as wrong:
        if form.is_valid():
            division = save(form.cleaned_data)
            messages.success(request, done % {"name": division.name})
            return redirect("manage-divisions", slug=slug)
    wrong.onto(form)
    return None


def _division(tournament: Tournament, division_id: int) -> Division:
    return get_object_or_404(Division, tournament=tournament, pk=division_id)


@division_action
def change_division(request: HttpRequest, slug: str, division_id: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    division = _division(tournament, division_id)
    form = DivisionForm(request.POST, instance=division, prefix=f"d{division.pk}")
    saved = _saved(
        request,
        slug,
        form,
        lambda data: services.update_division(division=division, changes=data),
        _("Saved the division %(name)s."),
    )
    return saved or _page(request, tournament, status=400, changed=(division.pk, form))


@division_action
def remove_division(request: HttpRequest, slug: str, division_id: int) -> HttpResponse:
    """Remove a division no player is in, once the box saying so is ticked."""
    tournament = organised_tournament(request, slug)
    division = _division(tournament, division_id)
    if request.POST.get("confirm") != "on":
        messages.error(request, _("Tick the box to remove %(name)s.") % {"name": division.name})
        return redirect("manage-divisions", slug=slug)
    services.remove_division(division=division)
    messages.success(request, _("Removed the division %(name)s.") % {"name": division.name})
    return redirect("manage-divisions", slug=slug)


@division_action
def move_division(request: HttpRequest, slug: str, division_id: int) -> HttpResponse:
    """Move a division one place up or down the order pages list them in."""
    tournament = organised_tournament(request, slug)
    division = _division(tournament, division_id)
    services.move_division(division=division, up=request.POST.get("to") == "up")
    return redirect("manage-divisions", slug=slug)


@division_action
def division_playoffs(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    form = DivisionPlayoffsForm(request.POST)
    if form.is_valid():
        with PageRefusal() as refusal:
            services.set_division_playoffs(tournament=tournament, **form.cleaned_data)
        if refusal:
            refusal.onto(form, "division_playoffs")
        else:
            messages.success(request, _("Saved how the divisions play the playoffs."))
            return redirect("manage-divisions", slug=slug)
    return _page(request, tournament, status=400, playoffs_form=form)


def divisions_page(request: HttpRequest, tournament: Tournament, **forms: Any) -> HttpResponse:
    """The page again with a refused form's errors (400), for the split by rating's view."""
    return _page(request, tournament, status=400, **forms)


def flight_list_form(tournament: Tournament, data: Any = None) -> FlightListForm:
    players = list(tournament.players.select_related("division").order_by("number"))
    return FlightListForm(data, players=players, prefix="list")


@division_action
def list_flights(request: HttpRequest, slug: str) -> HttpResponse:
    """Put each player in the flight the organiser's list names (empty: in none)."""
    tournament = organised_tournament(request, slug)
    form = flight_list_form(tournament, request.POST)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        if form.is_valid():
            changed = services.assign_flights(
                tournament=tournament,
                flights=form.assignment(),
                confirm=form.cleaned_data["confirm"],
            )
            messages.success(request, flights_said(changed))
            return redirect("manage-divisions", slug=slug)
    refusal.onto(form)
    return _page(request, tournament, status=400, list_form=form)


@division_action
def remove_flights(request: HttpRequest, slug: str) -> HttpResponse:
    """Take everyone out of the flights, once the box saying so is ticked."""
    tournament = organised_tournament(request, slug)
    if request.POST.get("confirm") != "on":
        messages.error(request, _("Tick the box to remove the flights."))
        return redirect("manage-divisions", slug=slug)
    moved = services.remove_flights(tournament=tournament, confirm=True)
    message = ngettext(
        "Removed the flights: %(count)s player is in none now.",
        "Removed the flights: %(count)s players are in none now.",
        moved,
    )
    messages.success(request, message % {"count": moved})
    return redirect("manage-divisions", slug=slug)


def flights_said(changed: services.FlightsChanged, how: str = "") -> str:
    """What a split or a list did, for the page's message: the flights and their sizes."""
    if not changed.moved:
        said = _("Nobody changed flight.")
    elif how:
        said = ngettext(
            "Changed the flight of %(count)s player %(how)s.",
            "Changed the flight of %(count)s players %(how)s.",
            changed.moved,
        ) % {"count": changed.moved, "how": how}
    else:
        said = ngettext(
            "Changed the flight of %(count)s player.",
            "Changed the flight of %(count)s players.",
            changed.moved,
        ) % {"count": changed.moved}
    sizes = [
        _("%(flight)s: %(count)s") % {"flight": f.title, "count": f.players.count()}
        for f in changed.flights
    ]
    return f"{said} {', '.join(sizes)}." if sizes else said
