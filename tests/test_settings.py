"""Settings come from the environment: none means SQLite, inline tasks and a local cache."""

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from config.lan import lan_address

SHOW = """
import json, django
django.setup()
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"],
    "database": str(db["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_prefix": settings.CACHES["default"].get("KEY_PREFIX", ""),
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "debug": settings.DEBUG,
    "hosts": settings.ALLOWED_HOSTS,
    "origins": settings.CSRF_TRUSTED_ORIGINS,
    "secure_cookies": settings.SESSION_COOKIE_SECURE,
    "ssl_redirect": settings.SECURE_SSL_REDIRECT,
    "hsts_subdomains": settings.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "hsts_preload": settings.SECURE_HSTS_PRELOAD,
    "behind_proxy": settings.BEHIND_PROXY,
    "db": [db["ENGINE"], db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]],
    "conn": [db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]],
    "options": db.get("OPTIONS", {}),
}))
"""
# The variables the tests set, kept out of the environment the settings are read in unless a
# test gives them.
VARIABLES = (
    "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DJANGO_DEBUG", "DJANGO_ALLOWED_HOSTS",
    "ROUNDHOUSE_RUN_HOST", "CACHE_KEY_PREFIX", "ROUNDHOUSE_PUBLIC_URL",
    "DJANGO_SECURE_SSL_REDIRECT", "DJANGO_SECURE_COOKIES", "DJANGO_HSTS_INCLUDE_SUBDOMAINS",
    "DJANGO_HSTS_PRELOAD", "DJANGO_BEHIND_PROXY", "DJANGO_CSRF_TRUSTED_ORIGINS",
    "DJANGO_CONN_MAX_AGE",
)  # fmt: skip


