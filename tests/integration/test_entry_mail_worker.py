"""An entry's receipt goes out through a real Celery worker process to a real SMTP server."""

import socket
import time
import uuid

import pytest
from aiosmtpd.controller import Controller

from config.celery import app as celery_app
from entries.models import Delivery
from tests.conftest import Mailbox
from tests.entries.helpers import enter, open_tournament
from tests.integration.conftest import LiveWorker, celery_app_on


@pytest.fixture
def smtp_for_the_worker():
    mailbox = Mailbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield mailbox, port
    controller.stop()


def test_an_entrys_receipt_goes_through_the_worker_to_the_mail_server(
    transactional_db, require_postgres, require_redis, tmp_path, smtp_for_the_worker
):
    mailbox, port = smtp_for_the_worker
    queue = f"roundhouse-test-{uuid.uuid4().hex[:12]}"
    worker = LiveWorker(
        broker_url=require_redis,
        queue=queue,
        log=tmp_path / "worker",
        env={"EMAIL_URL": f"smtp://127.0.0.1:{port}"},
    )
    with celery_app_on(require_redis, queue):
        assert not celery_app.conf.task_always_eager
        worker.start()
        try:
            entry = enter(open_tournament(), "Ann A")  # committed: sent to the broker after it
            deadline = time.monotonic() + 30
            while not mailbox.messages and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            worker.stop()
    assert [m["To"] for m in mailbox.messages] == ["ann@example.org"], worker.logs()
    assert "you are entered in" in mailbox.bodies()[0]
    delivery = Delivery.objects.get(entry=entry)
    assert (delivery.status, delivery.attempts) == ("sent", 1)
