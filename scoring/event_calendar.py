"""The event's days as an iCalendar file (RFC 5545), `/t/<slug>/event.ics`: "Add to calendar"
on the standings and "How it works" pages puts them in a phone's or a laptop's calendar.

One all-day event for each day from the tournament's first day to its last ("Spring Rally, day 2
of 3"), with its venue as the location and its public page as the link. All-day events are
dates, not times: they are the tournament's own days wherever the calendar is
(X-WR-TIMEZONE names its zone for the calendars that show it). Each event's UID is the
tournament's id and the day's number on the site's host name, so a calendar that reads the file
again after the days moved updates its events rather than adding others.

Written with the `icalendar` library (escaping, line folding, the required properties), not by
hand. A tournament whose days are not set has no event to give: the address answers 404 with a
page that says so (an iCalendar file must hold at least one event, RFC 5545 section 3.4)."""

import hashlib
from datetime import date, timedelta
from urllib.parse import urlsplit

import icalendar
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.public import _etag, _fresh_or_304
from tournaments.links import absolute_url, site_origin
from tournaments.models import Tournament

PRODUCT = "-//Roundhouse//Mexican Train tournaments//EN"


def event_days(tournament: Tournament) -> list[date]:
    """The tournament's days, first to last: none when neither is set, one when only one is."""
    first = tournament.starts_on or tournament.ends_on
    if first is None:
        return []
    last = tournament.ends_on or first
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def event_calendar(tournament: Tournament, *, page_url: str, host: str) -> bytes:
    """The calendar of the tournament's days (event_days: at least one), in the active
    language."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODUCT)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", tournament.name)
    calendar.add("x-wr-timezone", tournament.time_zone)
    days = event_days(tournament)
    name = _("Practice: %(name)s") % {"name": tournament.name} if tournament.practice else ""
    name = name or tournament.name
    description = "\n\n".join(part for part in (tournament.description, page_url) if part)
    stamp = timezone.now().replace(microsecond=0)
    for number, day in enumerate(days, start=1):
        event = icalendar.Event()
        event.add("uid", f"tournament-{tournament.pk}-day-{number}@{host}")
        event.add("dtstamp", stamp)
        event.add("dtstart", day)  # a date: an all-day event
        event.add("dtend", day + timedelta(days=1))  # the day after: the end is not in it
        if len(days) > 1:
            summary = _("%(name)s, day %(day)s of %(days)s") % {
                "name": name,
                "day": number,
                "days": len(days),
            }
        else:
            summary = name
        event.add("summary", summary)
        if tournament.venue:
            event.add("location", tournament.venue)
        event.add("url", page_url)
        event.add("description", description)
        calendar.add_component(event)
    return calendar.to_ical()


def event_ics(request: HttpRequest, slug: str) -> HttpResponse:
    """The tournament's days as an iCalendar file; 404, with a page that says why, while its
    days are not set."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not event_days(tournament):
        return render(request, "scoring/no_event_days.html", {"tournament": tournament}, status=404)
    page_url = absolute_url(request, reverse("tournament-home", args=[slug]))
    host = urlsplit(site_origin(request)).hostname or "roundhouse"  # (no port in a UID)
    # The version is what the file says, but for the time it was written (DTSTAMP).
    said = (
        tournament.name,
        tournament.practice,
        tournament.starts_on,
        tournament.ends_on,
        tournament.venue,
        tournament.description,
        tournament.time_zone,
        page_url,
    )
    digest = hashlib.blake2b(repr(said).encode(), digest_size=12).hexdigest()
    etag = _etag("ics", tournament.pk, digest)
    if (unchanged := _fresh_or_304(request, etag)) is not None:
        return unchanged
    body = event_calendar(tournament, page_url=page_url, host=host)
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    prefix = "practice-" if tournament.practice else ""  # as the other downloads say it
    response["Content-Disposition"] = f'attachment; filename="{prefix}{slug}.ics"'
    response["ETag"] = etag
    return response