def settings_with(**variables: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env.update(variables, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True,
        cwd=settings.BASE_DIR,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_no_environment_means_sqlite_inline_tasks_and_local_cache():
    shown = settings_with()
    assert shown["engine"] == "django.db.backends.sqlite3"
    assert shown["database"].endswith("db.sqlite3")
    assert shown["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert shown["eager"] is True
    assert shown["broker"] == "memory://"
    assert shown["debug"] is True


def test_empty_urls_are_unset_and_mean_sqlite_and_the_local_cache():
    """An env file's `DATABASE_URL=` stopped the settings with KeyError: 'ENGINE'."""
    shown = settings_with(DATABASE_URL="", REDIS_URL="", CELERY_BROKER_URL="")
    assert shown["engine"] == "django.db.backends.sqlite3"
    assert shown["database"].endswith("db.sqlite3")
    assert shown["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert shown["eager"] is True


def test_urls_switch_on_postgresql_redis_and_real_workers():
    shown = settings_with(
        DATABASE_URL="postgres://rh:pw@db.example:5432/roundhouse",
        REDIS_URL="redis://cache.example:6379/1",
        CELERY_BROKER_URL="redis://cache.example:6379/0",
        DJANGO_DEBUG="0",
        DJANGO_ALLOWED_HOSTS="rally.example.org, www.rally.example.org",
    )
    assert shown["engine"] == "django.db.backends.postgresql"
    assert shown["database"] == "roundhouse"
    assert shown["cache"] == "config.redis_breaker.BreakerRedisCache"  # Django's, and a breaker
    assert shown["cache_prefix"] == "roundhouse"
    assert shown["eager"] is False
    assert shown["broker"] == "redis://cache.example:6379/0"
    assert shown["debug"] is False
    assert shown["secure_cookies"] is True
    assert shown["hosts"] == ["rally.example.org", "www.rally.example.org"]


def test_env_example_lists_every_variable_the_settings_and_gunicorn_read():
    root = Path(__file__).resolve().parent.parent
    read = set()
    for source in ("config/settings.py", "config/release.py", "deploy/gunicorn.conf.py"):
        text = (root / source).read_text()
        read |= set(re.findall(r'(?:env\w*|env\.\w+|environ\.get)\(\s*"([A-Z][A-Z0-9_]+)"', text))
    assert {"DJANGO_SECRET_KEY", "GUNICORN_MAX_REQUESTS", "REDIS_URL", "ROUNDHOUSE_RELEASE"} <= read
    assert {"DATABASE_URL", "DJANGO_DEBUG", "DJANGO_ALLOWED_HOSTS", "DJANGO_HSTS_PRELOAD"} <= read
    listed = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (root / "deploy/env.example").read_text(), re.M)
    )
    assert read - listed == set()


def test_make_run_on_every_interface_allows_the_lan_address_in_debug_only():
    lan = lan_address()
    if lan is None:
        pytest.skip("this machine has no LAN address")
    assert lan in settings_with(ROUNDHOUSE_RUN_HOST="0.0.0.0")["hosts"]
    assert f"{socket.gethostname()}.local" in settings_with(ROUNDHOUSE_RUN_HOST="0.0.0.0")["hosts"]
    assert lan not in settings_with(ROUNDHOUSE_RUN_HOST="127.0.0.1")["hosts"]
    assert lan not in settings_with()["hosts"]
    production = settings_with(ROUNDHOUSE_RUN_HOST="0.0.0.0", DJANGO_DEBUG="false")
    assert lan not in production["hosts"]
    chosen = settings_with(ROUNDHOUSE_RUN_HOST="0.0.0.0", DJANGO_ALLOWED_HOSTS="rally.example")
    assert chosen["hosts"] == ["rally.example"]


def test_switches_are_on_for_1_true_yes_on_and_empty_is_unset():
    shown = settings_with(
        DJANGO_DEBUG="",  # an env file's `DJANGO_DEBUG=`: the default, on
        DJANGO_SECURE_SSL_REDIRECT=" Yes ",
        DJANGO_SECURE_COOKIES="",  # the default: not DEBUG
        DJANGO_HSTS_INCLUDE_SUBDOMAINS="on",
        DJANGO_HSTS_PRELOAD="2",  # not a word for on
        DJANGO_BEHIND_PROXY="ok",
    )
    assert shown["debug"] is True
    assert shown["ssl_redirect"] is True
    assert shown["secure_cookies"] is False
    assert shown["hsts_subdomains"] is True
    assert shown["hsts_preload"] is False
    assert shown["behind_proxy"] is False
    assert settings_with(DJANGO_DEBUG="TRUE", DJANGO_BEHIND_PROXY="0")["behind_proxy"] is False
    assert settings_with(DJANGO_DEBUG="false")["debug"] is False


def test_lists_are_stripped_and_default_to_the_public_address():
    shown = settings_with(
        ROUNDHOUSE_PUBLIC_URL="https://rally.example.org",
        DJANGO_CSRF_TRUSTED_ORIGINS=" https://a.example ,, https://b.example ,",
    )
    assert shown["hosts"] == ["rally.example.org"]
    assert shown["origins"] == ["https://a.example", "https://b.example"]
    shown = settings_with(DJANGO_ALLOWED_HOSTS="", DJANGO_CSRF_TRUSTED_ORIGINS="")
    assert (shown["hosts"], shown["origins"]) == ([], [])
    shown = settings_with()
    assert shown["hosts"] == ["127.0.0.1", "localhost", "testserver"]
    assert shown["origins"] == []


def test_database_url_gives_its_parts_and_connections_live_a_minute():
    shown = settings_with(DATABASE_URL="postgres://rh:p%40ss%3Aw@db.example:6432/rally")
    assert shown["db"] == [
        "django.db.backends.postgresql", "rally", "rh", "p@ss:w", "db.example", 6432,
    ]  # fmt: skip
    assert shown["conn"] == [60, True]
    shown = settings_with(DATABASE_URL="postgresql://rh@db.example/rally", DJANGO_CONN_MAX_AGE="0")
    assert shown["db"][1:] == ["rally", "rh", "", "db.example", ""]
    assert shown["conn"] == [0, True]


def test_database_url_options_are_kept_beside_the_timeouts():
    shown = settings_with(DATABASE_URL="postgres://rh@db.example/rally?sslmode=require")
    assert shown["options"]["sslmode"] == "require"  # a managed database refusing plain TCP
    assert shown["options"]["connect_timeout"] == 5
    assert "-c statement_timeout=20000" in shown["options"]["options"]


def test_two_sites_on_one_redis_database_keep_their_cache_keys_apart():
    shown = settings_with(REDIS_URL="redis://cache.example:6379/1", CACHE_KEY_PREFIX="staging")
    assert shown["cache_prefix"] == "staging"
