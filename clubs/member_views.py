"""A club member's public page (/<lang>/c/<club>/members/<id>/): the events they played, their
place and rounds in each, and their rating now and after each event, with a small chart.

Public: the same for every visitor and kept by a shared cache (config/http_cache.py), so it
holds nothing an organiser alone may see: no household, email or phone (an erased member shows
only their anonymised name), and no form.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from clubs import rating_store
from clubs.models import Club, Member, PlayerLink
from clubs.rating import PROVISIONAL_ROUNDS, MemberRating, NoRatingYet, Ratings, rating_of
from clubs.rating_chart import ChartInput, rating_chart
from scoring.models import Placing, RoundResult, Score
from tournaments.models import Tournament


def shown(value: float) -> int:
    """A rating as the pages show it: a whole number."""
    return round(value)


@dataclass(frozen=True)
class EventPlayed:
    tournament: Tournament
    day: datetime.date
    place: int | None  # None: not decided (yet)
    rounds: int  # confirmed rounds played
    rating: MemberRating | None  # after the event; None: no rated round in it

    @property
    def shown_rating(self) -> int | None:
        return None if self.rating is None else shown(self.rating.ordinal)


def events_played(member: Member, series: tuple[MemberRating, ...]) -> list[EventPlayed]:
    """Each tournament the member was entered in (linked), oldest first: three queries."""
    links = PlayerLink.objects.filter(member=member).select_related("player__tournament")
    players = {link.player_id: link.player.tournament for link in links}
    places = dict(Placing.objects.filter(player_id__in=players).values_list("player_id", "place"))
    rounds = dict(
        Score.objects.filter(player_id__in=players, result__status=RoundResult.Status.CONFIRMED)
        .values("player_id")
        .annotate(count=Count("pk"))
        .values_list("player_id", "count")
    )
    after = {point.last_key.event_id: point for point in series}
    events = [
        EventPlayed(
            tournament=tournament,
            day=rating_store.event_date(
                tournament.starts_on, tournament.created_at, tournament.time_zone
            ),
            place=places.get(player_id),
            rounds=rounds.get(player_id, 0),
            rating=after.get(tournament.pk),
        )
        for player_id, tournament in players.items()
    ]
    events.sort(key=lambda event: (event.day, event.tournament.pk))
    return events


def member_page(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    club = get_object_or_404(Club, slug=slug)
    # Only a member who played in one of the club's tournaments has a public page: the roster
    # itself (who is a member) is the organisers'.
    member = get_object_or_404(Member.objects.filter(links__isnull=False).distinct(), club=club,
                               pk=member_id)  # fmt: skip
    series = rating_store.member_series(member)
    events = events_played(member, series)
    try:
        now = rating_of(Ratings(series={member.pk: series}), member.pk)
    except NoRatingYet:
        now = None
    chart = rating_chart(
        [
            ChartInput(
                name=event.tournament.name,
                day=event.day,
                rating=event.shown_rating,
                provisional=event.rating.provisional,
            )
            for event in events
            if event.rating is not None
        ]
    )
    context = {
        "club": club,
        "member": member,
        "events": events,
        "now": now,
        "now_shown": None if now is None else shown(now.ordinal),
        "chart": chart,
        "provisional_rounds": PROVISIONAL_ROUNDS,
    }
    return render(request, "clubs/member_public.html", context)


@dataclass(frozen=True)
class RosterRating:
    """A member's rating as the roster shows it."""

    shown: int
    rounds: int
    provisional: bool


def with_ratings(members: list[Member], club: Club) -> list[Member]:
    """The roster's members, each with `.rating` (a RosterRating, or None: no rating yet)."""
    ratings = rating_store.current_ratings(club.pk)
    for member in members:
        rating = ratings.get(member.pk)
        member.rating = (
            None
            if rating is None
            else RosterRating(shown(rating.ordinal), rating.rounds, rating.provisional)
        )
    return members
