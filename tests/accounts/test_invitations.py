"""Invitations and staff roles, by the API and on the pages: made, accepted (with an account,
by signing up, on a tablet without one), expired, revoked, reused; roles changed and removed,
each kept in the staff log."""

import html
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from scoring.models import RoundResult
from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import seat_tables
from tournaments.models import Invitation, Staff, StaffEvent

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"


def invitations_url(tournament) -> str:
    return f"/api/v1/tournaments/{tournament.slug}/invitations/"


def invite(as_organiser, tournament, **body):
    response = as_organiser.post(
        invitations_url(tournament), {"role": "official", **body}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def join_path(answer: dict) -> str:
    return answer["url"].removeprefix("http://testserver")


def round_body(players, pips=(0, 5, 9)) -> dict:
    return {
        "blocked": False,
        "scores": [
            {"player": p.pk, "pips": n, "went_out": n == 0}
            for p, n in zip(players, pips, strict=True)
        ],
    }


def test_api_makes_lists_and_revokes_an_invitation(as_organiser, tournament, organiser):
    made = invite(as_organiser, tournament, email="ann@example.org")
    assert made["role"] == "official" and made["status"] == "pending"
    assert made["created_by"] == organiser.username
    assert made["url"].startswith("http://testserver/join/")
    expires = timezone.datetime.fromisoformat(made["expires_at"])
    assert timedelta(days=6, hours=23) < expires - timezone.now() <= timedelta(days=7)
    listed = as_organiser.get(invitations_url(tournament)).json()
    assert [i["id"] for i in listed] == [made["id"]]

    revoked = as_organiser.delete(f"{invitations_url(tournament)}{made['id']}/")
    assert revoked.status_code == 204
    assert as_organiser.get(invitations_url(tournament)).json()[0]["status"] == "revoked"
    # Revoking again is harmless.
    assert as_organiser.delete(f"{invitations_url(tournament)}{made['id']}/").status_code == 204
    page = client_for(factories.UserFactory()).get(join_path(made))
    assert page.status_code == 409 and "This invitation was revoked on" in page.content.decode()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"role": "captain"}, "role", "not a valid choice"),
        ({"email": "not-an-address"}, "email", "valid email"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, "expires_at", "in the future"),
        ({"expires_at": "2099-01-01T00:00:00Z"}, "expires_at", "90 days at the most"),
        ({"uses": 5}, "uses", "set by Roundhouse"),
        ({"tablets": 5}, "tablets", "Unknown field"),
        ({"devices": 0}, "devices", "1 to 50 tablets"),
        ({"devices": 51}, "devices", "1 to 50 tablets"),
        ({"devices": "many"}, "devices", "valid integer"),
        ({"role": "organiser", "devices": 3}, "devices", "gives the official's role"),
    ],
)
def test_a_bad_invitation_is_400_and_makes_nothing(as_organiser, tournament, body, field, message):
    response = as_organiser.post(
        invitations_url(tournament), {"role": "official", **body}, format="json"
    )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    assert not Invitation.objects.exists() and not StaffEvent.objects.exists()


def test_officials_and_others_may_not_invite(as_official, as_other_organiser, anon, tournament):
    for client, status in ((as_official, 403), (as_other_organiser, 403), (anon, 401)):
        response = client.post(invitations_url(tournament), {"role": "organiser"}, format="json")
        assert response.status_code == status
    assert not Invitation.objects.exists()


def test_an_invitation_accepted_with_an_account(as_organiser, tournament, client):
    made = invite(as_organiser, tournament, role="organiser")
    dee = factories.UserFactory(username="dee", password=PASSWORD)
    # Not signed in: the page offers to sign in, and comes back after.
    page = client.get(join_path(made)).content.decode()
    assert "Sign in to accept" in page and f"?next={join_path(made)}" in page
    sign_in = client.get(f"/accounts/login/?next={join_path(made)}").content.decode()
    assert f"Sign in, then accept the invitation to join {tournament.name} as an organiser." in (
        sign_in
    )
    client.post("/accounts/login/", {"login": "dee", "password": PASSWORD})
    assert "Accept the invitation" in client.get(join_path(made)).content.decode()
    accepted = client.post(join_path(made), follow=True)
    assert accepted.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/"
    assert "Welcome: you are now an organiser of" in accepted.content.decode()
    staff = Staff.objects.get(tournament=tournament, user=dee)
    assert (staff.role, staff.joined_via) == ("organiser", "invitation")
    # An organiser by invitation may create tournaments of their own.
    created = client_for(dee).post(
        "/api/v1/tournaments/", {"name": "Dee's Night", "slug": "dees-night"}, format="json"
    )
    assert created.status_code == 201


