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
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "database": str(settings.DATABASES["default"]["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "debug": settings.DEBUG,
    "hosts": settings.ALLOWED_HOSTS,
    "secure_cookies": settings.SESSION_COOKIE_SECURE,
}))
"""
VARIABLES = (
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "DJANGO_DEBUG",
    "DJANGO_ALLOWED_HOSTS",
    "ROUNDHOUSE_RUN_HOST",
)


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
        read |= set(re.findall(r'(?:env\w*|environ\.get)\(\s*"([A-Z][A-Z0-9_]+)"', text))
    assert {"DJANGO_SECRET_KEY", "GUNICORN_MAX_REQUESTS", "REDIS_URL", "ROUNDHOUSE_RELEASE"} <= read
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
