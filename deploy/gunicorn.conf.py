"""gunicorn settings for `gunicorn config.wsgi -c deploy/gunicorn.conf.py`, from the environment.

Command-line flags win over this file (deploy/stack.sh binds to 127.0.0.1 with `--bind`).
"""

import gc
import os


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def usable_cores() -> int:
    # The CPUs this process may run on (a cpuset or taskset), not every CPU of the host.
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# Every worker holds its own database connections and 80-100 MB: past 8, add machines instead.
MAX_DEFAULT_WORKERS = 8

bind = f"0.0.0.0:{env_int('PORT', 8000)}"
workers = env_int("WEB_CONCURRENCY", min(2 * usable_cores() + 1, MAX_DEFAULT_WORKERS))
# Threads let a worker wait on a slow tablet on venue Wi-Fi without blocking the others.
worker_class = "gthread"
threads = env_int("GUNICORN_THREADS", 4)

# A request is small (a round result, a CSV of players); one running 30 s is stuck.
timeout = env_int("GUNICORN_TIMEOUT", 30)
graceful_timeout = env_int("GUNICORN_GRACEFUL_TIMEOUT", 30)
# Above the reverse proxy's idle timeout (deploy/nginx.conf: 4 s), so the proxy closes idle
# connections first.
keepalive = env_int("GUNICORN_KEEPALIVE", 5)

# Load Django once in the master: workers fork ready, and a broken import stops the start.
preload_app = True
# Recycle workers now and then against slow leaks; the jitter keeps them from restarting together.
# Not too often: a new worker starts with cold caches and connections (at 1,000, a hall's load
# recycled a worker every few seconds: docs/PERFORMANCE.md's git history).
max_requests = env_int("GUNICORN_MAX_REQUESTS", 20_000)
max_requests_jitter = env_int("GUNICORN_MAX_REQUESTS_JITTER", 2_000)

accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'

# The heartbeat file on tmpfs: a container's overlay filesystem can stall it into timeouts.
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"


def when_ready(server) -> None:
    # What each worker would otherwise load on its first request, loaded once here in the master
    # before the first fork: the URLconf (every view, serializer and the API schema's machinery)
    # with its reverse lookups, and both languages' catalogues. The workers then share these pages
    # with the master instead of each building a copy: about 12 MB less private memory a worker
    # (docs/PERFORMANCE.md, Web worker memory). Templates are left to the workers: loading them
    # here saved nothing measurable.
    from django.conf import settings
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().reverse_dict  # noqa: B018 (the property builds the lookups)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Standings")


def pre_fork(server, worker) -> None:
    # Freeze the preloaded app's objects right before each fork (as the gc module's documentation
    # advises): a worker's full collections then neither walk them nor write to their shared
    # memory pages.
    gc.freeze()
