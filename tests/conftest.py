"""Shared fixtures: API clients per role, and the gate for tests that need PostgreSQL or Redis."""

import contextlib
import os
import socket
from urllib.parse import urlparse

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tests import factories

REQUIRE_SERVICES = os.environ.get("ROUNDHOUSE_REQUIRE_SERVICES") == "1"


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
def cache_of_this_run() -> None:
    """Cached standings and pages are keyed by database ids, which a new test database hands
    out again: nothing cached by an earlier run may be served to this one."""
    from django.core.cache import cache

    with contextlib.suppress(Exception):  # Redis down: the tests that need it say so themselves
        cache.clear()


@pytest.fixture(autouse=True)
def cache_of_this_test() -> None:
    """SQLite hands the same ids out again after each test: start each with empty in-process
    caches. (PostgreSQL's sequences keep counting, so the Redis cache needs no clearing.)"""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    for alias_cache in caches.all(initialized_only=True):
        if isinstance(alias_cache, LocMemCache):
            alias_cache.clear()


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


@pytest.fixture(autouse=True)
def fast_password_hasher(settings) -> None:
    """Tests create many users: a fast hasher keeps the suite quick (production keeps PBKDF2)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
