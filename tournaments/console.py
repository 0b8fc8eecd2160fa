"""The organiser's console: the tournament's stages and players on one page, adding and removing
stages, adding, correcting and importing players; and the helpers every organiser page shares
(the seating pages of tables build on them)."""

import base64
import copy
import functools
from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, prefetch_related_objects
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.refusals import PageRefusal
from tournaments import services as tournament_services
from tournaments.csvfiles import ImportRejected, unknown_columns
from tournaments.exceptions import PreviewOutdated, StateConflict
from tournaments.forms import (
    ImportOrUpdatePlayersForm,
    NewStageForm,
    PlayerForm,
)
from tournaments.models import Player, Stage, Tournament
from tournaments.permissions import OFFICIAL, ORGANISER, role_in
from tournaments.selectors import player_history


def organised_tournament(request: HttpRequest, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    role = role_in(request.user, tournament)
    if role != ORGANISER:
        # An official who followed a link here: the refusal (templates/403.html) shows them the
        # way to score entry, the page that is theirs.
        request.official_of = tournament if role == OFFICIAL else None
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


# The console's sections, in the order of the day's work: each its own page (and address), so
# that none is scrolled past to reach another; the tab bar names them all.
SECTIONS = ("players", "stages", "progress", "results", "downloads")


def _console(
    request: HttpRequest,
    tournament: Tournament,
    status: int = 200,
    section: str = "players",
    **forms,
) -> HttpResponse:
    stages = tournament.stages.annotate(table_count=Count("tables", distinct=True))
    prefetch_related_objects([tournament], "divisions")  # the players' list asks, row by row
    players = list(tournament.players.select_related("division").order_by("number"))
    # Entered by mistake, never seated nor scored: the list offers to delete them.
    deletable = set(
        tournament.players.exclude(seats__isnull=False)
        .exclude(scores__isnull=False)
        .values_list("pk", flat=True)
    )
    for player in players:
        player.deletable = player.pk in deletable
    shown = players
    if (wanted := request.GET.get("division", "")) and section == "players":
        shown = [p for p in players if str(p.division_id or "none") == wanted]
    for form in (forms.get("player_form"), forms.get("stage_form")):
        focus_first_error(form)
    context = {
        "tournament": tournament,
        "section": section,
        "section_template": f"tournaments/console/{section}.html",
        "stages": stages,
        "playing": [stage for stage in stages if stage.status == Stage.Status.SEATED],
        "players": players,
        "players_shown": shown,  # the list, of one division if asked ("none": of none)
        "division_shown": wanted,
        "player_form": forms.get("player_form") or PlayerForm(tournament=tournament),
        "import_form": forms.get("import_form") or ImportOrUpdatePlayersForm(),
        "stage_form": forms.get("stage_form") or NewStageForm.following(tournament),
        "final": Stage.objects.final_of(tournament),
        "sweep_seconds": max(1, round(settings.STANDINGS_SWEEP_SECONDS)),
        "import_errors": forms.get("import_errors", []),
        "counts": {
            status: sum(1 for p in players if p.status == status) for status in Player.Status.values
        },
    }
    context.update(forms.get("section_context") or {})  # a section's own (console_divisions)
    return render(request, "tournaments/console.html", context, status=status)


def focus_first_error(form: forms.Form | None) -> None:
    """A form shown again with errors, far down a long page: its first wrong field takes the
    focus (autofocus), so the browser brings it, and what is wrong with it, into view."""
    if form is None:
        return
    for name in form.errors:
        if name in form.fields:
            form.fields[name].widget.attrs["autofocus"] = True
            return


@login_required
def console(request: HttpRequest, slug: str, section: str = "players") -> HttpResponse:
    """One section of the console; its first, players and check-in, at the console's address."""
    return _console(request, organised_tournament(request, slug), section=section)


@login_required
@form_action
def add_stage(request: HttpRequest, slug: str) -> HttpResponse:
    """Add a stage after the last one (a further playoff level, say), with the checks of the
    API's: said done on its page, or shown again on the console with what is wrong."""
    tournament = organised_tournament(request, slug)
    form = NewStageForm(request.POST)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        tournament_services.check_not_finished(tournament)  # first: the form is gone, say why
        if form.is_valid():
            stage = tournament_services.create_stage(tournament=tournament, **form.cleaned_data)
            done = _("Added %(stage)s as stage %(order)s.")
            messages.success(request, done % {"stage": stage.display_name, "order": stage.order})
            return redirect("manage-stage", slug=slug, order=stage.order)
    if isinstance(refusal.error, StateConflict):
        refusal.say(request)
        return redirect("manage-stages", slug=slug)
    if refusal:
        refusal.onto(form)
    return _console(request, tournament, status=400, section="stages", stage_form=form)


@login_required
@form_action
def remove_stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """Remove the last stage while it is not seated, once the box saying so is ticked."""
    tournament = organised_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    if request.POST.get("confirm") != "on":
        messages.error(
            request, _("Tick the box to remove %(stage)s.") % {"stage": stage.display_name}
        )
        return redirect("manage-stage", slug=slug, order=order)
    with PageRefusal() as refusal:
        tournament_services.remove_stage(stage=stage)
    if refusal:
        refusal.say(request)
        return redirect("manage-stage", slug=slug, order=order)
    messages.success(request, _("Removed %(stage)s.") % {"stage": stage.display_name})
    return redirect("manage-stages", slug=slug)


def _save_player(
    request: HttpRequest, slug: str, form: PlayerForm, save: Callable[..., Player], done: str
) -> HttpResponse | None:
    """Save the form's player with `save`: said done, back to the players; or, refused, the
    reasons put on the form and None."""
    with PageRefusal(ValidationError, StateConflict) as refusal:  # a StateConflict: it is over
        player = save(**form.cleaned_data)
    if refusal:
        refusal.onto(form)
        return None
    messages.success(request, said(done, player))
    return redirect("manage", slug=slug)


def said(done: str, player: Player) -> str:
    """A sentence about a player; a name that ends a sentence itself ("John Smith Jr.") takes no
    second full stop."""
    said = done % {"number": player.number, "name": player.name}
    return said[:-1] if said.endswith("..") else said


@login_required
@form_action
def add_player(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    form = PlayerForm(request.POST, tournament=tournament)
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
    return render(request, "tournaments/edit_player.html", context, status=status)


def _import_refused(
    request: HttpRequest, tournament: Tournament, form: forms.Form, refusal: Exception
) -> HttpResponse:
    """The console again, the import form open with why its file was refused: every bad line
    (ImportRejected), or the tournament's state (StateConflict)."""
    if isinstance(refusal, ImportRejected):
        return _console(request, tournament, status=400, import_form=form,
                        import_errors=refusal.rows)  # fmt: skip
    form.add_error("file", str(refusal))
    return _console(request, tournament, status=400, import_form=form)


def _say_left_columns(request: HttpRequest, content: bytes) -> None:
    if left := unknown_columns(content, columns=tournament_services.IMPORT_COLUMNS):
        messages.warning(
            request,
            _("Not imported, as Roundhouse keeps no such column: %(columns)s.")
            % {"columns": ", ".join(map(repr, left))},
        )


@login_required
@form_action
def import_players(request: HttpRequest, slug: str) -> HttpResponse:
    """A players file: added at once, or, to update the players it names too, kept (PENDING)
    and its changes shown first (import_preview)."""
    tournament = organised_tournament(request, slug)
    form = ImportOrUpdatePlayersForm(request.POST, request.FILES)
    if not form.is_valid():
        return _console(request, tournament, status=400, import_form=form)
    content = form.cleaned_data["file"].read()
    if form.cleaned_data["mode"] == ImportOrUpdatePlayersForm.UPDATE:
        with PageRefusal(ImportRejected, StateConflict) as refusal:
            tournament_services.update_players_from_csv(
                tournament=tournament, content=content, by=request.user, dry_run=True
            )
        if refusal:
            return _import_refused(request, tournament, form, refusal.error)
        request.session[_pending_key(tournament)] = {
            "content": base64.b64encode(content).decode("ascii"),
            "file": form.cleaned_data["file"].name[:200],
        }
        return redirect("manage-import-preview", slug=slug)
    notes: list[str] = []  # what the import's listeners say (a member number no member has)
    with PageRefusal(ImportRejected, StateConflict) as refusal:
        players = tournament_services.import_players(
            tournament=tournament, content=content, by=request.user, notes=notes
        )
    if refusal:
        return _import_refused(request, tournament, form, refusal.error)
    imported = ngettext("Imported %(count)s player.", "Imported %(count)s players.", len(players))
    messages.success(request, imported % {"count": len(players)})
    for note in notes:
        messages.warning(request, note)
    _say_left_columns(request, content)
    return redirect("manage", slug=slug)


# A file waiting in the organiser's session between its preview and "Apply these changes", one
# a tournament: kept on the server (the database's sessions), so that the phone does not send
# it twice and a file up to the import's limit (2 MB) fits, which a hidden field of its text
# would not (DATA_UPLOAD_MAX_MEMORY_SIZE). Applied, cancelled or replaced by the next file, it
# is gone.
PENDING = "players-import-%s"


def _pending_key(tournament: Tournament) -> str:
    return PENDING % tournament.pk


def _pending(request: HttpRequest, tournament: Tournament) -> tuple[bytes, str] | None:
    kept = request.session.get(_pending_key(tournament))
    if kept is None:
        return None
    return base64.b64decode(kept["content"]), kept["file"]


def _no_pending(request: HttpRequest, slug: str) -> HttpResponse:
    messages.info(
        request,
        _(
            "No file is waiting to be applied (it was applied or cancelled): nothing was "
            "changed. To update the players, import the file again with “Add new and update "
            "existing”."
        ),
    )
    return redirect("manage", slug=slug)


@login_required
def import_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """What the file kept would change, worked out again now: "Apply these changes" or
    "Cancel"."""
    tournament = organised_tournament(request, slug)
    if (pending := _pending(request, tournament)) is None:
        return _no_pending(request, slug)
    content, name = pending
    form = ImportOrUpdatePlayersForm(initial={"mode": ImportOrUpdatePlayersForm.UPDATE})
    with PageRefusal(ImportRejected, StateConflict) as refusal:
        plan = tournament_services.update_players_from_csv(
            tournament=tournament, content=content, by=request.user, dry_run=True
        )
    if refusal:  # the players changed since the upload
        del request.session[_pending_key(tournament)]
        return _import_refused(request, tournament, form, refusal.error)
    labels = {
        field: Player._meta.get_field(field).verbose_name
        for field in tournament_services.UPDATED_FIELDS
    }
    context = {
        "tournament": tournament,
        "plan": plan,
        "file_name": name,
        "changes": [
            {
                "number": change.number,
                "name": change.name,
                "field": labels[change.field],
                "old": change.old,
                "new": change.new,
            }
            for change in plan.changes
        ],
        "left_columns": unknown_columns(content, columns=tournament_services.IMPORT_COLUMNS),
    }
    return render(request, "tournaments/import_preview.html", context)


@login_required
@form_action
def apply_import(request: HttpRequest, slug: str) -> HttpResponse:
    """The kept file applied, if it still does what its preview showed; or cancelled."""
    tournament = organised_tournament(request, slug)
    if (pending := _pending(request, tournament)) is None:
        return _no_pending(request, slug)
    if "cancel" in request.POST:
        del request.session[_pending_key(tournament)]
        messages.info(request, _("Cancelled: no player was added or changed."))
        return redirect("manage", slug=slug)
    content, _name = pending
    notes: list[str] = []
    with PageRefusal(ImportRejected, StateConflict) as refusal:
        plan = tournament_services.update_players_from_csv(
            tournament=tournament,
            content=content,
            by=request.user,
            expected=request.POST.get("digest", ""),
            notes=notes,
        )
    if isinstance(refusal.error, PreviewOutdated):  # shown again as it is now
        refusal.say(request)
        return redirect("manage-import-preview", slug=slug)
    if refusal:
        del request.session[_pending_key(tournament)]
        form = ImportOrUpdatePlayersForm(initial={"mode": ImportOrUpdatePlayersForm.UPDATE})
        return _import_refused(request, tournament, form, refusal.error)
    del request.session[_pending_key(tournament)]
    counts = {"added": len(plan.created), "corrected": len(plan.updated),
              "unchanged": plan.unchanged}  # fmt: skip
    done = _("Players added: %(added)s. Corrected: %(corrected)s. Unchanged: %(unchanged)s.")
    messages.success(request, done % counts)
    for note in notes:
        messages.warning(request, note)
    _say_left_columns(request, content)
    return redirect("manage", slug=slug)


@login_required
def delete_player(request: HttpRequest, slug: str, player_id: int) -> HttpResponse:
    """GET asks to confirm deleting a player entered by mistake; POST deletes them. A player
    with a seat or a score is refused, saying to withdraw them instead."""
    tournament = organised_tournament(request, slug)
    player = get_object_or_404(Player, tournament=tournament, pk=player_id)
    refused = tournament_services.player_deletion_refused(player)
    if request.method == "POST" and refused is None:
        with PageRefusal() as refusal:
            tournament_services.delete_player(player=player, by=request.user)
        if refusal:  # seated since the page was drawn
            refused = refusal.text
        else:
            messages.success(request, said(_("Deleted #%(number)s %(name)s."), player))
            return redirect("manage", slug=slug)
    context = {"tournament": tournament, "player": player, "refused": refused}
    status = 409 if refused and request.method == "POST" else 200
    return render(request, "tournaments/confirm_delete_player.html", context, status=status)
