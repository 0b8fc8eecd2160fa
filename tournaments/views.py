"""Public pages of tournaments."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from tournaments.models import Tournament


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/home.html", {"tournaments": Tournament.objects.all()})
