"""Shared fixtures: API clients per role, and the gate for tests that need PostgreSQL or Redis."""

import contextlib
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.db import IntegrityError, OperationalError, connection
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from tests import factories

REQUIRE_SERVICES = os.environ.get("ROUNDHOUSE_REQUIRE_SERVICES") == "1"

# Property tests check rules, not speed (speed is bench/'s): no per-example deadline, which a
# machine busy with other work (two cores shared with a browser test, say) exceeds by chance.
hypothesis_settings.register_profile("roundhouse", deadline=None)
hypothesis_settings.load_profile("roundhouse")

# The slow directories, by what they start: `make test-fast` leaves them out (-m "not browser and
# not stack"), `make test` runs them.
MARKS_BY_DIRECTORY = {"browser": pytest.mark.browser, "integration": pytest.mark.stack}
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(item.path).resolve()
        if TESTS in path.parents and path.parent != TESTS:
            mark = MARKS_BY_DIRECTORY.get(path.relative_to(TESTS).parts[0])
            if mark is not None:
                item.add_marker(mark)


def pytest_configure(config: pytest.Config) -> None:
    """The tests' own WhiteNoise looks in a folder nothing writes. The checkout's static/ is where
    each stack a test starts runs collectstatic, which deletes and rewrites files there: a
    WhiteNoise starting in this process while one does listed a file and then found it gone."""
    from django.conf import settings

    settings.STATIC_ROOT = Path(config.rootpath) / ".pytest_cache" / "no-static"


def services_missing(reason: str) -> None:
    """Skip with a visible reason, or fail when CI says the services must be there."""
    if REQUIRE_SERVICES:
        pytest.fail(f"ROUNDHOUSE_REQUIRE_SERVICES=1 but {reason}")
    pytest.skip(reason)


def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        services_missing("REDIS_URL is not set (a real Redis is needed)")
    parsed = urlparse(url)
    try:
        socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=2).close()
    except OSError as error:
        services_missing(f"Redis at {url} does not answer: {error}")
    return url


@pytest.fixture(scope="session", autouse=True)
def flush_by_delete() -> Iterator[None]:
    """After each transactional test (the browser, demo and race tests: a third of the suite)
    Django empties every table with one TRUNCATE of all 44: on PostgreSQL that makes new files
    for each, 1 to 2.5 s a test on this 2-core machine. A DELETE of each table's few rows leaves
    them as empty in 0.03 s. The foreign keys are deferred to the flush's commit, by which every
    table is empty, so the order does not matter. The sequences go on counting either way; a
    test that asks for them to start again (reset_sequences) still gets Django's TRUNCATE.

    The DELETE keeps the content types and permissions, the rows migrate made: the flush's
    post_migrate, which makes them again after a TRUNCATE, took 0.16 s a test (three quarters of
    a transactional test's teardown), and is left out when they were kept."""
    from django.core.management.commands import flush
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush
    post_migrate = flush.emit_post_migrate_signal
    kept = {"django_content_type", "auth_permission"}
    flushed = {"by_delete": False}

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        flushed["by_delete"] = bool(tables) and not reset_sequences
        if not flushed["by_delete"]:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};"
            for table in tables
            if table not in kept
        ]

    def emit_post_migrate_signal(*args, **kwargs):
        if not flushed["by_delete"]:
            post_migrate(*args, **kwargs)
        flushed["by_delete"] = False

    # A DELETE, unlike TRUNCATE, takes no lock that waits for other transactions: a write still
    # in flight when the test ended (a live server's request, a rebuild run on its commit) can
    # commit rows between two DELETEs that refer to a row the flush then deletes, and the
    # flush's commit fails on that foreign key (CI saw scoring_standingrow -> tournaments_stage).
    # The whole flush is then made again, which deletes the late rows too.
    execute = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        for attempt in range(3):
            try:
                return execute(self, sql_list)
            except (IntegrityError, OperationalError):  # the foreign key, or a deadlock
                if attempt == 2:
                    raise
                time.sleep(0.2)

    DatabaseOperations.sql_flush = sql_flush
    DatabaseOperations.execute_sql_flush = execute_sql_flush
    flush.emit_post_migrate_signal = emit_post_migrate_signal
    yield
    DatabaseOperations.sql_flush = truncate
    DatabaseOperations.execute_sql_flush = execute
    flush.emit_post_migrate_signal = post_migrate


@pytest.fixture(scope="session", autouse=True)
def cache_keys_of_this_worker() -> Iterator[None]:
    """Each pytest-xdist worker (`make test`) has a test database of its own, whose ids are the
    other's too: cached standings and pages are keyed by them, so each worker's keys begin with
    its own prefix, in this process and in the Celery workers its tests start (which read
    CACHE_KEY_PREFIX, as config/settings.py does)."""
    from django.conf import settings
    from django.test import override_settings

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        yield
        return
    prefix = f"roundhouse-{worker}"
    os.environ["CACHE_KEY_PREFIX"] = prefix
    default = {**settings.CACHES["default"], "KEY_PREFIX": prefix}
    with override_settings(CACHES={**settings.CACHES, "default": default}):
        yield


