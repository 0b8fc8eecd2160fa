"""Starting a club, and the tournaments it owns: the organisers' pages around the roster."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from clubs import services
from clubs.selectors import clubs_of
from clubs.views import organised_club, post_only
from config.refusals import PageRefusal
from tournaments import permissions
from tournaments.models import Tournament


class StartClubForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("The club's name"), max_length=120)
    slug = forms.SlugField(
        label=gettext_lazy("Web address"),
        max_length=60,
        required=False,
        help_text=gettext_lazy("Optional: made from the name when left empty."),
    )


@login_required
def my_clubs(request: HttpRequest) -> HttpResponse:
    """The clubs the user organises, and (for an organiser) the form that starts one."""
    may_start = permissions.may_create_tournaments(request.user)
    if request.method == "POST" and not may_start:
        raise PermissionDenied(_("Only organisers may start a club."))
    form = StartClubForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            with PageRefusal(ValidationError) as refusal:
                club = services.start_club(by=request.user, **form.cleaned_data)
            refusal.onto(form)
            if not refusal:
                messages.success(
                    request,
                    _("Started %(club)s: add its members and its tournaments.")
                    % {"club": club.name},
                )
                return redirect("club", slug=club.slug)
        status = 400
    context = {"clubs": clubs_of(request.user), "form": form, "may_start": may_start}
    return render(request, "clubs/my_clubs.html", context, status=status)


@login_required
@post_only
def add_tournament(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    chosen = request.POST.get("tournament", "")
    tournament = Tournament.objects.filter(slug=chosen).first()
    if tournament is None:
        messages.error(request, _("Choose one of your tournaments to add."))
        return redirect("club", slug=slug)
    with PageRefusal(ValidationError) as refusal:
        services.add_tournament(club=club, tournament=tournament, by=request.user)
    for message in refusal.lines:
        messages.error(request, message)
    if not refusal:
        messages.success(
            request,
            _("%(tournament)s belongs to %(club)s now: link its players to the members.")
            % {"tournament": tournament.name, "club": club.name},
        )
    return redirect("club", slug=slug)


@login_required
@post_only
def remove_tournament(request: HttpRequest, slug: str, tournament_slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    tournament = get_object_or_404(Tournament, slug=tournament_slug)
    with PageRefusal(ValidationError) as refusal:
        links = services.remove_tournament(club=club, tournament=tournament)
    for message in refusal.lines:
        messages.error(request, message)
    if not refusal:
        removed = ngettext(
            "%(tournament)s no longer belongs to %(club)s; %(count)s link to a member was removed.",
            "%(tournament)s no longer belongs to %(club)s; %(count)s links to members were "
            "removed.",
            links,
        )
        messages.success(
            request,
            removed % {"tournament": tournament.name, "club": club.name, "count": links},
        )
    return redirect("club", slug=slug)
