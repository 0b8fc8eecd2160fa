"""One invitation link for several tablets (`devices`): up to that many join, each without an
account; the next is told the link is used up; revoking it signs every one of them out; no
account signs in or up with it. A one-person invitation keeps its ways."""

import html
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.invitations import SESSION_KEY
from scoring.models import RoundResult
from tests import factories
from tests.accounts.test_invitations import PASSWORD, invitations_url, invite, join_path, round_body
from tests.migrating import every_app_at, migrated
from tests.scoring.helpers import seat_tables
from tournaments.models import Invitation, Staff, StaffEvent

pytestmark = pytest.mark.django_db


def page_text(response) -> str:
    return html.unescape(response.content.decode())


def join_as_tablet(link: str) -> tuple[Client, object]:
    tablet = Client()
    return tablet, tablet.post(link, {"as": "tablet"})


def listed(as_organiser, tournament, invitation_id: int) -> dict:
    answers = as_organiser.get(invitations_url(tournament)).json()
    return next(answer for answer in answers if answer["id"] == invitation_id)


def test_a_link_for_three_tablets_lets_three_join_and_tells_the_fourth_it_is_used_up(
    as_organiser, tournament
):
    made = invite(as_organiser, tournament, devices=3)
    assert (made["devices"], made["uses"], made["status"]) == (3, 0, "pending")
    link = join_path(made)
    page = page_text(Client().get(link))
    assert "This link is for up to 3 tablets at the tables" in page
    assert "0 of 3 tablets joined" in page
    for number in (1, 2, 3):
        _tablet, joined = join_as_tablet(link)
        assert joined.status_code == 302 and joined["Location"] == f"/t/{tournament.slug}/enter/"
        assert listed(as_organiser, tournament, made["id"])["uses"] == number
    tablets = Staff.objects.filter(tournament=tournament, joined_via="tablet")
    assert tablets.count() == 3
    assert {staff.invitation_id for staff in tablets} == {made["id"]}
    assert len({staff.user.username for staff in tablets}) == 3  # three tablets, not one
    answer = listed(as_organiser, tournament, made["id"])
    assert (answer["uses"], answer["devices"], answer["status"]) == (3, 3, "accepted")
    assert answer["accepted_by"] is None  # no one person accepted it

    fourth = Client()
    opened = fourth.get(link)
    assert opened.status_code == 409
    said = page_text(opened)
    assert "All 3 tablets this link was made for have joined" in said
    assert f"Ask an organiser of {tournament.name} for a new link." in said
    assert "Continue without an account" not in said
    refused = fourth.post(link, {"as": "tablet"})
    assert refused.status_code == 409 and "All 3 tablets" in page_text(refused)
    assert tablets.count() == 3


def test_a_removed_tablet_does_not_free_a_place_on_a_used_up_link(as_organiser, tournament):
    made = invite(as_organiser, tournament, devices=2)
    for _ in range(2):
        join_as_tablet(join_path(made))
    first = Staff.objects.filter(joined_via="tablet").order_by("pk").first()
    staff_url = f"/api/v1/tournaments/{tournament.slug}/staff/{first.pk}/"
    assert as_organiser.delete(staff_url).status_code == 204
    _tablet, again = join_as_tablet(join_path(made))
    assert again.status_code == 409
    assert Staff.objects.filter(joined_via="tablet").count() == 1


