"""A mail server that is down: the mail waits (pending, each try counted) and goes once the
server is back, by the sweep; two senders at once send it once; and the one-click unsubscribe
(RFC 8058) that a mail client POSTs from the mail's own header stops the tournament's mail."""

import asyncio
import re
import socket
import threading
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from django.db import connection

from entries.models import Delivery, Message
from entries.services import mail, messages
from entries.tasks import send_pending
from tests.conftest import Mailbox
from tests.entries.helpers import enter, open_tournament


class SlowMailbox(Mailbox):
    """A real SMTP server's mailbox that takes its time over each mail (a second sender meets
    the first one mid-send)."""

    async def handle_DATA(self, server, session, envelope) -> str:
        await asyncio.sleep(0.5)
        return await super().handle_DATA(server, session, envelope)


class MailServer:
    """A real aiosmtpd server on a fixed port that a test stops and starts again."""

    def __init__(self, settings, mailbox: Mailbox) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.mailbox, self.controller = mailbox, None
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", self.port
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_TIMEOUT = 2

    def start(self) -> None:
        self.controller = Controller(self.mailbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture
def mail_server(settings):
    server = MailServer(settings, Mailbox())
    yield server
    server.stop()


@pytest.mark.django_db
def test_mail_waits_while_the_server_is_down_then_the_sweep_sends_it_once(
    mail_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament()
    with django_capture_on_commit_callbacks(execute=True):  # the server is not started: down
        entry = enter(tournament, "Ann A", messages_ok=True)
    delivery = Delivery.objects.get(entry=entry)
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert delivery.last_error  # the refused connection, said
    assert send_pending(older_than_seconds=0) == 1  # still down: one more try, still waiting
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("pending", 2)

    mail_server.start()
    assert send_pending(older_than_seconds=0) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("sent", 3, "")
    assert send_pending(older_than_seconds=0) == 0  # nothing left: it is not sent again
    assert [m["To"] for m in mail_server.mailbox.messages] == ["ann@example.org"]
    # The sweep leaves young mail to its own task (a retry under way).
    with django_capture_on_commit_callbacks(execute=True):
        mail_server.stop()
        enter(tournament, "Bob B")
    assert send_pending() == 0


@pytest.mark.django_db(transaction=True)
def test_the_sweep_and_a_retry_at_once_send_a_mail_once(require_postgres, settings):
    server = MailServer(settings, SlowMailbox())
    entry = enter(open_tournament(), "Ann A")  # committed: sent now while the server is down
    delivery = Delivery.objects.get(entry=entry)
    assert delivery.status == "pending"
    server.start()
    try:
        start = threading.Barrier(2)
        outcomes = []

        def sender() -> None:
            try:
                start.wait()
                outcomes.append(mail.deliver(delivery.pk, tries_left=True))
            finally:
                connection.close()

        threads = [threading.Thread(target=sender) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
    finally:
        server.stop()
    assert sorted(outcomes) == ["done", "sent"]
    assert len(server.mailbox.messages) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("sent", 2)


@pytest.mark.django_db
def test_a_one_click_post_from_the_mails_own_header_stops_the_mail(
    client, smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament()
    with django_capture_on_commit_callbacks(execute=True):
        entry = enter(tournament, "Ann A", messages_ok=True)
        enter(tournament, "Bob B", messages_ok=True)
    receipt = next(m for m in smtp_server.messages if m["To"] == "ann@example.org")
    assert receipt["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    header = "".join(str(receipt["List-Unsubscribe"]).split())  # unfolded
    link = urlsplit(re.fullmatch(r"<(.+)>", header)[1])
    # What a mail client sends (RFC 8058): a POST of this one field, no cookie, no CSRF token.
    response = client.post(
        link.path,
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200, (link, response.content[:300])
    entry.refresh_from_db()
    assert entry.messages_ok is False
    smtp_server.messages.clear()
    with django_capture_on_commit_callbacks(execute=True):
        messages.send_message(
            tournament=tournament, to="entrants", subject="News", body="Hello", by=None
        )
    assert [m["To"] for m in smtp_server.messages] == ["bob@example.org"]
    assert Message.objects.get(kind="organiser").deliveries.count() == 1
