"""A stage's pages beyond the tablet: its progress and tie-break decisions, closing it, scores
entered from paper, and the public bracket."""

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from config.refusals import PageRefusal
from scoring import selectors, services, standings
from scoring.models import Placing
from scoring.services import clock, closing, reopen
from scoring.views.entry import TIEBREAK_RETRY, meta, tiebreak_flags
from tournaments.choices import Follows
from tournaments.console import organised_tournament as organised
from tournaments.csvfiles import ImportRejected
from tournaments.exceptions import StateConflict
from tournaments.forms import ImportPlayersForm
from tournaments.models import Player, Stage, Tournament
from tournaments.permissions import is_organiser, is_staff_of


@login_required
def import_scores_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The back office: scores from paper sheets of tables whose tablet failed."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_organiser(request.user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may import scores.")
            % {"tournament": tournament.name}
        )
    form = ImportPlayersForm(request.POST or None, request.FILES or None)
    errors: list[tuple[int, str]] = []
    if request.method == "POST" and form.is_valid():
        try:
            imported = services.import_scores(
                tournament=tournament,
                content=form.cleaned_data["file"].read(),
                by=request.user,
                meta=meta(request, source="csv"),
            )
        except ImportRejected as rejected:
            errors = rejected.rows
        else:
            created = imported.created
            entered = ngettext(
                "Entered %(count)s round result from the file.",
                "Entered %(count)s round results from the file.",
                created,
            )
            messages.success(request, entered % {"count": created})
            for line, warning in imported.warnings:  # entered, flagged, and said
                unusual = _("Line %(line)s: %(message)s Check it with the table's players.")
                messages.warning(request, unusual % {"line": line, "message": warning})
            return redirect("manage", slug=slug)
    context = {"tournament": tournament, "form": form, "errors": errors}
    status = 400 if request.method == "POST" else 200
    return render(request, "scoring/import_scores.html", context, status=status)


def bracket(request: HttpRequest, slug: str) -> HttpResponse:
    """The playoff bracket and the placings, for everyone."""
    tournament = get_object_or_404(Tournament, slug=slug)
    placings = (
        Placing.objects.filter(tournament=tournament)
        .select_related("player", "stage")
        .order_by("place", "player__number")
    )
    context = {
        "tournament": tournament,
        "levels": selectors.bracket_for(tournament),
        "placings": placings,
    }
    return render(request, "scoring/bracket.html", context)


@login_required
def close_stage_page(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Asks first (GET): what is still missing, and what the close will do, since it cannot be
    undone. The close itself is the POST."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_organiser(request.user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may close a stage.")
            % {"tournament": tournament.name}
        )
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if request.method != "POST":
        if stage.status != Stage.Status.SEATED:
            return redirect("manage", slug=slug)
        return render(request, "scoring/confirm_close.html", _close_context(tournament, stage))
    with PageRefusal() as refusal:
        stage, closed = closing.close_and_say(stage=stage, by=request.user)
    if refusal:
        refusal.say(request)
        return redirect("manage", slug=slug)
    messages.success(request, closed)
    # The stage's page: it links to the stage its close seated, or says it is being seated.
    return redirect("manage-stage", slug=slug, order=stage.order)


