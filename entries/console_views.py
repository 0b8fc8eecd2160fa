"""The console's Entries section, for the tournament's organisers (officials: 403, as on every
console page): how it takes entries, the public entry link, the counts, the entries in order,
and each entry's page with what an organiser does by hand (enter, refuse, move on the waitlist,
withdraw, change its details) and its history. Every write goes through entering."""

import functools
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from config.refusals import PageRefusal
from entries import rules, selectors
from entries.forms import EntriesSettingsForm, MoveForm, OrganiserEntryForm
from entries.models import Entry
from entries.services import entering
from tournaments import services as tournament_services
from tournaments.console import _console, focus_first_error, organised_tournament
from tournaments.exceptions import StateConflict
from tournaments.links import absolute_url
from tournaments.models import Tournament

Status = Entry.Status


def qr_svg(url: str) -> str:
    """The entry link as a QR code to print or show (an inline SVG)."""
    import segno  # here, not at the top: only this page draws one

    return segno.make(url, error="m").svg_inline(scale=5, border=2, dark="#111", light="#fff")


def _page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    status: int = 200,
    settings_form: EntriesSettingsForm | None = None,
) -> HttpResponse:
    entering.apply_expiry(tournament)  # offers that ran out pass on before they are shown
    tournament.refresh_from_db()
    link = absolute_url(request, reverse("register", args=[tournament.slug]))
    settings_form = settings_form or EntriesSettingsForm(instance=tournament)
    focus_first_error(settings_form)
    context = {
        "section_template": "entries/console.html",
        "settings_form": settings_form,
        "settings_open": bool(settings_form.errors) or tournament.entries_open_at is None,
        "entry_link": link,
        "entry_qr": qr_svg(link),
        "closed_reason": rules.closed_reason(tournament),
        "entry_counts": selectors.counts(tournament),
        "entries": selectors.entries_in_order(tournament),
    }
    return _console(request, tournament, status=status, section="entries", section_context=context)


