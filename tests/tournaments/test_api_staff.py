"""The v1 API of a tournament's staff: good input, bad input, wrong staff."""

import pytest

from tests import factories
from tests.conftest import client_for
from tournaments.models import Staff

pytestmark = pytest.mark.django_db


# ---- staff --------------------------------------------------------------------------------------


def test_organiser_adds_a_new_official_who_can_then_log_in(as_organiser, tournament, anon):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/staff/",
        {"username": "tablet7", "role": "official", "password": "table-seven-pass"},
        format="json",
    )
    assert response.status_code == 201
    assert Staff.objects.get(tournament=tournament, user__username="tablet7").role == "official"
    login = anon.post(
        "/api/v1/auth/token/", {"username": "tablet7", "password": "table-seven-pass"}
    )
    assert login.status_code == 200


def test_adding_an_existing_user_changes_the_role_and_never_the_password(
    as_organiser, tournament, official
):
    url = f"/api/v1/tournaments/{tournament.slug}/staff/"
    body = {"username": official.username, "role": "organiser"}
    # API.md: the password creates the user when new. Given for an existing account, it is not
    # used (never a reset from here), and the answer says so instead of dropping it unsaid.
    response = as_organiser.post(url, {**body, "password": "attacker-chosen"}, format="json")
    assert response.status_code == 201  # as API.md has it, for a role given anew or changed
    assert response.json()["detail"] == (
        f"{official.username} has an account already: the password given was not used, and "
        "theirs is unchanged."
    )
    assert Staff.objects.get(tournament=tournament, user=official).role == "organiser"
    official.refresh_from_db()
    assert official.check_password("a-long-test-password")
    # Their own password (a setup script run again) is nothing to say.
    again = as_organiser.post(
        url, {**body, "role": "official", "password": "a-long-test-password"}, format="json"
    )
    assert again.status_code == 201 and "detail" not in again.json()


def test_a_new_users_name_is_checked_and_the_password_kept_as_typed(
    as_organiser, tournament, official
):
    url = f"/api/v1/tournaments/{tournament.slug}/staff/"
    hidden = as_organiser.post(
        url, {"username": "tab\u200blet", "role": "official", "password": "pw"}, format="json"
    )
    assert hidden.status_code == 400 and "does not print (U+200B)" in hidden.json()["username"][0]
    capitals = as_organiser.post(
        url,
        {"username": official.username.upper(), "role": "official", "password": "long-enough"},
        format="json",
    )
    assert capitals.status_code == 400
    assert f"{official.username} has an account already" in capitals.json()["username"][0]
    assert not Staff.objects.filter(user__username__in=["tab\u200blet"]).exists()
    spaced = as_organiser.post(
        url,
        {"username": "tablet9", "role": "official", "password": "  two spaces  "},
        format="json",
    )
    assert spaced.status_code == 201
    login = as_organiser.post(
        "/api/v1/auth/token/", {"username": "tablet9", "password": "  two spaces  "}
    )
    assert login.status_code == 200  # the password as typed, spaces and all


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "newbie", "role": "official"}, "password"),
        ({"username": "newbie", "role": "referee", "password": "long-enough-pw"}, "role"),
        ({"role": "official", "password": "long-enough-pw"}, "username"),
    ],
)
def test_add_staff_bad_input_is_400(as_organiser, tournament, body, field):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/staff/", body, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not Staff.objects.filter(user__username="newbie").exists()


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_add_staff_needs_an_organiser_of_this_tournament(request, tournament, client, status):
    response = request.getfixturevalue(client).post(
        f"/api/v1/tournaments/{tournament.slug}/staff/",
        {"username": "sneaky", "role": "organiser", "password": "long-enough-pw"},
        format="json",
    )
    assert response.status_code == status
    assert not Staff.objects.filter(user__username="sneaky").exists()


def test_superuser_may_act_in_any_tournament(tournament):
    admin = factories.UserFactory(is_superuser=True)
    response = client_for(admin).post(
        f"/api/v1/tournaments/{tournament.slug}/players/",
        {"number": 1, "name": "Ann"},
        format="json",
    )
    assert response.status_code == 201
