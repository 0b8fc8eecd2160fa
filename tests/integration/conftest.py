"""A real `celery -A config worker` process on real Redis, reading the test PostgreSQL database."""

import contextlib
import os
import shutil
import signal
import socket
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
from kombu import pools as kombu_pools

from config.celery import app as celery_app
from tests.conftest import redis_url, services_missing

CELERY = str(Path(sys.executable).with_name("celery"))
REDIS_SERVER = "redis-server"


def worker_database_url() -> str:
    """The URL of the database this test runs on (pytest-django's test database)."""
    db = connection.settings_dict
    user = quote(db.get("USER") or "")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{db['NAME']}"


class LiveWorker:
    def __init__(
        self,
        *,
        broker_url: str,
        queue: str,
        log: Path,
        env: dict[str, str] | None = None,
        beat: bool = False,
    ) -> None:
        self.broker_url, self.queue, self.log = broker_url, queue, log
        self.extra_env, self.beat = env or {}, beat
        self.processes: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": worker_database_url(),
            "CELERY_BROKER_URL": self.broker_url,
            "CELERY_TASK_DEFAULT_QUEUE": self.queue,
            "DJANGO_CONN_MAX_AGE": "0",
            **self.extra_env,
        }

    def start(self, index: int = 0) -> subprocess.Popen:
        log = self.log.with_suffix(f".{index}.log")
        command = [
            CELERY,
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "-Q",
            self.queue,
            "-n",
            f"{self.queue}-{index}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
        if self.beat:
            command += ["-B", "-s", str(self.log.with_suffix(".beat-schedule"))]
        with log.open("ab") as out:
            # A process group of its own: with -B the worker forks its beat, which outlives a
            # worker killed with SIGKILL unless the whole group is stopped.
            process = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=self.env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 30
        while b" ready." not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the Celery worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        self.processes.append(process)
        return process

    def logs(self) -> str:
        return "\n".join(
            p.read_text()[-4000:] for p in self.log.parent.glob(f"{self.log.name}.*.log")
        )

    def stop(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):  # the group is gone already
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            # Whatever is left of the group, such as the beat of a worker killed by a test.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


class RedisServer:
    """A Redis of the test's own, on a free port, that the test may stop and start again."""

    def __init__(self, directory: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.directory = directory
        self.process: subprocess.Popen | None = None

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        pytest.fail("the test's Redis did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def redis_of_our_own(directory: Path) -> Iterator[RedisServer]:
    redis_url()  # the shared Redis is there too, or the services are missing
    if not shutil.which(REDIS_SERVER):
        services_missing("redis-server is not installed (a real Redis is needed)")
    server = RedisServer(directory)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def private_redis(tmp_path) -> Iterator[RedisServer]:
    yield from redis_of_our_own(tmp_path)


@pytest.fixture(scope="module")
def module_redis(tmp_path_factory) -> Iterator[RedisServer]:
    """A Redis of the module's own, for a stack its tests share."""
    yield from redis_of_our_own(tmp_path_factory.mktemp("redis"))


@contextlib.contextmanager
def celery_app_on(broker_url: str, queue: str) -> Iterator[None]:
    """Point this process's Celery app at a broker and queue, and back afterwards."""
    saved = {
        key: celery_app.conf[key]
        for key in ("broker_url", "task_always_eager", "task_default_queue")
    }
    celery_app.conf.update(broker_url=broker_url, task_always_eager=False, task_default_queue=queue)
    reset_connections()
    try:
        yield
    finally:
        celery_app.conf.update(saved)
        reset_connections()


@pytest.fixture
def standings_stack(transactional_db, require_postgres, private_redis, settings, tmp_path):
    """A worker with beat, and this process, on the test's own Redis: broker db 0, cache db 1."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": private_redis.url(1),
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    queue = f"roundhouse-test-{uuid.uuid4().hex[:12]}"
    worker = LiveWorker(
        broker_url=private_redis.url(0),
        queue=queue,
        log=tmp_path / "worker",
        beat=True,
        env={
            "REDIS_URL": private_redis.url(1),
            "CELERY_VISIBILITY_TIMEOUT": "3",
            "STANDINGS_SWEEP_SECONDS": "3",
        },
    )
    with celery_app_on(private_redis.url(0), queue):
        worker.start()
        try:
            yield worker, private_redis
        finally:
            worker.stop()


def reset_connections() -> None:
    """Drop what the app cached for its broker: the connection pool and the whole AMQP helper
    (its producer pool, and the queues and router built for the default queue of the time), so
    the next send uses the broker and queue set now."""
    if celery_app._pool is not None:
        celery_app._pool.force_close_all()
    celery_app._pool = None
    celery_app.__dict__.pop("amqp", None)  # a cached property: rebuilt on next use
    kombu_pools.reset()  # kombu's own producer pools, keyed by broker URL, hold closed pools


@pytest.fixture
def live_worker(
    transactional_db, require_postgres, require_redis, tmp_path
) -> Iterator[LiveWorker]:
    """Start a worker on a queue of its own, and point this process's Celery app at the broker."""
    queue = f"roundhouse-test-{uuid.uuid4().hex[:12]}"
    worker = LiveWorker(broker_url=require_redis, queue=queue, log=tmp_path / "worker")
    with celery_app_on(require_redis, queue):
        worker.start()
        try:
            yield worker
        finally:
            worker.stop()