def _post_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A form's action: POST only; opened again as a GET, it goes back to the Entries section."""

    @functools.wraps(view)
    def action(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            if "entry_id" in kwargs:
                return redirect("manage-entry", slug=slug, entry_id=kwargs["entry_id"])
            return redirect("manage-entries", slug=slug)
        if request.method != "POST":
            return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
        return view(request, slug, **kwargs)

    return login_required(action)


@login_required
def entries_section(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, organised_tournament(request, slug))


@_post_only
def save_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """The entries' settings, saved through update_details (which offers the places a raised
    cap freed), or shown again with each bad value beside its field (400)."""
    tournament = organised_tournament(request, slug)
    form = EntriesSettingsForm(request.POST, instance=tournament)
    if form.is_valid():
        with PageRefusal(ValidationError, StateConflict) as refusal:
            tournament_services.update_details(
                tournament=tournament, by=request.user, **form.cleaned_data
            )
            messages.success(request, _("The entries' settings are saved."))
            return redirect("manage-entries", slug=slug)
        refusal.onto(form)
    tournament.refresh_from_db()
    return _page(request, tournament, status=400, settings_form=form)


def _entry(tournament: Tournament, entry_id: int) -> Entry:
    return get_object_or_404(
        Entry.objects.select_related("tournament", "player", "division"),
        tournament=tournament,
        pk=entry_id,
    )


def _entry_page(
    request: HttpRequest,
    tournament: Tournament,
    entry: Entry,
    *,
    status: int = 200,
    form: OrganiserEntryForm | None = None,
    move_form: MoveForm | None = None,
) -> HttpResponse:
    form = form or OrganiserEntryForm(instance=entry, tournament=tournament)
    focus_first_error(form)
    waiting = tournament.entries.filter(status=Status.WAITLISTED).count()
    context = {
        "tournament": tournament,
        "entry": entry,
        "form": form,
        "move_form": move_form or MoveForm(initial={"position": entry.waitlist_position}),
        "waiting": waiting,
        "paid": rules.paid(entry),
        "history": selectors.entry_history(entry),
        "may_admit": entry.status
        in (Status.WAITLISTED, Status.OFFERED, Status.EXPIRED, Status.REFUSED),
        "may_refuse": entry.status in (Status.WAITLISTED, Status.OFFERED),
        "may_withdraw": entry.live,
    }
    return render(request, "entries/console_entry.html", context, status=status)


@login_required
def entry_page(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """One entry: its details to change, what may be done with it, and its history."""
    tournament = organised_tournament(request, slug)
    entering.apply_expiry(tournament)
    entry = _entry(tournament, entry_id)
    if request.method == "POST":
        form = OrganiserEntryForm(request.POST, instance=entry, tournament=tournament)
        if form.is_valid():
            changes = {name: form.cleaned_data[name] for name in form.changed_data}
            with PageRefusal(ValidationError, StateConflict) as refusal:
                entering.update(_entry(tournament, entry_id), changes=changes, by=request.user)
                messages.success(request, _("Saved the entry of %(name)s.") % {"name": entry.name})
                return redirect("manage-entry", slug=slug, entry_id=entry_id)
            refusal.onto(form)
            if refusal:
                return _entry_page(request, tournament, _entry(tournament, entry_id),
                                   status=refusal.status, form=form)  # fmt: skip
        return _entry_page(request, tournament, _entry(tournament, entry_id), status=400, form=form)
    return _entry_page(request, tournament, entry)


# What each action does, and what its message says after (with how to undo it).
def _admit(request: HttpRequest, entry: Entry) -> str:
    entry = entering.admit(entry, by=request.user)
    return _(
        "Entered %(name)s by hand as #%(number)s. Changed your mind? Withdraw the entry (and "
        "delete the player on the players list if they never played)."
    ) % {"name": entry.name, "number": entry.player.number}


def _refuse(request: HttpRequest, entry: Entry) -> str:
    entering.refuse(entry, by=request.user)
    return _("Refused the entry of %(name)s. To undo, open it and enter them by hand.") % {
        "name": entry.name
    }


def _withdraw(request: HttpRequest, entry: Entry) -> str:
    was_player = entry.player_id is not None
    entering.withdraw(entry, by=request.user)
    if was_player:
        return _(
            "Withdrew %(name)s. To undo, reinstate their player on the players list (their "
            "place may have been offered on meanwhile)."
        ) % {"name": entry.name}
    return _(
        "Withdrew the entry of %(name)s. To undo, enter them again on the entry form or enter "
        "it by hand here."
    ) % {"name": entry.name}


ACTIONS: dict[str, Callable[[HttpRequest, Entry], str]] = {
    "admit": _admit,
    "refuse": _refuse,
    "withdraw": _withdraw,
}
# The actions that ask first: a box ticked on the entry's page.
CONFIRMED = ("refuse", "withdraw")


@_post_only
def entry_action(request: HttpRequest, slug: str, entry_id: int, action: str) -> HttpResponse:
    """Enter by hand, refuse or withdraw an entry: said done (and how to undo it) on the
    Entries section, or refused on the entry's page."""
    tournament = organised_tournament(request, slug)
    entry = _entry(tournament, entry_id)
    if action in CONFIRMED and request.POST.get("confirm") != "on":
        messages.error(request, _("Tick the box to confirm: nothing was changed."))
        return redirect("manage-entry", slug=slug, entry_id=entry_id)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        messages.success(request, ACTIONS[action](request, entry))
        return redirect("manage-entries", slug=slug)
    refusal.say(request)
    return redirect("manage-entry", slug=slug, entry_id=entry_id)


@_post_only
def move_entry(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """A waiting entry one place up or down (`to`: up, down), or to the place typed."""
    tournament = organised_tournament(request, slug)
    entry = _entry(tournament, entry_id)
    to = request.POST.get("to", "")
    back = request.POST.get("back") == "list"
    form = MoveForm(request.POST)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        if to in ("up", "down"):
            if entry.waitlist_position is None:
                entering.move(entry, position=0, by=request.user)  # says it is not waiting
            position = entry.waitlist_position + (-1 if to == "up" else 1)
        elif form.is_valid():
            position = form.cleaned_data["position"]
        else:
            return _entry_page(request, tournament, entry, status=400, move_form=form)
        moved = entering.move(entry, position=position, by=request.user)
        messages.success(
            request,
            _("%(name)s is now number %(place)s on the waitlist (from %(was)s).")
            % {
                "name": moved.name,
                "place": moved.waitlist_position,
                "was": entry.waitlist_position,
            },
        )
    if refusal:
        if isinstance(refusal.error, ValidationError) and to not in ("up", "down"):
            refusal.onto(form)
            return _entry_page(request, tournament, entry, status=400, move_form=form)
        refusal.say(request)
    if back:
        return redirect(reverse("manage-entries", args=[slug]) + f"#entry-{entry_id}")
    return redirect("manage-entry", slug=slug, entry_id=entry_id)
