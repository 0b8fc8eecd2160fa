"""The organisers' pages: their rallies and a new one, and a rally's page (its name and points
table, its events with their times, its chapters, closing it). Each change says how to undo
it: an event or a chapter taken out is added again; a close is opened again."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from config.refusals import PageRefusal
from rallies import selectors, services
from rallies.forms import ChapterForm, EventForm, RallyForm
from rallies.models import Rally
from tournaments.exceptions import StateConflict
from tournaments.models import Staff, Tournament
from tournaments.permissions import create_refused, may_create_tournaments


def _organised(request: HttpRequest, slug: str) -> Rally:
    rally = get_object_or_404(Rally, slug=slug)
    if not rally.organisers.filter(pk=request.user.pk).exists():
        raise PermissionDenied(
            _("Only an organiser of %(rally)s may open this page.") % {"rally": rally.name}
        )
    return rally


def _their_tournaments(user):
    return Tournament.objects.filter(staff__user=user, staff__role=Staff.Role.ORGANISER).order_by(
        "-starts_on", "name"
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def my_rallies(request: HttpRequest) -> HttpResponse:
    """The rallies the user organises, and a new one."""
    form = RallyForm(request.POST or None, initial={"points_table": "10, 8, 6, 5, 4, 3, 2, 1"})
    status = 200
    if request.method == "POST":
        if not may_create_tournaments(request.user):
            raise PermissionDenied(create_refused())
        if form.is_valid():
            with PageRefusal(ValidationError) as refusal:
                rally = services.create_rally(
                    name=form.cleaned_data["name"],
                    points_table=form.cleaned_data["points_table"],
                    by=request.user,
                )
                messages.success(request, _("The rally is made: add its events and chapters."))
                return redirect("rally-manage", rally_slug=rally.slug)
            refusal.onto(form)
        status = 400
    context = {"rallies": selectors.organised_by(request.user), "form": form}
    return render(request, "rallies/my_rallies.html", context, status=status)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def manage(request: HttpRequest, rally_slug: str) -> HttpResponse:
    """Everything of a rally on one page, each part its own form (`action`)."""
    rally = _organised(request, rally_slug)
    action = request.POST.get("action") if request.method == "POST" else None
    tournaments = _their_tournaments(request.user).exclude(
        pk__in=rally.events.values_list("tournament_id", flat=True)
    )
    details = RallyForm(
        request.POST if action == "details" else None,
        initial={"name": rally.name, "points_table": ", ".join(str(p) for p in rally.points_table)},
    )
    event_form = EventForm(request.POST if action == "event" else None, tournaments=tournaments)
    chapter_form = ChapterForm(request.POST if action == "chapter" else None)
    status = 200
    if action:
        with PageRefusal(StateConflict, ValidationError) as refusal:
            done = _act(request, rally, action, details, event_form, chapter_form)
            if done:
                messages.success(request, done)
                return redirect("rally-manage", rally_slug=rally.slug)
        form = {"details": details, "event": event_form, "chapter": chapter_form}.get(action)
        if refusal and form is not None:
            refusal.onto(form)
        elif refusal:
            refusal.say(request)
            return redirect("rally-manage", rally_slug=rally.slug)
        status = refusal.status if refusal else 400
    context = {
        "rally": rally,
        "details": details,
        "event_form": event_form,
        "chapter_form": chapter_form,
        "events": selectors.rally_events(rally),
        # Each event's name leads to its console, for the events this organiser runs (a rally's
        # other organisers' events lead to their public page).
        "organised": set(_their_tournaments(request.user).values_list("pk", flat=True)),
        "chapters": [(c, services.chapter_entries(c)) for c in rally.chapters.all()],
        "table": selectors.standings(rally),
    }
    return render(request, "rallies/manage.html", context, status=status)


def _id(value: str | None) -> int:
    """A posted id, or 0 (found nowhere) for anything that is not one."""
    return int(value) if value and value.isascii() and value.isdigit() and len(value) < 12 else 0


def _act(request, rally, action, details, event_form, chapter_form) -> str | None:
    """The change asked for, and what the page says of it; None when its form is invalid."""
    post = request.POST
    if action == "details":
        if not details.is_valid():
            return None
        services.update_rally(
            rally,
            name=details.cleaned_data["name"],
            points_table=details.cleaned_data["points_table"],
        )
        return _("The rally's name and points table are saved.")
    if action == "event":
        if not event_form.is_valid():
            return None
        data = event_form.cleaned_data
        event = services.add_event(
            rally=rally,
            tournament=data["tournament"],
            starts_at=data["starts_at"],
            ends_at=data["ends_at"],
            by=request.user,
        )
        return _("%(event)s is in the rally.") % {"event": event.tournament.name}
    if action == "remove-event":
        event = get_object_or_404(rally.events, pk=_id(post.get("event")))
        name = event.tournament.name
        services.remove_event(event)
        return _(
            "%(event)s is out of the rally (its entries stay in the event). Taken out by "
            "mistake? Add it again with its times."
        ) % {"event": name}
    if action == "chapter":
        if not chapter_form.is_valid():
            return None
        chapter = services.add_chapter(rally=rally, name=chapter_form.cleaned_data["chapter"])
        return _("%(chapter)s is a chapter of the rally.") % {"chapter": chapter.name}
    if action == "remove-chapter":
        chapter = get_object_or_404(rally.chapters, pk=_id(post.get("chapter")))
        services.remove_chapter(chapter)
        return _("%(chapter)s is taken away. By mistake? Add it again.") % {"chapter": chapter.name}
    if action == "close":
        services.close_rally(rally)
        return _("The rally is closed: its standings are final. Closed too early? Open it again.")
    if action == "reopen":
        services.reopen_rally(rally)
        return _("The rally is open again: its standings follow its events.")
    raise StateConflict(_("This page cannot do that."))
