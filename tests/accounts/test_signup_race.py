"""Sign-ups racing with one invitation, on real PostgreSQL: one account, with the invitation's
role and nothing more."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from tests import factories
from tests.conftest import client_for
from tournaments.models import Staff
from tournaments.permissions import may_create_tournaments

SIGNUPS = 5


def race_sign_ups(tournament, role: str) -> list:
    """SIGNUPS browsers open the same invitation, then sign up at the same moment."""
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    answer = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/invitations/", {"role": role}, format="json"
    )
    link = answer.json()["url"].removeprefix("http://testserver")
    browsers = [Client() for _ in range(SIGNUPS)]
    for browser in browsers:
        assert browser.get(link).status_code == 200  # each session holds the invitation
    start = threading.Barrier(SIGNUPS)
    answers: list = [None] * SIGNUPS

    def sign_up(number: int) -> None:
        try:
            start.wait()
            answers[number] = browsers[number].post(
                "/accounts/signup/",
                {
                    "username": f"racer{number}",
                    "email": f"racer{number}@example.org",
                    "password1": "dominoes-on-tuesday",
                    "password2": "dominoes-on-tuesday",
                },
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=(n,)) for n in range(SIGNUPS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ["official", "organiser"])
def test_sign_ups_racing_with_one_invitation_make_one_account_with_its_role_only(
    require_postgres, settings, role
):
    settings.ROUNDHOUSE_SIGNUP = "invite"
    tournament = factories.TournamentFactory()
    answers = race_sign_ups(tournament, role)
    racers = list(get_user_model().objects.filter(username__startswith="racer"))
    assert len(racers) == 1, [racer.username for racer in racers]
    winner = racers[0]
    assert Staff.objects.get(tournament=tournament, user=winner).role == role
    assert may_create_tournaments(winner) is (role == "organiser")
    refused = [answer for answer in answers if answer.status_code != 302]
    assert len(refused) == SIGNUPS - 1
    for answer in refused:
        assert answer.status_code == 409
        page = answer.content.decode()
        assert f"This invitation was accepted by {winner.username} on" in page
    organisers = [user for user in get_user_model().objects.all() if may_create_tournaments(user)]
    assert len(organisers) == (2 if role == "organiser" else 1)  # the inviting organiser too
