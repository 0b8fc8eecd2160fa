"""Sign-up in each ROUNDHOUSE_SIGNUP mode, the address confirmed by mail, the password changed."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from tests import factories
from tests.conftest import client_for
from tournaments.permissions import may_create_tournaments

pytestmark = pytest.mark.django_db

NEW = {
    "username": "rosa",
    "email": "rosa@example.org",
    "password1": "dominoes-on-tuesday",
    "password2": "dominoes-on-tuesday",
}


def test_open_sign_up_makes_an_organiser_who_lands_on_my_tournaments(client, smtp_server):
    page = client.get("/accounts/signup/").content.decode()
    assert "Sign up as an organiser" in page
    assert 'href="/accounts/signup/"' in client.get("/accounts/login/").content.decode()
    response = client.post("/accounts/signup/", NEW, follow=True)
    assert response.redirect_chain[-1][0] == "/"
    home = response.content.decode()
    assert "<h1>My tournaments</h1>" in home and 'href="/new/"' in home
    rosa = get_user_model().objects.get(username="rosa")
    assert may_create_tournaments(rosa)
    created = client_for(rosa).post(
        "/api/v1/tournaments/", {"name": "Tuesday Trains", "slug": "tuesday"}, format="json"
    )
    assert created.status_code == 201
    # The address is confirmed by a link mailed to it.
    (message,) = smtp_server.messages
    assert message["To"] == "rosa@example.org"
    link = re.search(r"http://testserver(/accounts/confirm-email/\S+)", smtp_server.bodies()[0])
    assert not EmailAddress.objects.get(email="rosa@example.org").verified
    client.post(link[1])
    assert EmailAddress.objects.get(email="rosa@example.org").verified


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"password1": "abc", "password2": "abc"}, "password1", "too short"),
        ({"password1": "password", "password2": "password"}, "password1", "too common"),
        ({"password1": "12345678901", "password2": "12345678901"}, "password1", "entirely numeric"),
        ({"password2": "something-else-entirely"}, "password2", "same password"),
        ({"email": "not-an-address"}, "email", "valid email"),
        ({"username": "ann"}, "username", "already"),
    ],
)
def test_a_bad_sign_up_says_why_and_makes_no_account(client, change, field, message):
    factories.UserFactory(username="ann")
    response = client.post("/accounts/signup/", {**NEW, **change})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert message in " ".join(errors[field]), errors
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["ann"]


def test_invite_mode_closes_sign_up_to_people_without_an_invitation(client, settings):
    settings.ROUNDHOUSE_SIGNUP = "invite"
    page = client.get("/accounts/signup/").content.decode()
    assert "Sign-up is by invitation" in page and 'name="password1"' not in page
    client.post("/accounts/signup/", NEW)
    assert not get_user_model().objects.filter(username="rosa").exists()
    login = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' not in login
    assert "join with an invitation from an organiser" in login


def test_invite_mode_lets_an_organisers_invitation_sign_up_an_organiser(
    client, settings, tournament
):
    settings.ROUNDHOUSE_SIGNUP = "invite"
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    answer = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/invitations/", {"role": "organiser"}, format="json"
    )
    client.get(answer.json()["url"].removeprefix("http://testserver"))
    response = client.post("/accounts/signup/", NEW, follow=True)
    assert response.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/"
    rosa = get_user_model().objects.get(username="rosa")
    assert may_create_tournaments(rosa)
    assert tournament.staff.get(user=rosa).role == "organiser"


def test_a_password_is_changed_signed_in(client):
    user = factories.UserFactory(username="ann", password="a-long-test-password")
    client.force_login(user)
    page = client.get("/accounts/password/change/")
    assert page.status_code == 200
    client.post(
        "/accounts/password/change/",
        {
            "oldpassword": "a-long-test-password",
            "password1": "brand-new-train-set",
            "password2": "brand-new-train-set",
        },
    )
    user.refresh_from_db()
    assert user.check_password("brand-new-train-set")
    wrong = client.post(
        "/accounts/password/change/",
        {"oldpassword": "not-it", "password1": "x-y-z-w-1234", "password2": "x-y-z-w-1234"},
    )
    assert "oldpassword" in wrong.context["form"].errors
    user.refresh_from_db()
    assert user.check_password("brand-new-train-set")


def test_a_new_address_is_confirmed_before_it_counts(client, smtp_server):
    user = factories.UserFactory(username="ann", email="ann@example.org")
    EmailAddress.objects.create(user=user, email="ann@example.org", verified=True, primary=True)
    client.force_login(user)
    client.post("/accounts/email/", {"action_add": "", "email": "ann@new.example.org"})
    user.refresh_from_db()
    assert user.email == "ann@example.org"  # not until confirmed
    (message,) = smtp_server.messages
    assert message["To"] == "ann@new.example.org"
    link = re.search(r"http://testserver(/accounts/confirm-email/\S+)", smtp_server.bodies()[0])
    client.post(link[1])
    user.refresh_from_db()
    assert user.email == "ann@new.example.org"