def test_an_invitation_accepted_by_signing_up_in_invite_mode(
    as_organiser, tournament, client, settings
):
    settings.ROUNDHOUSE_SIGNUP = "invite"
    assert "Sign-up is by invitation" in client.get("/accounts/signup/").content.decode()
    made = invite(as_organiser, tournament)
    page = client.get(join_path(made)).content.decode()
    assert "Create an account" in page
    form = client.get("/accounts/signup/").content.decode()
    assert "Once your account is made, you join" in form and "as an official." in form
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "newbie@example.org",
            "password1": "tables-and-trains-9",
            "password2": "tables-and-trains-9",
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == f"/t/{tournament.slug}/enter/"
    staff = Staff.objects.get(tournament=tournament, user__username="newbie")
    assert (staff.role, staff.joined_via) == ("official", "invitation")
    # An official by invitation may not create a tournament: no button, and a 403.
    assert "New tournament" not in client.get("/").content.decode()
    assert client.get("/new/").status_code == 403
    assert Invitation.objects.get().status == Invitation.Status.ACCEPTED


def test_a_tablet_joins_without_an_account_until_the_organiser_ends_it(
    as_organiser, tournament, client
):
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=3)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    table = stage.tables.get()
    made = invite(as_organiser, tournament)
    joined = client.post(join_path(made), {"as": "tablet"}, follow=True)
    assert joined.redirect_chain[-1][0] == f"/t/{tournament.slug}/enter/"
    staff = Staff.objects.get(tournament=tournament, joined_via="tablet")
    assert staff.role == "official" and not staff.user.has_usable_password()
    # It enters scores ...
    put = client.put(
        f"/api/v1/tables/{table.pk}/rounds/1/",
        round_body(players),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=client.cookies.get("csrftoken", ""),
    )
    assert put.status_code == 201, put.content
    # ... and reaches nothing else: no account pages, no new tournament.
    assert client.get("/accounts/email/")["Location"] == f"/t/{tournament.slug}/enter/"
    assert client.get("/new/")["Location"] == f"/t/{tournament.slug}/enter/"
    # Its tournament's public pages it may open, in either language.
    for language in ("en", "es"):
        assert client.get(f"/{language}/t/{tournament.slug}/").status_code == 200
    other = factories.TournamentFactory()
    assert client.get(f"/es/t/{other.slug}/")["Location"] == f"/t/{tournament.slug}/enter/"
    # The organiser ends it: the tablet's next submission is refused and stores nothing.
    listed = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/staff/").json()
    tablet = next(m for m in listed if m["joined_via"] == "tablet")
    assert (
        as_organiser.delete(
            f"/api/v1/tournaments/{tournament.slug}/staff/{tablet['id']}/"
        ).status_code
        == 204
    )
    again = client.put(
        f"/api/v1/tables/{table.pk}/rounds/2/",
        round_body(players),
        content_type="application/json",
    )
    assert again.status_code in (401, 403)
    assert RoundResult.objects.count() == 1
    signed_out = client.get(f"/t/{tournament.slug}/enter/")
    assert signed_out.status_code == 302
    # The volunteer at the tablet is told why, where it lands (they have no account to sign in).
    page = html.unescape(client.get(signed_out["Location"]).content.decode())
    assert "An organiser has ended this tablet's access to score entry." in page
    assert "ask an organiser for a new invitation link or QR code" in page
    assert "has ended this tablet" not in client.get(signed_out["Location"]).content.decode()


def test_an_organisers_invitation_cannot_be_used_without_an_account(
    as_organiser, tournament, client
):
    made = invite(as_organiser, tournament, role="organiser")
    assert "Continue without an account" not in client.get(join_path(made)).content.decode()
    refused = client.post(join_path(made), {"as": "tablet"})
    assert refused.status_code == 409
    assert "Only an official's invitation can be used without an account" in (
        html.unescape(refused.content.decode())
    )
    assert not Staff.objects.filter(joined_via="tablet").exists()
    assert Invitation.objects.get().status == Invitation.Status.PENDING


