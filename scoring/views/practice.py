"""A practice tournament's reset page: what it removes and keeps, asked before it is done."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from config.refusals import PageRefusal
from scoring.models import RoundResult
from scoring.services import practice
from tables.models import Seat
from tournaments.console import organised_tournament
from tournaments.models import Player


@login_required
def reset_practice_page(request: HttpRequest, slug: str) -> HttpResponse:
    """GET names what a reset removes (seats, results, placings, stages a close made) and keeps
    (players and their check-ins, settings); POST resets. A tournament that is not practice is
    refused, saying what to do instead."""
    tournament = organised_tournament(request, slug)
    refused = None
    if request.method == "POST":
        with PageRefusal() as refusal:
            practice.reset_practice(tournament=tournament, by=request.user)
        if refusal:
            refused = refusal.text
        else:
            messages.success(
                request,
                _(
                    "%(name)s is reset: every stage is waiting to be seated, and its players "
                    "are as they were."
                )
                % {"name": tournament.name},
            )
            return redirect("manage-details", slug=slug)
    elif not tournament.practice:
        refused = str(practice.not_practice(tournament))
    statuses = dict(
        tournament.players.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    context = {
        "tournament": tournament,
        "refused": refused,
        "seats": Seat.objects.filter(stage__tournament=tournament).count(),
        "results": RoundResult.objects.filter(stage__tournament=tournament).count(),
        "made_by_close": list(tournament.stages.filter(made_by_close=True)),
        "players": sum(statuses.values()),
        "checked_in": statuses.get(Player.Status.CHECKED_IN, 0),
    }
    return render(request, "scoring/confirm_reset.html", context, status=409 if refused else 200)
