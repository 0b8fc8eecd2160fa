"""Mail through a real SMTP server (aiosmtpd): a password reset and an invitation, each link
working once and expiring."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests import factories
from tournaments.models import Invitation, Staff

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"
NEW_PASSWORD = "quite-another-password-7"


def link_in(body: str, path: str) -> str:
    found = re.search(rf"http://testserver({re.escape(path)}\S+)", body)
    assert found, body
    return found[1]


def request_reset(client, smtp_server, email: str) -> str:
    response = client.post("/accounts/password/reset/", {"email": email})
    assert response.status_code == 302
    assert len(smtp_server.messages) == 1
    message = smtp_server.messages[0]
    assert message["To"] == email
    return link_in(smtp_server.bodies()[0], "/accounts/password/reset/key/")


def test_forgot_password_mails_a_link_that_resets_once(client, smtp_server):
    factories.UserFactory(username="ann", email="ann@example.org", password=PASSWORD)
    login_page = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password/reset/"' in login_page  # "Forgot password?" is there
    link = request_reset(client, smtp_server, "ann@example.org")

    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0] if form_page.redirect_chain else link
    done = client.post(set_url, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert done.status_code == 302
    client.logout()
    signed_in = client.post("/accounts/login/", {"login": "ann", "password": NEW_PASSWORD})
    assert signed_in.status_code == 302 and client.session.get("_auth_user_id")
    client.logout()

    again = client.get(link, follow=True).content.decode()
    assert (
        "The password reset link was invalid, possibly because it has already been used." in again
    )
    assert "password1" not in again  # no form to set a password with a used link


def test_a_reset_link_expires(client, smtp_server, settings):
    user = factories.UserFactory(username="bo", email="bo@example.org", password=PASSWORD)
    link = request_reset(client, smtp_server, "bo@example.org")
    settings.PASSWORD_RESET_TIMEOUT = -1  # the link's time is up
    page = client.get(link, follow=True).content.decode()
    assert "The password reset link was invalid" in page and "password1" not in page
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_a_reset_for_an_unknown_address_sends_no_link(client, smtp_server):
    """The page answers alike (nobody learns who has an account); no reset link is sent."""
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response.status_code == 302
    assert all("/password/reset/key/" not in body for body in smtp_server.bodies())


def test_an_invitation_by_mail_works_once_and_expires(client, smtp_server):
    tournament = factories.TournamentFactory(name="Lakeside")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    client.force_login(organiser)
    response = client.post(
        f"/t/{tournament.slug}/manage/staff/",
        {"action": "invite", "role": "official", "email": "cy@example.org", "days": "7"},
        follow=True,
    )
    assert "The invitation was mailed to cy@example.org." in response.content.decode()
    (message,) = smtp_server.messages
    assert message["To"] == "cy@example.org"
    assert "official of Lakeside" in message["Subject"]
    link = link_in(smtp_server.bodies()[0], "/join/")
    client.logout()

    # Cy has an account: signs in from the invitation's page and accepts.
    cy = factories.UserFactory(username="cy", password=PASSWORD)
    client.force_login(cy)
    assert client.post(link).status_code == 302
    assert Staff.objects.get(tournament=tournament, user=cy).role == "official"

    # The link works once: for anyone else it is refused, saying who used it.
    client.force_login(factories.UserFactory(username="dee"))
    reused = client.post(link)
    assert reused.status_code == 409
    assert "accepted by cy" in reused.content.decode()
    assert not Staff.objects.filter(tournament=tournament, user__username="dee").exists()

    # A second invitation, mailed, expires unused.
    client.force_login(organiser)
    client.post(
        f"/t/{tournament.slug}/manage/staff/",
        {"action": "invite", "role": "official", "email": "eve@example.org", "days": "1"},
    )
    second = link_in(smtp_server.bodies()[1], "/join/")
    Invitation.objects.filter(email="eve@example.org").update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    client.force_login(factories.UserFactory(username="eve"))
    expired = client.post(second)
    assert expired.status_code == 409
    assert "This invitation expired on" in expired.content.decode()
    assert not Staff.objects.filter(tournament=tournament, user__username="eve").exists()


def test_an_invitation_whose_mail_fails_still_stands_and_says_so(client, settings, tournament):
    """SMTP down: the invitation is made, and the organiser is told to hand the link over."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 2
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    client.force_login(organiser)
    page = client.post(
        f"/t/{tournament.slug}/manage/staff/",
        {"action": "invite", "role": "official", "email": "fay@example.org", "days": "7"},
        follow=True,
    ).content.decode()
    assert "could not be sent" in page and "give them the link or the QR code" in page
    invitation = Invitation.objects.get(email="fay@example.org")
    assert invitation.status == Invitation.Status.PENDING
    assert f"/join/{invitation.key}/" in page  # the link is on the page to hand over