def test_a_removed_official_is_refused_and_nothing_is_stored(
    as_organiser, tournament, official, organiser
):
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=3)
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    table = stage.tables.get()
    staff_id = Staff.objects.get(tournament=tournament, user=official).pk
    removed = as_organiser.delete(f"/api/v1/tournaments/{tournament.slug}/staff/{staff_id}/")
    assert removed.status_code == 204
    refused = client_for(official).put(
        f"/api/v1/tables/{table.pk}/rounds/1/", round_body(players), format="json"
    )
    assert refused.status_code == 403
    assert not RoundResult.objects.exists()
    event = StaffEvent.objects.get(action="removed")
    assert (event.actor, event.subject_name, event.role) == (
        organiser,
        official.username,
        "official",
    )


def test_the_last_organiser_is_never_demoted_nor_removed(as_organiser, tournament, organiser):
    mine = Staff.objects.get(tournament=tournament, user=organiser).pk
    url = f"/api/v1/tournaments/{tournament.slug}/staff/{mine}/"
    demoted = as_organiser.patch(url, {"role": "official"}, format="json")
    assert demoted.status_code == 409 and "is the only organiser of" in demoted.json()["detail"]
    assert as_organiser.delete(url).status_code == 409
    assert Staff.objects.get(pk=mine).role == "organiser"
    # With a second organiser, stepping down is allowed, and logged.
    second = factories.StaffFactory(tournament=tournament, role="official")
    other = f"/api/v1/tournaments/{tournament.slug}/staff/{second.pk}/"
    assert as_organiser.patch(other, {"role": "organiser"}, format="json").json()["role"] == (
        "organiser"
    )
    assert as_organiser.patch(url, {"role": "official"}, format="json").status_code == 200
    changes = StaffEvent.objects.filter(action="role_changed").order_by("pk")
    assert [(e.subject_name, e.previous_role, e.role) for e in changes] == [
        (second.user.username, "official", "organiser"),
        (organiser.username, "organiser", "official"),
    ]


def test_the_staff_list_says_how_each_joined(as_organiser, tournament, organiser, official):
    listed = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/staff/").json()
    assert {(m["username"], m["role"]) for m in listed} == {
        (organiser.username, "organiser"),
        (official.username, "official"),
    }
    assert all({"joined_via", "joined_at", "last_seen_at", "id"} <= set(m) for m in listed)


def test_a_script_adding_staff_keeps_the_password_rules(as_organiser, tournament):
    """POST staff stays for scripts, but "abc" is no longer a password anyone can be given."""
    weak = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/staff/",
        {"username": "tablet9", "role": "official", "password": "abc"},
        format="json",
    )
    assert weak.status_code == 400
    assert "too short" in " ".join(weak.json()["password"])
    assert not Staff.objects.filter(user__username="tablet9").exists()


def test_the_staff_page_shows_the_log_and_changes_roles(client, tournament, organiser, official):
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/staff/"
    made = client.post(
        url, {"action": "invite", "role": "official", "email": "", "days": "3"}, follow=True
    )
    invitation = Invitation.objects.get()
    assert made.redirect_chain[-1][0] == (
        f"/t/{tournament.slug}/manage/staff/invitations/{invitation.pk}/"
    )
    printed = made.content.decode()
    assert f"/join/{invitation.key}/" in printed and "<svg" in printed  # link and QR code
    member = Staff.objects.get(user=official)
    page = client.post(
        url, {"action": "role", "staff": member.pk, "role": "organiser"}, follow=True
    ).content.decode()
    assert f"{official.username} is now an organiser." in page
    page = client.post(url, {"action": "revoke", "invitation": invitation.pk}, follow=True)
    page = page.content.decode()
    assert "The invitation was revoked" in page
    log = page[page.index('id="log"') :]
    who = organiser.username
    for said in (
        f"Invitation made (official), by {who}.",
        f"Role changed: {official.username} (official → organiser), by {who}.",
        f"Invitation revoked (official), by {who}.",
    ):
        assert said in log
    # Only one organiser left after demoting the other again? The page refuses at the top.
    client.post(url, {"action": "role", "staff": member.pk, "role": "official"})
    mine = Staff.objects.get(user=organiser)
    refused = client.post(url, {"action": "remove", "staff": mine.pk}, follow=True)
    assert "is the only organiser of" in refused.content.decode()
    assert Staff.objects.filter(pk=mine.pk).exists()


