"""Tasks sent on commit run in a real worker; a dead or frozen broker never hangs a request."""

import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from django.conf import settings
from django.db import transaction

from tournaments.models import WorkerHeartbeat
from tournaments.tasks import record_heartbeat


def wait_for(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_task_sent_on_commit_runs_in_a_real_worker(live_worker):
    class Rollback(Exception):
        pass

    with pytest.raises(Rollback), transaction.atomic():
        record_heartbeat.delay_on_commit()
        raise Rollback  # rolled back: the task is never sent

    with transaction.atomic():
        record_heartbeat.delay_on_commit()
        time.sleep(0.5)
        assert not WorkerHeartbeat.objects.exists()  # not sent before the commit

    assert wait_for(lambda: WorkerHeartbeat.objects.exists()), live_worker.log
    heartbeat = WorkerHeartbeat.objects.get()
    assert heartbeat.hostname.startswith(live_worker.queue)
    assert heartbeat.tasks_seen == 1  # the rolled-back one never reached the worker


def test_without_a_broker_tasks_run_inline(db, django_capture_on_commit_callbacks):
    assert settings.CELERY_TASK_ALWAYS_EAGER  # no CELERY_BROKER_URL in the test settings
    with django_capture_on_commit_callbacks(execute=True):
        record_heartbeat.delay_on_commit()
    assert WorkerHeartbeat.objects.get().tasks_seen == 1


SEND = """
import time, django
django.setup()
from tournaments.tasks import record_heartbeat
started = time.monotonic()
try:
    record_heartbeat.delay()
    print("sent")
except Exception as error:
    print(type(error).__name__)
print(time.monotonic() - started)
"""


def send_with_broker(url: str) -> tuple[str, float]:
    env = {**os.environ, "CELERY_BROKER_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", SEND], env=env, capture_output=True, text=True, timeout=60,
        cwd=settings.BASE_DIR,
    )  # fmt: skip
    outcome, seconds = done.stdout.split()[-2:]
    return outcome, float(seconds)


@pytest.fixture
def frozen_redis():
    """A server that accepts connections and never answers, like a Redis stuck in a fork."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    server.close()
    for connection in held:
        connection.close()


def test_frozen_broker_fails_a_send_within_3_seconds(frozen_redis):
    outcome, seconds = send_with_broker(frozen_redis)
    assert outcome == "OperationalError"
    assert seconds < 3


def test_dead_broker_fails_a_send_within_3_seconds():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcome, seconds = send_with_broker(f"redis://127.0.0.1:{port}/0")
    assert outcome == "OperationalError"
    assert seconds < 3
