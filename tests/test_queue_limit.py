"""A public request that waited longer than PUBLIC_QUEUE_LIMIT_SECONDS behind others (nginx's
X-Request-Start says when it sent it) is answered 503 at once: no query, no cookie, kept by a
cache a second at most, a wait named in Retry-After; a page gets a notice in both languages
that reloads itself, a fragment an empty body (the page keeps what it shows). What is sent (a
POST, an API write) is never turned away, and a stamp that cannot be read, or no stamp, changes
nothing."""

import time

import pytest
from django.test import Client

from config.queue_limit import queued_seconds
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def stamped(seconds_ago: float) -> str:
    """X-Request-Start as deploy/nginx.conf writes it: t=<seconds with milliseconds>."""
    return f"t={time.time() - seconds_ago:.3f}"


def test_a_page_request_that_waited_too_long_is_turned_away_at_once(
    tournament, django_assert_num_queries
):
    with django_assert_num_queries(0):  # nothing read: not the tournament, not a session
        response = Client().get(f"/en/t/{tournament.slug}/", HTTP_X_REQUEST_START=stamped(2.5))
    assert response.status_code == 503
    assert response["Retry-After"] == "3"
    # Kept a second at most: the phones waiting on nginx's lock for the page get it at once.
    assert response["Cache-Control"] == "public, max-age=1"
    assert response["Vary"] == "HX-Request"  # the notice for a page, nothing for a fragment
    assert response["X-Content-Type-Options"] == "nosniff"  # the site's security headers too
    assert not response.cookies
    page = response.content.decode()
    assert '<meta http-equiv="refresh" content="3">' in page  # the browser asks again by itself
    assert "Busy, one moment" in page
    assert "Mucha gente está abriendo esta página a la vez" in page


def test_a_fragment_turned_away_has_no_body_so_the_page_keeps_what_it_shows(tournament):
    response = Client().get(
        f"/es/t/{tournament.slug}/", HTTP_HX_REQUEST="true", HTTP_X_REQUEST_START=stamped(10)
    )
    assert (response.status_code, response.content) == (503, b"")
    assert response["Retry-After"] == "3"


def test_a_request_within_the_limit_or_without_a_stamp_is_served(tournament):
    for headers in ({"HTTP_X_REQUEST_START": stamped(1.5)}, {}):
        response = Client().get(f"/en/t/{tournament.slug}/", **headers)
        assert response.status_code == 200, headers
        assert tournament.name in response.content.decode()


@pytest.mark.parametrize(
    "stamp",
    ["t=yesterday", "", "t=", f"t={time.time() + 3600:.3f}"],
    ids=["words", "empty", "no-number", "an-hour-ahead"],
)
def test_a_stamp_that_cannot_be_read_or_lies_ahead_is_ignored(tournament, stamp):
    response = Client().get(f"/en/t/{tournament.slug}/", HTTP_X_REQUEST_START=stamp)
    assert response.status_code == 200


def test_what_someone_sends_is_never_turned_away(as_organiser):
    # An organiser's POST (a tablet's PUT alike) that waited long is served as usual: a write
    # turned away could be a result someone typed.
    created = as_organiser.post(
        "/api/v1/tournaments/",
        {"name": "Late Night", "slug": "late-night", "domino_set": 12},
        format="json",
        HTTP_X_REQUEST_START=stamped(30),
    )
    assert created.status_code == 201, created.content
    assert Tournament.objects.filter(slug="late-night").exists()


def test_with_no_limit_nothing_is_turned_away(tournament, settings):
    settings.PUBLIC_QUEUE_LIMIT_SECONDS = 0
    response = Client().get(f"/en/t/{tournament.slug}/", HTTP_X_REQUEST_START=stamped(60))
    assert response.status_code == 200


def test_the_stamp_reads_in_seconds_or_milliseconds():
    now = 1_700_000_010.0
    assert queued_seconds("t=1700000000.250", now) == pytest.approx(9.75)
    assert queued_seconds("t=1700000000250", now) == pytest.approx(9.75)  # Heroku's, New Relic's
    assert queued_seconds("1700000009500", now) == pytest.approx(0.5)
    assert queued_seconds("t=1700000011.000", now) == pytest.approx(-1.0)  # clocks a bit apart
    assert queued_seconds("t=1700000020.000", now) is None  # not this host's nginx
    assert queued_seconds("t=soon", now) is None