def test_the_staff_page_gives_no_existing_account_a_role_without_its_invitation(
    client, tournament, organiser
):
    """Its "add an existing account" form attached anyone's account by username alone, and said
    when no such account existed. Invitations do that now, with their owner's consent."""
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/staff/"
    page = client.get(url).content.decode()
    assert 'value="add"' not in page and "Username of an existing account" not in page
    assert "Someone with an account already joins the same way" in page
    factories.UserFactory(username="kim")
    client.post(url, {"action": "add", "username": "kim", "role": "official"})
    client.post(url, {"action": "add", "username": "lee", "role": "official"})
    assert not Staff.objects.filter(user__username__in=["kim", "lee"]).exists()


def test_an_official_may_not_open_the_staff_page(client, tournament, official):
    client.force_login(official)
    assert client.get(f"/t/{tournament.slug}/manage/staff/").status_code == 403


def test_an_invitation_link_that_does_not_exist_is_404(client):
    assert client.get("/join/not-a-real-key/").status_code == 404


def test_an_expired_invitation_is_refused_with_its_date(as_organiser, tournament, client):
    made = invite(as_organiser, tournament)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(hours=1))
    page = client.get(join_path(made))
    assert page.status_code == 409
    assert "This invitation expired on" in page.content.decode()
    assert client.post(join_path(made), {"as": "tablet"}).status_code == 409
    assert not Staff.objects.filter(joined_via="tablet").exists()


def test_the_invitation_pages_end_their_sentences_once(as_organiser, tournament, organiser):
    """ "works until Dec. 4, 2026, 9:57 AM." and never "9:57 a.m..": an English time ends with
    no full stop of its own (config/formats/en)."""
    made = invite(as_organiser, tournament)
    web = Client()
    web.force_login(organiser)
    page = " ".join(
        web.get(f"/t/{tournament.slug}/manage/staff/invitations/{made['id']}/")
        .content.decode()
        .split()
    )
    assert re.search(
        r"works until [A-Z][a-z]+\.? \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M\.</p>", page
    ), page
    join = " ".join(Client().get(join_path(made)).content.decode().split())
    assert re.search(r"The link works once, until [^<]*[AP]M\.</p>", join)
    assert ".." not in re.sub(r"<[^>]*>", "", join).replace("...", "")


def test_the_staff_page_shows_who_is_active_as_soon_as_they_are(
    as_organiser, tournament, organiser
):
    """An organiser who opened the console, then the Staff page, is active; an official who
    signed in, then accepted an invitation and opened score entry, is active from that
    request, not "not yet" for the rest of a five-minute window."""
    desk = Client()
    desk.force_login(organiser)
    assert desk.get(f"/t/{tournament.slug}/manage/").status_code == 200
    page = " ".join(desk.get(f"/t/{tournament.slug}/manage/staff/").content.decode().split())
    mine = re.search(rf'{organiser.username}</td>.*?Last active">([^<]*)<', page).group(1)
    assert mine != "not yet" and re.search(r"\d{1,2}:\d\d [AP]M", mine), mine

    made = invite(as_organiser, tournament)
    lee = factories.UserFactory(username="lee", password=PASSWORD)
    tablet = Client()
    tablet.post("/accounts/login/", {"login": "lee", "password": PASSWORD})
    assert tablet.get("/").status_code == 200  # signed in, no role yet
    accepted = tablet.post(join_path(made), follow=True)
    assert accepted.status_code == 200
    assert tablet.get(f"/t/{tournament.slug}/enter/").status_code == 200
    seen = Staff.objects.get(tournament=tournament, user=lee).last_seen_at
    assert seen is not None and timezone.now() - seen < timedelta(minutes=1)
    page = " ".join(desk.get(f"/t/{tournament.slug}/manage/staff/").content.decode().split())
    theirs = re.search(r'lee</td>.*?Last active">([^<]*)<', page).group(1)
    assert theirs != "not yet", theirs