@pytest.fixture(scope="session", autouse=True)
def cache_of_this_run(cache_keys_of_this_worker) -> None:
    """Cached standings and pages are keyed by database ids, which a new test database hands
    out again: nothing cached by an earlier run may be served to this one."""
    with contextlib.suppress(Exception):  # Redis down: the tests that need it say so themselves
        clear_cache()


def clear_cache() -> None:
    """Empty the default cache of this run's keys. The pytest-xdist workers of `make test` share
    one Redis, each with keys of its own (config/settings.py's KEY_PREFIX): cache.clear() would
    empty the whole database (FLUSHDB), the other worker's keys too, in the middle of its tests."""
    from django.core.cache import cache

    client = getattr(getattr(cache, "_cache", None), "get_client", None)
    if client is None:  # an in-process cache: this process's own
        cache.clear()
        return
    redis = client(None, write=True)
    for key in redis.scan_iter(match=f"{cache.key_prefix}:*", count=1000):
        redis.delete(key)


@pytest.fixture(autouse=True)
def language_of_this_test():
    """Each test starts in the site's default language: a request in Spanish leaves Spanish
    active in its thread (LocaleMiddleware does not put it back), which a later test calling a
    service directly would read, depending on which tests ran before it on that worker."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def cache_of_this_test() -> None:
    """SQLite hands the same ids out again after each test: start each with empty in-process
    caches. (PostgreSQL's sequences keep counting, so the Redis cache needs no clearing.)"""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    for alias_cache in caches.all(initialized_only=True):
        if isinstance(alias_cache, LocMemCache):
            alias_cache.clear()


@pytest.fixture(autouse=True)
def a_minute_of_sign_ins_of_its_own() -> None:
    """allauth lets 30 sign-ins a minute come from one address (its "login" rate limit, kept in
    the cache, for the sign-in page and the API's token endpoint together): the tests sign in
    from 127.0.0.1, the browser tests a new official each, far more often than that, and the
    suite's later tests got 429s. Each test starts with allauth's counters empty, as if a
    minute had passed. (With Redis, its keys; in-process caches are emptied for every test
    already: cache_of_this_test.)"""
    from django.core.cache import cache

    client = getattr(getattr(cache, "_cache", None), "get_client", None)
    if client is None:
        return
    # The entries' doors count per address as well (config/throttles.py).
    patterns = [cache.make_key("allauth:rl:*"), cache.make_key("throttle:*")]
    try:
        redis = client(None, write=True)
        for pattern in patterns:
            for key in redis.scan_iter(match=pattern, count=1000):
                redis.delete(key)
    except Exception as error:  # Redis down: the tests that need it say so themselves
        if os.environ.get("ROUNDHOUSE_REQUIRE_SERVICES") == "1":
            raise AssertionError(f"could not clear allauth's rate limits: {error}") from error


@pytest.fixture
def require_postgres() -> None:
    if connection.vendor != "postgresql":
        services_missing("DATABASE_URL does not point at PostgreSQL (a real PostgreSQL is needed)")


@pytest.fixture
def require_redis() -> str:
    return redis_url()


@pytest.fixture
def take_cache_down(settings):
    """Call it to point the default cache at a port where nothing listens: Redis is down from
    then on (the set-up before the call still had it)."""

    def take_down() -> None:
        settings.CACHES = {
            **settings.CACHES,
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
                "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
            },
        }

    return take_down


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user=user)
    return client


@pytest.fixture
def tournament(db):
    return factories.TournamentFactory()


@pytest.fixture
def organiser(tournament):
    return factories.StaffFactory(tournament=tournament, role="organiser").user


@pytest.fixture
def official(tournament):
    return factories.StaffFactory(tournament=tournament, role="official").user


@pytest.fixture
def other_organiser(db):
    """An organiser of another tournament: no rights in `tournament`."""
    return factories.StaffFactory(role="organiser").user


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def as_organiser(organiser) -> APIClient:
    return client_for(organiser)


@pytest.fixture
def as_official(official) -> APIClient:
    return client_for(official)


@pytest.fixture
def as_other_organiser(other_organiser) -> APIClient:
    return client_for(other_organiser)


# The suite's password hasher, for fast_password_hasher and what builds logins outside a test.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fast_password_hasher(settings) -> None:
    """Tests create many users: a fast hasher keeps the suite quick (production keeps PBKDF2)."""
    settings.PASSWORD_HASHERS = FAST_HASHERS


class Mailbox:
    """What a real SMTP server (aiosmtpd, on a free local port) received, in order."""

    def __init__(self) -> None:
        self.messages: list = []

    async def handle_DATA(self, server, session, envelope) -> str:
        from email import message_from_bytes, policy

        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 Message accepted for delivery"

    def bodies(self) -> list[str]:
        return [message.get_body(("plain",)).get_content() for message in self.messages]


@pytest.fixture
def smtp_server(settings) -> Mailbox:
    """A real SMTP server for the test, with the site's mail pointed at it (as EMAIL_URL
    smtp://127.0.0.1:<port> would)."""
    from aiosmtpd.controller import Controller

    mailbox = Mailbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    yield mailbox
    controller.stop()
