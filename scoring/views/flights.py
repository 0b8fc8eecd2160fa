"""The console's split into flights by rating: a form of the divisions' page
(tournaments.console_divisions), posted here because the ranking it splits is scoring's
(scoring.services.flights); said done on that page, or shown again there with what is wrong."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from config.refusals import PageRefusal
from scoring.services.flights import split_by_rating
from tournaments.console import organised_tournament
from tournaments.console_divisions import division_action, divisions_page, flights_said
from tournaments.exceptions import StateConflict
from tournaments.forms import FlightSplitForm


@division_action
def split_flights(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    form = FlightSplitForm(request.POST)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        if form.is_valid():
            changed, ranking = split_by_rating(
                tournament=tournament,
                count=form.cleaned_data["count"],
                confirm=form.cleaned_data["confirm"],
            )
            messages.success(request, flights_said(changed, ranking.said()))
            return redirect("manage-divisions", slug=slug)
    refusal.onto(form)
    return divisions_page(request, tournament, split_form=form)
