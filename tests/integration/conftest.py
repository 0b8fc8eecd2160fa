"""A real `celery -A config worker` process on real Redis, reading the test PostgreSQL database."""

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app

CELERY = str(Path(sys.executable).with_name("celery"))


def test_database_url() -> str:
    """The URL of the database this test runs on (pytest-django's test database)."""
    db = connection.settings_dict
    user = quote(db.get("USER") or "")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{db['NAME']}"


class LiveWorker:
    def __init__(self, *, broker_url: str, queue: str, log: Path, count: int = 1) -> None:
        self.broker_url, self.queue, self.log, self.count = broker_url, queue, log, count
        self.processes: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "CELERY_BROKER_URL": self.broker_url,
            "CELERY_TASK_DEFAULT_QUEUE": self.queue,
            "DJANGO_CONN_MAX_AGE": "0",
        }

    def start(self, index: int = 0) -> subprocess.Popen:
        log = self.log.with_suffix(f".{index}.log")
        command = [
            CELERY, "-A", "config", "worker", "--pool=solo", "--loglevel=INFO",
            "-Q", self.queue, "-n", f"{self.queue}-{index}@%h",
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        with log.open("ab") as out:
            process = subprocess.Popen(
                command, cwd=settings.BASE_DIR, env=self.env(), stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 30
        while b" ready." not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the Celery worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def reset_connections() -> None:
    """Drop the app's cached connection and producer pools, so the next send uses the new broker."""
    if celery_app._pool is not None:
        celery_app._pool.force_close_all()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def live_worker(
    transactional_db, require_postgres, require_redis, tmp_path
) -> Iterator[LiveWorker]:
    """Start a worker on a queue of its own, and point this process's Celery app at the broker."""
    queue = f"roundhouse-test-{uuid.uuid4().hex[:12]}"
    worker = LiveWorker(broker_url=require_redis, queue=queue, log=tmp_path / "worker")
    saved = {
        key: celery_app.conf[key]
        for key in ("broker_url", "task_always_eager", "task_default_queue")
    }
    celery_app.conf.update(
        broker_url=require_redis, task_always_eager=False, task_default_queue=queue
    )
    reset_connections()
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()
        celery_app.conf.update(saved)
        reset_connections()
