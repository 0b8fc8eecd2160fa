"""Pages of tournaments: a new one from a preset, its details; the sign-in lockout page."""

from axes.conf import settings as axes_settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from config.refusals import PageRefusal
from tournaments import services
from tournaments.exceptions import StateConflict
from tournaments.forms import NewTournamentForm, TournamentDetailsForm
from tournaments.models import Tournament
from tournaments.permissions import (
    create_refused,
    is_organiser,
    lockout_message,
    may_create_tournaments,
)
from tournaments.presets import PRESETS
from tournaments.selectors import presets_offered
from tournaments.usernames import username_key


def locked_out(request: HttpRequest, *args: object) -> HttpResponse:
    """django-axes' lockout response (AXES_LOCKOUT_CALLABLE): a page in the site's look and the
    reader's language, where axes' own is a line of English text."""
    context = {"message": lockout_message()}
    return render(request, "registration/locked_out.html", context, status=429)


# django-axes keeps the username of a failed sign-in in a column of 255 characters.
AXES_USERNAME_MAX = 255


def axes_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The username django-axes records for a sign-in (AXES_USERNAME_CALLABLE): its own lookup,
    in its normal form ("Kasey", "KASEY" and full-width letters count as kasey, as they sign into
    kasey's account), cut to what its tables hold. A longer one, as scanners send, made a failed
    sign-in a 500 on PostgreSQL, at the login page and the API's token alike
    (jazzband/django-axes#1381)."""
    field = axes_settings.AXES_USERNAME_FORM_FIELD
    source = credentials if credentials else getattr(request, "data", request.POST)
    # The sign-in page's "login" field takes a username or an email; allauth authenticates with
    # either as "username" or "email".
    username = source.get(field) or source.get("email") or source.get("login")
    if isinstance(username, str) and "@" in username:
        # An email counts against its account's username: alternating them gains no tries.
        user_model = get_user_model()
        account = user_model.objects.filter(email__iexact=username[:AXES_USERNAME_MAX]).first()
        if account is not None:
            username = account.get_username()
    if not isinstance(username, str):
        return username
    return username_key(username[:AXES_USERNAME_MAX])[:AXES_USERNAME_MAX]


@login_required
def new_tournament(request: HttpRequest) -> HttpResponse:
    """A tournament from a rule preset: the preset fills its stages (Samboree: four rounds from
    double-12, then the winners' playoff). Its creator becomes its organiser. Organisers only."""
    if not may_create_tournaments(request.user):
        raise PermissionDenied(create_refused())
    form = NewTournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with PageRefusal(ValidationError) as refusal:
            tournament = services.create_tournament(
                **form.cleaned_data, by=request.user, with_stages=True
            )
        refusal.onto(form)
        if not refusal:
            messages.success(
                request, _("%(name)s is ready: add its players next.") % {"name": tournament.name}
            )
            return redirect("manage", slug=tournament.slug)
    status = 400 if request.method == "POST" else 200
    presets = presets_offered()
    for preset in presets:
        preset["set_labels"] = ", ".join(offer["label"] for offer in preset["by_set"])
        preset["default_set_label"] = Tournament.DominoSet(PRESETS[preset["key"]].default_set).label
    context = {"form": form, "presets": presets}
    return render(request, "tournaments/new.html", context, status=status)


@login_required
def tournament_details(request: HttpRequest, slug: str) -> HttpResponse:
    """An organiser's page for the dates, venue, description and time zone, whether the home
    page lists it and whether it is practice; and the ways to reset, end practice or delete."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_organiser(request.user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may open this page.")
            % {"tournament": tournament.name}
        )
    form = TournamentDetailsForm(request.POST or None, instance=tournament)
    if request.method == "POST" and form.is_valid():
        with PageRefusal(ValidationError, StateConflict) as refusal:
            services.update_details(tournament=tournament, by=request.user, **form.cleaned_data)
        if refusal:
            # A conflict: practice asked with results in (checked first), or the playoffs'
            # choice once a stage is seated. A wrong input goes beside its own field.
            refusal.onto(
                form, "practice" if "practice" in form.changed_data else "division_playoffs"
            )
        else:
            messages.success(
                request, _("The details of %(name)s are saved.") % {"name": tournament.name}
            )
            return redirect("manage", slug=slug)
    context = {
        "tournament": tournament,
        "form": form,
        "deletion_refused": services.tournament_deletion_refused(tournament),
    }
    status = 400 if form.errors else 200
    return render(request, "tournaments/details.html", context, status=status)


def _organised(request: HttpRequest, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_organiser(request.user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may open this page.")
            % {"tournament": tournament.name}
        )
    return tournament


@login_required
def delete_tournament(request: HttpRequest, slug: str) -> HttpResponse:
    """GET names what deleting the tournament removes, and asks for its name; POST with the name
    typed deletes it. One with confirmed results is refused, saying to hide it instead."""
    tournament = _organised(request, slug)
    refused = services.tournament_deletion_refused(tournament)
    typed_wrong = False
    if request.method == "POST" and refused is None:
        if request.POST.get("name", "").strip() == tournament.name:
            with PageRefusal() as refusal:
                services.delete_tournament(tournament=tournament, by=request.user)
            if refusal:  # a result confirmed since the page was drawn
                refused = refusal.text
            else:
                messages.success(request, _("%(name)s is deleted.") % {"name": tournament.name})
                return redirect("home")
        else:
            typed_wrong = True
    context = {
        "tournament": tournament,
        "refused": refused,
        "typed_wrong": typed_wrong,
        "players": tournament.players.count(),
        "stages": tournament.stages.count(),
        "has_results": services.has_results(tournament),
    }
    status = 409 if refused and request.method == "POST" else 400 if typed_wrong else 200
    return render(request, "tournaments/confirm_delete.html", context, status=status)


@login_required
def end_practice(request: HttpRequest, slug: str) -> HttpResponse:
    """GET says what turning a practice tournament into the real event keeps; POST does it."""
    tournament = _organised(request, slug)
    if not tournament.practice:
        return redirect("manage-details", slug=slug)
    if request.method == "POST":
        services.update_visibility(tournament=tournament, by=request.user, practice=False)
        messages.success(
            request,
            _("%(name)s is the real event now: its pages no longer say Practice.")
            % {"name": tournament.name},
        )
        return redirect("manage-details", slug=slug)
    context = {"tournament": tournament, "has_results": services.has_results(tournament)}
    return render(request, "tournaments/confirm_end_practice.html", context)
