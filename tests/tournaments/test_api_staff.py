"""The v1 API of a tournament's staff: good input, bad input, wrong staff."""

import pytest

from tests import factories
from tests.conftest import client_for
from tournaments.models import Staff, StaffEvent

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


def test_adding_an_existing_account_answers_the_same_whatever_the_password(
    as_organiser, tournament, other_organiser
):
    """It answered 201 and a "password not used" only when the guess was wrong: an oracle for
    anyone's password, never throttled, and the account was attached without its owner."""
    url = f"/api/v1/tournaments/{tournament.slug}/staff/"
    name = other_organiser.username
    bodies = [{"password": f"guess-{n}-of-twelve"} for n in range(12)]
    bodies += [{"password": "a-long-test-password"}, {"password": ""}, {}]  # theirs; none
    answers = [
        as_organiser.post(url, {"username": name, "role": "official", **body}, format="json")
        for body in bodies
    ]
    assert {answer.status_code for answer in answers} == {409}
    assert len({answer.content for answer in answers}) == 1
    assert answers[0].json()["detail"] == (
        f"'{name}' has an account already: send them an invitation (POST "
        f"/api/v1/tournaments/{tournament.slug}/invitations/, or the Staff page); they join "
        "when they accept it."
    )
    upper = as_organiser.post(
        url, {"username": name.upper(), "role": "organiser", "password": "x"}, format="json"
    )
    assert upper.status_code == 409  # the same account, in its normal form
    assert not Staff.objects.filter(tournament=tournament, user=other_organiser).exists()
    assert not StaffEvent.objects.filter(tournament=tournament, subject_name=name).exists()
    other_organiser.refresh_from_db()
    assert other_organiser.check_password("a-long-test-password")


def test_adding_someone_on_the_staff_already_points_to_changing_their_role(
    as_organiser, tournament, official
):
    member = Staff.objects.get(tournament=tournament, user=official)
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/staff/",
        {"username": official.username, "role": "organiser", "password": "whatever-it-is"},
        format="json",
    )
    assert response.status_code == 409
    assert (
        f"PATCH /api/v1/tournaments/{tournament.slug}/staff/{member.pk}/"
        in (response.json()["detail"])
    )
    member.refresh_from_db()
    assert member.role == "official"


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
    assert capitals.status_code == 409  # their account: on the staff already
    assert "is on the staff of" in capitals.json()["detail"]
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
