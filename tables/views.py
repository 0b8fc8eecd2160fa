"""The organiser's seating pages: seat a stage, see its tables, late players, withdrawals."""

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.forms.models import model_to_dict
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.refusals import PageRefusal, refusal_redirects
from tables import by_rating, checkin, reporting, seating, selectors, services, strengths
from tables.forms import LatePlayerForm, LateTableForm, RatingOptionsForm, SeatStageForm
from tables.models import SeatClaim, Table
from tournaments import services as tournament_services
from tournaments.console import form_action, organised_tournament, said
from tournaments.exceptions import StateConflict
from tournaments.forms import (
    DayOfPlayForm,
    MovementForm,
    ReportingForm,
    TableSizesForm,
)
from tournaments.models import Player, Stage, Tournament
from tournaments.services.stage_changes import closed_message


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
    # A players' stage: how many of each table's seats a phone holds now (its code beside it).
    claimed = Q(seats__claims__ended_at__isnull=True, seats__claims__isnull=False)
    tables = list(
        selectors.tables_with_seats(stage).annotate(
            claimed=Count("seats", filter=claimed, distinct=True)
        )
    )
    # Each table's mean rating at seating, when ratings seated the stage (tables.by_rating).
    means = report.get("table_ratings", [])
    for index, table in enumerate(tables):
        table.mean_rating = means[index] if index < len(means) else None
        table.over_max = selectors.over_max_note(stage, table.seats.all())
    from_advancers = by_rating.seated_from_advancers(stage)
    context = {
        "tournament": tournament,
        "stage": stage,
        "tables": tables,
        "seat_form": SeatStageForm(),
        "day_form": forms.get("day_form") or _settings_form(DayOfPlayForm, stage),
        "sizes_form": forms.get("sizes_form") or _settings_form(TableSizesForm, stage),
        "movement_form": forms.get("movement_form") or _settings_form(MovementForm, stage),
        "reporting_form": forms.get("reporting_form") or _settings_form(ReportingForm, stage),
        # A qualifying stage after another may be a game seated from the game before it.
        "may_move": stage.kind == Stage.Kind.QUALIFYING
        and tournament.stages.filter(order__lt=stage.order).exists(),
        "late_form": (late_form := LatePlayerForm(stage=stage)),
        "waiting": list(late_form.fields["player"].queryset),
        "next_table": max((table.number for table in tables), default=0) + 1,
        # Every table a late player could join is full: the organiser chooses to go above it,
        # or, when enough late players wait, to seat them at a new table.
        "tables_full": stage.status == Stage.Status.SEATED and selectors.every_table_full(stage),
        "new_table_round": services.earliest_new_table_round(stage),
        "rating_form": forms.get("rating_form")
        or RatingOptionsForm(
            initial=model_to_dict(stage, RatingOptionsForm.base_fields), seeded=from_advancers
        ),
        # Ratings are a club's: for a tournament no club owns, the page says why there are none.
        "no_club": None if strengths.rated(tournament) else by_rating.no_club_message(tournament),
        "results": stage.round_results.count(),
        # The stage its close seated, and who sits elsewhere since a correction seated it again.
        "seated_next": Stage.objects.filter(source_stage=stage).first(),
        "who_moved": selectors.who_moved(stage),
        # Who seating would seat, said beside its button: the checked-in, or everyone.
        "to_seat": services.players_to_seat(stage),
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
@refusal_redirects("manage-stage", "slug", "order")
def seat_stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = SeatStageForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(m for ms in form.errors.values() for m in ms))
        return redirect("manage-stage", slug=slug, order=order)
    report = services.seat_stage(
        stage=stage, by=request.user, seed=form.cleaned_data["seed"],
        force=form.cleaned_data["force"],
    )  # fmt: skip
    seated = {"players": report.players_seated, "tables": len(report.tables), "seed": report.seed}
    if report.seed is not None:
        text = ngettext(
            "Seated %(players)s players at %(tables)s table (shuffle number %(seed)s).",
            "Seated %(players)s players at %(tables)s tables (shuffle number %(seed)s).",
            len(report.tables),
        )
    else:
        text = ngettext(
            "Seated %(players)s players at %(tables)s table.",
            "Seated %(players)s players at %(tables)s tables.",
            len(report.tables),
        )
    text %= seated
    if report.by_rating == by_rating.BALANCED:
        text += " " + _("Tables balanced by rating.")
    if report.check_in_used is False:
        text += " " + _("Nobody had checked in, so every registered player was seated.")
    if report.discarded_results:
        discarded = ngettext(
            "%(count)s round result was discarded.",
            "%(count)s round results were discarded.",
            report.discarded_results,
        )
        text += " " + discarded % {"count": report.discarded_results}
    messages.success(request, text)
    for warning in [*report.household_conflicts, *report.warnings]:
        messages.warning(request, warning)
    if report.left_out:
        left_out = ngettext(
            "%(count)s player who had not checked in was left out: %(players)s",
            "%(count)s players who had not checked in were left out: %(players)s",
            len(report.left_out),
        )
        players = ", ".join(f"#{p.number} {p.name}" for p in report.left_out)
        messages.warning(request, left_out % {"count": len(report.left_out), "players": players})
    return redirect("manage-stage", slug=slug, order=order)


