"""Public pages of tournaments."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from tournaments.models import Tournament


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/home.html", {"tournaments": Tournament.objects.all()})


def tournament_home(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    context = {
        "tournament": tournament,
        "stages": tournament.stages.all(),
        "players": tournament.players.exclude(status="withdrawn"),
    }
    return render(request, "tournaments/tournament.html", context)