@login_required
def reopen_stage_page(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Asks first (GET): what reopening the closed stage undoes, or why it cannot be. The
    reopen itself is the POST, back to the stage's page."""
    tournament = organised(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if request.method != "POST":
        if stage.status != Stage.Status.CLOSED:
            return redirect("manage-stage", slug=slug, order=order)
        context = {"tournament": tournament, "stage": stage}
        context["undone"] = reopen.what_reopening_undoes(stage)
        return render(request, "scoring/confirm_reopen.html", context)
    with PageRefusal() as refusal:
        reopen.reopen_stage(stage=stage, by=request.user)
    if refusal:
        refusal.say(request)
    else:
        messages.success(
            request,
            _(
                "%(stage)s is open again: correct its results, then close it again. What its "
                "close did is undone."
            )
            % {"stage": stage.display_name},
        )
    return redirect("manage-stage", slug=slug, order=order)


def _close_context(tournament: Tournament, stage: Stage) -> dict[str, Any]:
    missing = closing.missing_results(stage)
    meta = standings.standings_meta(stage)
    follows = Stage.objects.what_follows(stage, tables=stage.tables.count())
    next_stage = Stage.objects.next_level_of(stage) if follows == Follows.PLAYOFF else None
    return {
        "tournament": tournament,
        "stage": stage,
        "missing": missing[:12],
        "missing_more": max(len(missing) - 12, 0),
        "ties": [standings.tie_message(flag) for flag in meta.flags],
        "follows": follows,
        "next_stage": next_stage,
    }


@login_required
def progress(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Which tables have reported: tables x rounds, missing, to check, confirmed, disputed or
    flagged; and the rounds for an official to settle. The officials' board: an official watches
    it too (and reads a players' table's code from it, to help them at the table)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_staff_of(request.user, tournament):
        organised(request, slug)  # its refusal, which shows an official the way to score entry
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    statuses = selectors.round_statuses(stage)
    meta = standings.standings_meta(stage) if stage.status != Stage.Status.PENDING else None
    flagged = {flag["table"] for flag in (meta.flags if meta else [])}
    tables = [
        {
            "table": table,
            "flagged": table.number in flagged,
            "rounds": sorted(statuses.get(table.pk, {}).items()),
        }
        for table in stage.tables.order_by("number")
    ]
    table_ids = {row["table"].number: row["table"].pk for row in tables}
    counts = {
        state: sum(1 for t in tables for _, s in t["rounds"] if s == state)
        for state in ("missing", "submitted", "confirmed", "disputed")
    }
    context = {
        "tournament": tournament,
        "stage": stage,
        "tables": tables,
        "counts": counts,
        "flags": tiebreak_flags(meta, table_ids, request.session.pop(TIEBREAK_RETRY, None)),
        "rounds": range(1, stage.rounds + 1),
        "unusual": selectors.unusual_results(stage),
        "to_settle": selectors.rounds_to_settle(stage),
        "players_report": stage.reporting == Stage.Reporting.PLAYERS,
        "organiser": is_organiser(request.user, tournament),
    }
    template = "scoring/_progress.html" if request.htmx else "scoring/progress.html"
    return render(request, template, context)


@login_required
@require_POST
def record_tiebreak_page(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_staff_of(request.user, tournament):
        raise PermissionDenied(_("Only officials and organisers record tie-break decisions."))
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    try:
        with PageRefusal(ValidationError) as wrong:
            order_ids = _decided_order(request.POST)
            # No table: a tie for the last wildcard, across the stage.
            table_id = int(request.POST["table"]) if request.POST.get("table") else None
    except ValueError:
        messages.error(request, _("Choose the table and the players in their decided order."))
        return redirect("progress", slug=slug, order=order)
    if wrong:
        messages.error(request, _("The decision was not recorded. %(why)s") % {
            "why": wrong.text})  # fmt: skip
        return _back(request, slug, order, retry=_retry(request.POST, wrong.text))
    with PageRefusal(ValidationError, StateConflict) as refusal:
        services.record_tiebreak(
            stage=stage,
            table_id=table_id,
            order=order_ids,
            method=request.POST.get("method", ""),
            note=request.POST.get("note", ""),
            by=request.user,
        )
    if refusal:
        text = refusal.text
        number = stage.tables.filter(pk=table_id).values_list("number", flat=True).first()
        if number is not None:  # which of the page's forms it was
            text = _("Table %(table)s: %(problem)s") % {"table": number, "problem": text}
        messages.error(request, _("The decision was not recorded. %(why)s") % {"why": text})
        return _back(request, slug, order, retry=_retry(request.POST, refusal.text))
    messages.success(request, _("The tie-break decision is recorded; the standings follow it."))
    return _back(request, slug, order)


def _retry(post, error: str) -> dict | None:
    """A refused decision's form (its id, as the page names it), why, and what was chosen."""
    form = post.get("form", "")
    if not re.fullmatch(r"tiebreak-\d+-(\d+|overall)(-\d+)+", form):
        return None
    players = form.split("-")[3:]  # the tied players the form names: their places only
    keep = {key: value[:500] for key, value in post.items()
            if key in {f"place-{p}" for p in players} or key in ("method", "note")}  # fmt: skip
    return {"form": form, "error": error, "values": keep}


def _back(request: HttpRequest, slug: str, order: int, retry: dict | None = None) -> HttpResponse:
    """To the page the form was on (an official's, or the console); after a refusal, at the
    form, which says why with what was chosen (TIEBREAK_RETRY)."""
    back = request.POST.get("next", "")
    if not (
        back.startswith(f"/t/{slug}/")
        and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()})
    ):
        back = reverse("progress", kwargs={"slug": slug, "order": order})
    if retry is None:
        return redirect(back)
    request.session[TIEBREAK_RETRY] = retry
    return redirect(f"{back}#{retry['form']}")


def _decided_order(post) -> list[int]:
    """The tied players best first, from the page's form: a place chosen for each of them
    (`place-<player id>`), every place once. The form starts with no place chosen, so that no
    order is recorded that nobody decided: a place left out, or given twice, is refused. A
    post of the order itself (`order`, player ids best first) is taken as it is."""
    places = {key.removeprefix("place-"): value for key, value in post.items()
              if key.startswith("place-")}  # fmt: skip
    if not places:
        return [int(pid) for pid in post.getlist("order")]
    players = dict(
        Player.objects.filter(pk__in=[int(pid) for pid in places]).values_list("pk", "name")
    )
    missing = [players.get(int(pid), pid) for pid, place in places.items() if not place]
    if missing:
        unplaced = _("Choose a place for each tied player; none is chosen for %(names)s.")
        raise ValidationError(unplaced % {"names": ", ".join(map(str, missing))})
    given = {pid: int(place) for pid, place in places.items()}
    chosen = list(given.values())
    if shared := {place for place in chosen if chosen.count(place) > 1}:
        names = [str(players.get(int(pid), pid)) for pid, p in given.items() if p in shared]
        raise ValidationError(
            _("Each place goes to one player: %(names)s were given the same place.")
            % {"names": ", ".join(names)}
        )
    if sorted(chosen) != list(range(1, len(given) + 1)):
        raise ValidationError(_("The places run from 1 to %(count)s.") % {"count": len(given)})
    return [int(pid) for pid, _place in sorted(given.items(), key=lambda item: item[1])]


@login_required
def clock_page(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """The stage's clock for organisers: its time left, and Start, Pause and Call time (which
    asks first, with its own box). On the stage's console page, or alone without JavaScript."""
    tournament = organised(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if request.method == "POST":
        action = request.POST.get("action", "")
        done = {
            "start": (clock.start_clock, _("The clock of %(stage)s is running.")),
            "pause": (clock.pause_clock, _("The clock of %(stage)s is paused.")),
            "call": (clock.call_time, _("Time is called in %(stage)s.")),
        }
        if action not in done:
            messages.error(request, _("Choose Start, Pause or Call time."))
        elif action == "call" and request.POST.get("confirm") != "on":
            messages.error(request, _("Tick the box to confirm that time is called."))
        else:
            change, said = done[action]
            with PageRefusal() as refusal:
                change(stage, request.user)
            if refusal:
                refusal.say(request)
            else:
                messages.success(request, said % {"stage": stage.display_name})
        return redirect("manage-stage", slug=slug, order=order)
    context = {"tournament": tournament, "stage": stage, "clock": clock.page_clock(stage)}
    template = "scoring/_clock_panel.html" if request.htmx else "scoring/clock_console.html"
    return render(request, template, context)