@login_required
@form_action
@refusal_redirects("manage-stage", "slug", "order", refused=(StateConflict, ValidationError))
def add_late_player(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = LatePlayerForm(request.POST, stage=stage)
    if not form.is_valid():
        messages.error(request, _("Choose a player who is not seated in this stage."))
        return redirect("manage-stage", slug=slug, order=order)
    player = form.cleaned_data["player"]
    seat = services.add_late_player(
        stage=stage,
        player=player,
        by=request.user,
        allow_over_max=form.cleaned_data["allow_over_max"],
    )
    sits = _("#%(number)s %(name)s sits at table %(table)s, seat %(seat)s, from round %(round)s.")
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
    above = selectors.over_max_note(stage, seat.table.seats.all())
    if above:
        messages.warning(
            request,
            _("Table %(table)s: %(above)s Its card and score sheet say so.")
            % {"table": seat.table.number, "above": above},
        )
    return redirect("manage-stage", slug=slug, order=order)


@login_required
@form_action
@refusal_redirects("manage-stage", "slug", "order", refused=(StateConflict, ValidationError))
def add_late_table(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Seat the waiting late players ticked together at a new table, from the round given."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = LateTableForm(request.POST, stage=stage)
    if not form.is_valid():
        if "from_round" in form.errors:
            messages.error(request, _("The first round is a whole number, 1 or more."))
        else:
            messages.error(request, _("Tick the late players to seat at the new table."))
        return redirect("manage-stage", slug=slug, order=order)
    players = list(form.cleaned_data["players"])
    table = services.add_late_table(
        stage=stage,
        players=players,
        by=request.user,
        from_round=form.cleaned_data["from_round"],
    )
    seats = table.seats.select_related("player").order_by("position")
    names = ", ".join(f"#{s.player.number} {s.player.name}" for s in seats)
    opened = _(
        "Table %(table)s is new, from round %(round)s: %(players)s. Print its card and score sheet."
    )
    values = {"table": table.number, "round": seats[0].from_round, "players": names}
    messages.success(request, opened % values)
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
    with PageRefusal() as refusal:
        if request.method != "POST":  # asking to confirm what cannot be done helps nobody
            tournament_services.check_not_finished(tournament, change="status")
            context = {"tournament": tournament, "player": player, "action": action}
            return render(request, "tables/confirm_player.html", context)
        service(player=player, by=request.user)
    if refusal:
        if request.htmx and action == "check-in":  # the row's button: the answer in the row
            return checkin.row_answer(request, tournament, player, refusal.text, "error")
        refusal.say(request)
    else:
        if request.htmx and action == "check-in":
            return checkin.row_answer(request, tournament, player, said(done, player), "success")
        messages.success(request, said(done, player))
    return redirect("manage", slug=slug)


@login_required
@refusal_redirects("manage", "slug")
def check_in_everyone(request: HttpRequest, slug: str) -> HttpResponse:
    """GET asks to confirm, naming how many; POST checks in every player still registered."""
    tournament = organised_tournament(request, slug)
    registered = tournament.players.filter(status=Player.Status.REGISTERED)
    if request.method != "POST":
        tournament_services.check_not_finished(tournament, change="status")
        context = {"tournament": tournament, "action": "check-in-everyone"}
        context["registered"] = list(registered.order_by("number"))
        return render(request, "tables/confirm_player.html", context)
    checked_in = services.check_in_everyone(tournament=tournament, by=request.user)
    done = ngettext(
        "%(count)s player is checked in.", "%(count)s players are checked in.", len(checked_in)
    )
    messages.success(request, done % {"count": len(checked_in)})
    return redirect("manage", slug=slug)


@login_required
@form_action
def day_of_play(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Set a playoff's starting double and rounds, announced on the day."""

    def done(stage: Stage) -> str:
        changed = ngettext(
            "%(stage)s: %(rounds)s round, engine %(engines)s.",
            "%(stage)s: %(rounds)s rounds, engines %(engines)s.",
            stage.rounds,
        )
        engines = ", ".join(map(str, stage.engines))
        return changed % {"stage": stage.display_name, "rounds": stage.rounds, "engines": engines}

    return _change_stage(request, slug, order, DayOfPlayForm, "day_form", done)


@login_required
@form_action
def table_sizes(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Set the table sizes of a stage not seated yet (a playoff level among them)."""

    def done(stage: Stage) -> str:
        changed = _("%(stage)s: tables of %(low)s to %(high)s players.")
        return changed % {
            "stage": stage.display_name,
            "low": stage.table_size_min,
            "high": stage.table_size_max,
        }

    return _change_stage(request, slug, order, TableSizesForm, "sizes_form", done)


@login_required
@form_action
def movement(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Set how a game not seated yet is seated from the game before it."""

    def done(stage: Stage) -> str:
        return _("%(stage)s: %(movement)s.") % {
            "stage": stage.display_name,
            "movement": stage.get_movement_display(),
        }

    return _change_stage(request, slug, order, MovementForm, "movement_form", done)


def _change_stage(
    request: HttpRequest,
    slug: str,
    order: int,
    form_class: type[forms.Form],
    name: str,
    done: Callable[[Stage], str],
    *,
    form_options: Callable[[Stage], dict[str, Any]] = lambda stage: {},
    save: Callable[[Stage, dict[str, Any]], Stage] | None = None,
) -> HttpResponse:
    """Save a form of the stage's settings through the service (`save`, by default
    update_stage with the cleaned data): said done; refused by the stage's state, said why;
    otherwise the page again, each error beside its field."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    form = form_class(request.POST, **form_options(stage))
    with PageRefusal(ValidationError, StateConflict) as refusal:
        if form.is_valid():
            if save is None:
                stage = tournament_services.update_stage(stage=stage, changes=form.cleaned_data)
            else:
                stage = save(stage, form.cleaned_data)
            messages.success(request, done(stage))
            return redirect("manage-stage", slug=slug, order=order)
    if isinstance(refusal.error, StateConflict):
        refusal.say(request)
        return redirect("manage-stage", slug=slug, order=order)
    if refusal:
        refusal.onto(form)
    return _stage_page(request, tournament, stage, status=400, **{name: form})


@login_required
@form_action
def rating_options(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Turn seating by club rating on or off: balanced tables, or a playoff seeded by rating."""

    def save(stage: Stage, data: dict[str, Any]) -> Stage:
        return services.set_rating_options(
            stage=stage,
            balance_by_rating=data.get("balance_by_rating", False),
            seed_by_rating=data.get("seed_by_rating", False),
        )

    def done(stage: Stage) -> str:
        if stage.balance_by_rating:
            said = _("%(stage)s: its tables will be balanced by rating when it is seated.")
        elif stage.seed_by_rating:
            said = _("%(stage)s: its players will be seeded by rating when it is seated.")
        else:
            said = _("%(stage)s: seating will not use ratings.")
        return said % {"stage": stage.display_name}

    return _change_stage(
        request,
        slug,
        order,
        RatingOptionsForm,
        "rating_form",
        done,
        form_options=lambda stage: {"seeded": by_rating.seated_from_advancers(stage)},
        save=save,
    )


@login_required
@form_action
@refusal_redirects("manage-stage", "slug", "order")
def unseat_stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Take a seated stage with no result back to pending, once its box confirms it."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if request.POST.get("confirm") != "on":
        messages.error(request, _("Tick the box to confirm that the seats are removed."))
        return redirect("manage-stage", slug=slug, order=order)
    services.unseat_stage(stage=stage, by=request.user)
    messages.success(
        request,
        _(
            "%(stage)s is not seated any more: its tables are removed, and cards printed "
            "for them no longer hold. Seat it again when it is ready."
        )
        % {"stage": stage.display_name},
    )
    return redirect("manage-stage", slug=slug, order=order)


def _signs_phones_out(stage: Stage, post: Any) -> bool:
    """Whether saving the stage's reporting as posted ends its players' seats: a seated stage
    its players report, going to the officials (asked first: tables/confirm_reporting.html)."""
    return (
        stage.status == Stage.Status.SEATED
        and stage.reporting == Stage.Reporting.PLAYERS
        and post.get("reporting") == Stage.Reporting.OFFICIALS
    )


@login_required
@form_action
def reporting_settings(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Who enters the stage's rounds, and after how many minutes a round the players entered
    and nobody confirmed is listed on the officials' board: at any time until the close. A
    seated stage handed to the officials asks first, since every seat's phone is signed out."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if _signs_phones_out(stage, request.POST) and request.POST.get("confirm") != "on":
        form = ReportingForm(request.POST)
        if form.is_valid():
            context = {
                "tournament": tournament,
                "stage": stage,
                "action": "stage",
                "tables": stage.tables.filter(officials_report=False).count(),
                "phones": SeatClaim.objects.filter(
                    seat__stage=stage, ended_at__isnull=True
                ).count(),
                "minutes": form.cleaned_data["confirm_within_minutes"],
            }
            return render(request, "tables/confirm_reporting.html", context)
    signed_out = _signs_phones_out(stage, request.POST)

    def done(stage: Stage) -> str:
        if stage.reporting == Stage.Reporting.PLAYERS:
            said = ngettext(
                "%(stage)s: the players at each table enter its rounds; a round not confirmed "
                "after %(minutes)s minute is listed on the officials' board.",
                "%(stage)s: the players at each table enter its rounds; a round not confirmed "
                "after %(minutes)s minutes is listed on the officials' board.",
                stage.confirm_within_minutes,
            )
        elif signed_out:
            said = _(
                "%(stage)s: the officials enter its rounds. Every player's phone is signed out."
            )
        else:
            said = _("%(stage)s: the officials enter its rounds.")
        return said % {"stage": stage.display_name, "minutes": stage.confirm_within_minutes}

    return _change_stage(request, slug, order, ReportingForm, "reporting_form", done)


@login_required
@refusal_redirects("manage-stage", "slug", "order")
def table_reporting(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    """One table of a players' stage handed to the officials (GET asks first: its players'
    phones are signed out at once), or given back to its players (a POST of the stage's page)."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    table = get_object_or_404(Table.objects.select_related("stage"), stage=stage, number=number)
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "tables"))
    if request.method != "POST":
        if stage.reporting != Stage.Reporting.PLAYERS or table.officials_report:
            return redirect("manage-stage", slug=slug, order=order)
        phones = SeatClaim.objects.filter(seat__table=table, ended_at__isnull=True).count()
        context = {"tournament": tournament, "stage": stage, "table": table, "phones": phones}
        return render(request, "tables/confirm_reporting.html", {**context, "action": "table"})
    wanted = request.POST.get("reporting", "")
    if wanted not in Stage.Reporting.values:
        messages.error(
            request,
            _("Choose who enters the rounds of table %(table)s: the officials or its players.")
            % {"table": table.number},
        )
        return redirect("manage-stage", slug=slug, order=order)
    players = wanted == Stage.Reporting.PLAYERS
    reporting.set_table_reporting(table, players=players)
    if players:
        said = _("Table %(table)s is its players' again: they take their seats with its code.")
    else:
        said = _(
            "Table %(table)s is the officials' now: its players' phones are signed out, and an "
            "official enters its rounds."
        )
    messages.success(request, said % {"table": table.number})
    return redirect("manage-stage", slug=slug, order=order)