def test_revoking_a_used_link_signs_out_all_its_tablets_and_only_them(
    as_organiser, tournament, organiser
):
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=3)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    table = stage.tables.get()
    made = invite(as_organiser, tournament, devices=2)
    clients = [join_as_tablet(join_path(made))[0] for _ in range(2)]
    # A tablet of another, one-person invitation stays signed in.
    other, _joined = join_as_tablet(join_path(invite(as_organiser, tournament)))
    ours = Staff.objects.filter(invitation_id=made["id"]).select_related("user")
    users = [staff.user for staff in ours]
    token = Token.objects.create(user=users[0])  # were it given one, it ends too
    with_token = APIClient(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert with_token.get(f"/api/v1/tournaments/{tournament.slug}/").status_code == 200

    revoked = as_organiser.delete(f"{invitations_url(tournament)}{made['id']}/")
    assert revoked.status_code == 204
    assert not Staff.objects.filter(pk__in=[staff.pk for staff in ours]).exists()
    assert not Token.objects.filter(user__in=users).exists()
    again = get_user_model().objects.filter(pk__in=[user.pk for user in users])
    assert not any(user.is_active for user in again)
    assert listed(as_organiser, tournament, made["id"])["status"] == "revoked"
    for tablet in clients:
        put = tablet.put(
            f"/api/v1/tables/{table.pk}/rounds/1/",
            round_body(players),
            content_type="application/json",
            HTTP_X_CSRFTOKEN=tablet.cookies.get("csrftoken", ""),
        )
        assert put.status_code in (401, 403)
        landed = tablet.get(f"/t/{tournament.slug}/enter/", follow=True)
        assert "An organiser has ended this tablet's access to score entry." in page_text(landed)
    by_token = with_token.put(
        f"/api/v1/tables/{table.pk}/rounds/1/", round_body(players), format="json"
    )
    assert by_token.status_code == 401
    assert not RoundResult.objects.exists()
    # The other link's tablet still enters scores.
    put = other.put(
        f"/api/v1/tables/{table.pk}/rounds/1/",
        round_body(players),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=other.cookies.get("csrftoken", ""),
    )
    assert put.status_code == 201, put.content
    removed = StaffEvent.objects.filter(action="removed", invitation_id=made["id"])
    assert sorted(removed.values_list("subject_name", flat=True)) == sorted(
        user.username for user in users
    )
    assert {event.actor for event in removed} == {organiser}
    # Revoking again is harmless, and the link says it was revoked.
    assert as_organiser.delete(f"{invitations_url(tournament)}{made['id']}/").status_code == 204
    opened = Client().get(join_path(made))
    assert opened.status_code == 409 and "This invitation was revoked on" in page_text(opened)


def test_an_expired_link_for_tablets_can_still_be_revoked_to_sign_them_out(
    as_organiser, tournament
):
    made = invite(as_organiser, tournament, devices=5)
    join_as_tablet(join_path(made))
    Invitation.objects.filter(pk=made["id"]).update(expires_at=timezone.now() - timedelta(hours=1))
    assert listed(as_organiser, tournament, made["id"])["status"] == "expired"
    assert as_organiser.delete(f"{invitations_url(tournament)}{made['id']}/").status_code == 204
    assert not Staff.objects.filter(joined_via="tablet").exists()


def test_a_one_person_invitation_is_still_409_to_revoke_once_accepted(as_organiser, tournament):
    made = invite(as_organiser, tournament)
    assert (made["devices"], made["uses"]) == (1, 0)
    join_as_tablet(join_path(made))
    answer = listed(as_organiser, tournament, made["id"])
    assert (answer["status"], answer["uses"], answer["devices"]) == ("accepted", 1, 1)
    refused = as_organiser.delete(f"{invitations_url(tournament)}{made['id']}/")
    assert refused.status_code == 409
    assert "remove" in refused.json()["detail"]
    assert Staff.objects.filter(joined_via="tablet").count() == 1
    # The Staff row remembers its invitation, with an account too.
    second = invite(as_organiser, tournament)
    dee = factories.UserFactory(username="dee", password=PASSWORD)
    browser = Client()
    browser.force_login(dee)
    assert browser.post(join_path(second)).status_code == 302
    assert Staff.objects.get(user=dee).invitation_id == second["id"]


def test_an_account_can_neither_sign_in_nor_sign_up_through_a_link_for_tablets(
    as_organiser, tournament, settings
):
    settings.ROUNDHOUSE_SIGNUP = "invite"
    made = invite(as_organiser, tournament, devices=4)
    link = join_path(made)
    browser = Client()
    page = page_text(browser.get(link))
    assert "Sign in to accept" not in page and "Create an account" not in page
    assert "this link is for tablets only" in page
    # The session does not hold it: sign-up stays closed, and makes no account.
    assert "Sign-up is by invitation" in page_text(browser.get("/accounts/signup/"))
    accepted = browser.post(link)  # the form an account would send
    assert accepted.status_code == 409
    assert "This link is for the tablets at the tables of" in page_text(accepted)
    # Signed in: refused with the same words, and no role given.
    dee = factories.UserFactory(username="dee", password=PASSWORD)
    browser.force_login(dee)
    signed_in = page_text(browser.get(link))
    assert "You are signed in as dee, but this link is for tablets only." in signed_in
    assert "Accept the invitation" not in signed_in
    refused = browser.post(link)
    assert refused.status_code == 409
    assert "To join with your account, ask an organiser for an invitation of your own." in (
        page_text(refused)
    )
    assert not Staff.objects.filter(user=dee).exists()
    # A session that held the link anyway (signed up meanwhile) is refused too: no account.
    newcomer = Client()
    session = newcomer.session
    session[SESSION_KEY] = Invitation.objects.get(pk=made["id"]).key
    session.save()
    signup = newcomer.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "newbie@example.org",
            "password1": "tables-and-trains-9",
            "password2": "tables-and-trains-9",
        },
    )
    assert signup.status_code == 409
    assert "This link is for the tablets at the tables of" in page_text(signup)
    assert not get_user_model().objects.filter(username="newbie").exists()
    assert listed(as_organiser, tournament, made["id"])["uses"] == 0


