"""The organiser's seating pages: seat a stage, see its tables, late players, withdrawals."""

import copy
import functools
from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.db.models import Count
from django.forms.models import model_to_dict
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.refusals import refusal_text
from tables import seating, selectors, services
from tables.forms import LatePlayerForm, SeatStageForm
from tournaments import services as tournament_services
from tournaments.csvfiles import ImportRejected, unknown_columns
from tournaments.exceptions import StateConflict
from tournaments.forms import (
    DayOfPlayForm,
    ImportPlayersForm,
    NewStageForm,
    PlayerForm,
    TableSizesForm,
)
from tournaments.models import Player, Stage, Tournament
from tournaments.permissions import is_organiser
from tournaments.selectors import player_history


def organised_tournament(request: HttpRequest, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_organiser(request.user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may open this page.")
            % {"tournament": tournament.name}
        )
    return tournament


def form_action(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A form's action, which answers a refused form with its page and the errors (400): the
    browser then shows the action's address, and opening it again (Enter in the address bar, a
    restored tab) is a GET, which goes back to the page the form is on, not to a 405."""

    @functools.wraps(view)
    def action(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            if "order" in kwargs:
                return redirect("manage-stage", slug=slug, order=kwargs["order"])
            return redirect("manage", slug=slug)
        if request.method != "POST":
            return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
        return view(request, slug, **kwargs)

    return action


def _errors_onto(form: forms.Form, error: ValidationError) -> None:
    """A service's errors beside the form's fields; those of settings it does not show (a
    check across fields), above them."""
    found = (
        error.message_dict if hasattr(error, "error_dict") else {NON_FIELD_ERRORS: error.messages}
    )
    for field, texts in found.items():
        form.add_error(field if field in form.fields else None, texts)


def _console(
    request: HttpRequest, tournament: Tournament, status: int = 200, **forms
) -> HttpResponse:
    stages = tournament.stages.annotate(table_count=Count("tables", distinct=True))
    players = list(tournament.players.order_by("number"))
    for form in (forms.get("player_form"), forms.get("stage_form")):
        _focus_first_error(form)
    context = {
        "tournament": tournament,
        "stages": stages,
        "players": players,
        "player_form": forms.get("player_form") or PlayerForm(),
        "import_form": forms.get("import_form") or ImportPlayersForm(),
        "stage_form": forms.get("stage_form") or NewStageForm.following(tournament),
        "final": Stage.objects.final_of(tournament),
        "sweep_seconds": max(1, round(settings.STANDINGS_SWEEP_SECONDS)),
        "import_errors": forms.get("import_errors", []),
        "counts": {
            status: sum(1 for p in players if p.status == status) for status in Player.Status.values
        },
    }
    return render(request, "tables/console.html", context, status=status)


def _focus_first_error(form: forms.Form | None) -> None:
    """A form shown again with errors, far down a long page: its first wrong field takes the
    focus (autofocus), so the browser brings it, and what is wrong with it, into view."""
    if form is None:
        return
    for name in form.errors:
        if name in form.fields:
            form.fields[name].widget.attrs["autofocus"] = True
            return


@login_required
def console(request: HttpRequest, slug: str) -> HttpResponse:
    return _console(request, organised_tournament(request, slug))


@login_required
@form_action
def add_stage(request: HttpRequest, slug: str) -> HttpResponse:
    """Add a stage after the last one (a further playoff level, say), with the checks of the
    API's: said done on its page, or shown again on the console with what is wrong."""
    tournament = organised_tournament(request, slug)
    form = NewStageForm(request.POST)
    try:
        tournament_services.check_not_finished(tournament)  # first: the form is gone, say why
        if form.is_valid():
            stage = tournament_services.create_stage(tournament=tournament, **form.cleaned_data)
            done = _("Added %(stage)s as stage %(order)s.")
            messages.success(request, done % {"stage": stage.name, "order": stage.order})
            return redirect("manage-stage", slug=slug, order=stage.order)
    except ValidationError as error:
        _errors_onto(form, error)
    except StateConflict as conflict:
        messages.error(request, str(conflict))
        return redirect("manage", slug=slug)
    return _console(request, tournament, status=400, stage_form=form)


@login_required
@form_action
def remove_stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Remove the last stage while it is not seated, once the box saying so is ticked."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if request.POST.get("confirm") != "on":
        messages.error(request, _("Tick the box to remove %(stage)s.") % {"stage": stage.name})
        return redirect("manage-stage", slug=slug, order=order)
    try:
        tournament_services.remove_stage(stage=stage)
    except StateConflict as conflict:
        messages.error(request, str(conflict))
        return redirect("manage-stage", slug=slug, order=order)
    messages.success(request, _("Removed %(stage)s.") % {"stage": stage.name})
    return redirect("manage", slug=slug)


def _save_player(
    request: HttpRequest, slug: str, form: PlayerForm, save: Callable[..., Player], done: str
) -> HttpResponse | None:
    """Save the form's player with `save`: said done, back to the players; or, refused, the
    reasons put on the form and None."""
    try:
        player = save(**form.cleaned_data)
    except ValidationError as error:
        form.add_error(None, error)
        return None
    except StateConflict as conflict:  # the tournament is over
        form.add_error(None, str(conflict))
        return None
    messages.success(request, _said(done, player))
    return redirect(f"/t/{slug}/manage/#players")


def _said(done: str, player: Player) -> str:
    """A sentence about a player; a name that ends a sentence itself ("John Smith Jr.") takes no
    second full stop."""
    said = done % {"number": player.number, "name": player.name}
    return said[:-1] if said.endswith("..") else said


@login_required
@form_action
def add_player(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    form = PlayerForm(request.POST)
    if form.is_valid():
        create = functools.partial(
            tournament_services.create_player, tournament=tournament, by=request.user
        )
        if saved := _save_player(request, slug, form, create, _("Added #%(number)s %(name)s.")):
            return saved
    return _console(request, tournament, status=400, player_form=form)


@login_required
def edit_player(request: HttpRequest, slug: str, player_id: int) -> HttpResponse:
    """GET shows a player's entry to correct; POST saves it, or shows what is wrong with it."""
    tournament = organised_tournament(request, slug)
    player = get_object_or_404(Player, tournament=tournament, pk=player_id)
    # The form writes what was typed into its instance as it validates: a copy, so that the
    # page still names the player as saved.
    form = PlayerForm(request.POST or None, instance=copy.copy(player))
    if request.method == "POST" and form.is_valid():
        update = functools.partial(
            tournament_services.update_player, player=player, by=request.user
        )
        if saved := _save_player(request, slug, form, update, _("Saved #%(number)s %(name)s.")):
            return saved
    context = {
        "tournament": tournament,
        "player": player,
        "form": form,
        "history": player_history(player),
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "tables/edit_player.html", context, status=status)


@login_required
@form_action
def import_players(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    form = ImportPlayersForm(request.POST, request.FILES)
    if not form.is_valid():
        return _console(request, tournament, status=400, import_form=form)
    content = form.cleaned_data["file"].read()
    try:
        players = tournament_services.import_players(
            tournament=tournament, content=content, by=request.user
        )
    except ImportRejected as rejected:
        return _console(request, tournament, status=400, import_form=form,
                        import_errors=rejected.rows)  # fmt: skip
    except StateConflict as conflict:  # the tournament is over
        form.add_error("file", str(conflict))
        return _console(request, tournament, status=400, import_form=form)
    imported = ngettext("Imported %(count)s player.", "Imported %(count)s players.", len(players))
    messages.success(request, imported % {"count": len(players)})
    if left := unknown_columns(content, columns=tournament_services.IMPORT_COLUMNS):
        messages.warning(
            request,
            _("Not imported, as Roundhouse keeps no such column: %(columns)s.")
            % {"columns": ", ".join(map(repr, left))},
        )
    return redirect(f"/t/{slug}/manage/#players")


@login_required
def stage_tables(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    return _stage_page(request, tournament, stage)


def _settings_form(form_class: type[forms.Form], stage: Stage) -> forms.Form:
    return form_class(initial=model_to_dict(stage, form_class.base_fields))


def _stage_page(
    request: HttpRequest, tournament: Tournament, stage: Stage, status: int = 200, **forms
) -> HttpResponse:
    """The stage's page; a settings form given in `forms` is shown as sent, with its errors."""
    report = stage.seating_report or {}
    context = {
        "tournament": tournament,
        "stage": stage,
        "tables": selectors.tables_with_seats(stage),
        "seat_form": SeatStageForm(),
        "day_form": forms.get("day_form") or _settings_form(DayOfPlayForm, stage),
        "sizes_form": forms.get("sizes_form") or _settings_form(TableSizesForm, stage),
        "late_form": LatePlayerForm(stage=stage),
        "results": stage.round_results.count(),
        "is_last": not tournament.stages.filter(order__gt=stage.order).exists(),
        # A playoff after another stage is seated by the close of that stage, with its advancers.
        "seated_by_close": stage.kind == Stage.Kind.PLAYOFF
        and tournament.stages.filter(order__lt=stage.order).exists(),
        # In the reader's language (a report stored before 2026-11 has the text only).
        "household_conflicts": [
            seating.household_conflict_text(conflict)
            for conflict in report.get(
                "household_conflict_details", report.get("household_conflicts", [])
            )
        ],
        "seating_warnings": [
            seating.warning_text(warning)
            for warning in report.get("warning_details", report.get("warnings", []))
        ],
    }
    return render(request, "tables/stage.html", context, status=status)


@login_required
@form_action
def seat_stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = SeatStageForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(m for ms in form.errors.values() for m in ms))
        return redirect("manage-stage", slug=slug, order=order)
    try:
        report = services.seat_stage(
            stage=stage, by=request.user, seed=form.cleaned_data["seed"],
            force=form.cleaned_data["force"],
        )  # fmt: skip
    except StateConflict as conflict:
        messages.error(request, str(conflict))
        return redirect("manage-stage", slug=slug, order=order)
    seated = {"players": report.players_seated, "tables": len(report.tables), "seed": report.seed}
    if report.seed is not None:
        text = ngettext(
            "Seated %(players)s players at %(tables)s tables (seed %(seed)s).",
            "Seated %(players)s players at %(tables)s tables (seed %(seed)s).",
            len(report.tables),
        )
    else:
        text = ngettext(
            "Seated %(players)s players at %(tables)s tables.",
            "Seated %(players)s players at %(tables)s tables.",
            len(report.tables),
        )
    text %= seated
    if report.discarded_results:
        discarded = ngettext(
            "%(count)s round result(s) were discarded.",
            "%(count)s round result(s) were discarded.",
            report.discarded_results,
        )
        text += " " + discarded % {"count": report.discarded_results}
    messages.success(request, text)
    for warning in [*report.household_conflicts, *report.warnings]:
        messages.warning(request, warning)
    if report.left_out:
        left_out = ngettext(
            "%(count)s registered player(s) not checked in were left out: %(players)s",
            "%(count)s registered player(s) not checked in were left out: %(players)s",
            len(report.left_out),
        )
        players = ", ".join(f"#{p.number} {p.name}" for p in report.left_out)
        messages.warning(request, left_out % {"count": len(report.left_out), "players": players})
    return redirect("manage-stage", slug=slug, order=order)


@login_required
@form_action
def add_late_player(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = LatePlayerForm(request.POST, stage=stage)
    if not form.is_valid():
        messages.error(request, _("Choose a player who is not seated in this stage."))
        return redirect("manage-stage", slug=slug, order=order)
    player = form.cleaned_data["player"]
    try:
        seat = services.add_late_player(stage=stage, player=player, by=request.user)
    except (StateConflict, ValidationError) as error:
        messages.error(request, refusal_text(error))
    else:
        sits = _(
            "#%(number)s %(name)s sits at table %(table)s, seat %(seat)s, from round %(round)s."
        )
        messages.success(
            request,
            sits
            % {
                "number": player.number,
                "name": player.name,
                "table": seat.table.number,
                "seat": seat.position,
                "round": seat.from_round,
            },
        )
    return redirect("manage-stage", slug=slug, order=order)


@login_required
def player_action(request: HttpRequest, slug: str, player_id: int, action: str) -> HttpResponse:
    """GET asks to confirm a withdrawal or a reinstatement; POST withdraws, reinstates or
    checks in."""
    tournament = organised_tournament(request, slug)
    player = get_object_or_404(Player, tournament=tournament, pk=player_id)
    service, done = {
        "withdraw": (services.withdraw_player, _("#%(number)s %(name)s is withdrawn.")),
        "reinstate": (services.reinstate_player, _("#%(number)s %(name)s is back in.")),
        "check-in": (services.check_in_player, _("#%(number)s %(name)s is checked in.")),
    }[action]
    try:
        if request.method != "POST":  # asking to confirm what cannot be done helps nobody
            tournament_services.check_not_finished(tournament, change="status")
            context = {"tournament": tournament, "player": player, "action": action}
            return render(request, "tables/confirm_player.html", context)
        service(player=player, by=request.user)
    except StateConflict as conflict:
        messages.error(request, str(conflict))
    else:
        messages.success(request, _said(done, player))
    return redirect(f"/t/{slug}/manage/#players")


@login_required
def check_in_everyone(request: HttpRequest, slug: str) -> HttpResponse:
    """GET asks to confirm, naming how many; POST checks in every player still registered."""
    tournament = organised_tournament(request, slug)
    registered = tournament.players.filter(status=Player.Status.REGISTERED)
    try:
        if request.method != "POST":
            tournament_services.check_not_finished(tournament, change="status")
            context = {"tournament": tournament, "action": "check-in-everyone"}
            context["registered"] = list(registered.order_by("number"))
            return render(request, "tables/confirm_player.html", context)
        checked_in = services.check_in_everyone(tournament=tournament, by=request.user)
    except StateConflict as conflict:
        messages.error(request, str(conflict))
        return redirect(f"/t/{slug}/manage/#players")
    done = ngettext(
        "%(count)s player is checked in.", "%(count)s players are checked in.", len(checked_in)
    )
    messages.success(request, done % {"count": len(checked_in)})
    return redirect(f"/t/{slug}/manage/#players")


@login_required
@form_action
def day_of_play(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Set a playoff's starting double and rounds, announced on the day."""

    def done(stage: Stage) -> str:
        changed = ngettext(
            "%(stage)s: %(rounds)s rounds, engines %(engines)s.",
            "%(stage)s: %(rounds)s rounds, engines %(engines)s.",
            stage.rounds,
        )
        engines = ", ".join(map(str, stage.engines))
        return changed % {"stage": stage.name, "rounds": stage.rounds, "engines": engines}

    return _change_stage(request, slug, order, DayOfPlayForm, "day_form", done)


@login_required
@form_action
def table_sizes(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Set the table sizes of a stage not seated yet (a playoff level among them)."""

    def done(stage: Stage) -> str:
        changed = _("%(stage)s: tables of %(low)s to %(high)s players.")
        return changed % {
            "stage": stage.name,
            "low": stage.table_size_min,
            "high": stage.table_size_max,
        }

    return _change_stage(request, slug, order, TableSizesForm, "sizes_form", done)


def _change_stage(
    request: HttpRequest,
    slug: str,
    order: int,
    form_class: type[forms.Form],
    name: str,
    done: Callable[[Stage], str],
) -> HttpResponse:
    """Save a form of the stage's settings through the service: said done; refused by the
    stage's state, said why; otherwise the page again, each error beside its field."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = form_class(request.POST)
    try:
        if form.is_valid():
            stage = tournament_services.update_stage(stage=stage, changes=form.cleaned_data)
            messages.success(request, done(stage))
            return redirect("manage-stage", slug=slug, order=order)
    except ValidationError as error:
        _errors_onto(form, error)
    except StateConflict as conflict:
        messages.error(request, str(conflict))
        return redirect("manage-stage", slug=slug, order=order)
    return _stage_page(request, tournament, stage, status=400, **{name: form})