def test_the_staff_page_makes_a_link_for_tablets_and_says_how_many_joined(
    client, tournament, organiser
):
    client.force_login(organiser)
    staff_page = f"/t/{tournament.slug}/manage/staff/"
    form = page_text(client.get(staff_page))
    assert "How many tablets" in form and 'name="devices"' in form and 'value="1"' in form
    made = client.post(
        staff_page, {"action": "invite", "role": "official", "days": 7, "devices": 10}, follow=True
    )
    invitation = Invitation.objects.get()
    assert invitation.devices == 10
    shown = page_text(made)
    assert "it works for up to 10 tablets" in shown and "0 of 10 tablets joined" in shown
    Client().post(f"/join/{invitation.key}/", {"as": "tablet"})
    listing = page_text(client.get(staff_page))
    assert "1 of 10 tablets joined" in listing
    assert "every tablet that joined with it (1 so far) is signed out" in listing
    revoked = client.post(
        staff_page, {"action": "revoke", "invitation": invitation.pk}, follow=True
    )
    assert "The link was revoked: it no longer works, and its tablet is signed out." in (
        page_text(revoked)
    )
    assert not Staff.objects.filter(joined_via="tablet").exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"role": "organiser", "devices": 3}, "A link for several tablets gives the official"),
        ({"role": "official", "devices": 51}, "A link is for 1 to 50 tablets."),
        ({"role": "official", "devices": 0}, "A link is for 1 to 50 tablets."),
    ],
)
def test_the_staff_page_refuses_a_bad_number_of_tablets_and_makes_nothing(
    client, tournament, organiser, body, message
):
    client.force_login(organiser)
    answer = client.post(
        f"/t/{tournament.slug}/manage/staff/", {"action": "invite", "days": 7, **body}
    )
    assert answer.status_code == 400 and message in page_text(answer)
    assert not Invitation.objects.exists()


def test_the_mail_of_a_link_for_tablets_says_to_open_it_on_each(
    as_organiser, tournament, mailoutbox
):
    invite(as_organiser, tournament, devices=6, email="desk@example.org")
    (mail,) = mailoutbox
    assert "Open this link on each tablet at the tables (it works for up to 6 tablets" in (
        mail.body
    )


@pytest.mark.django_db(transaction=True)
def test_invitations_from_before_count_their_use_and_their_staff_keep_them():
    before = every_app_at(("tournaments", "0020_stage_reporting"))
    after = every_app_at(("tournaments", "0021_invitation_devices"))

    def old_invitations(apps):
        user_model = apps.get_model("auth", "User")
        tournament = apps.get_model("tournaments", "Tournament").objects.create(
            name="Old event", slug="old-event", domino_set=12
        )
        invitation_model = apps.get_model("tournaments", "Invitation")
        dee = user_model.objects.create(username="dee")
        later = timezone.now() + timedelta(days=3)
        accepted = invitation_model.objects.create(
            tournament=tournament,
            role="official",
            key="accepted",
            expires_at=later,
            accepted_by=dee,
            accepted_at=timezone.now(),
        )
        waiting = invitation_model.objects.create(
            tournament=tournament, role="official", key="waiting", expires_at=later
        )
        staff = apps.get_model("tournaments", "Staff").objects.create(
            tournament=tournament, user=dee, role="official", joined_via="invitation"
        )
        apps.get_model("tournaments", "StaffEvent").objects.create(
            tournament=tournament, action="accepted", subject_name="dee", invitation=accepted
        )
        return accepted.pk, waiting.pk, staff.pk

    accepted, waiting, staff = migrated(before, after, old_invitations)
    assert Invitation.objects.get(pk=accepted).uses == 1
    assert Invitation.objects.get(pk=waiting).uses == 0
    assert {i.devices for i in Invitation.objects.all()} == {1}
    assert Staff.objects.get(pk=staff).invitation_id == accepted
