#!/usr/bin/env bash
# The image's entrypoint: refuse a bad configuration (`check --deploy`), migrate (web) or wait
# for the migrations (worker, beat), then become the role's process so it receives the signals.
#
#   entrypoint.sh web                   gunicorn config.wsgi -c deploy/gunicorn.conf.py
#   entrypoint.sh staff                 the same, for the staff's pool: waits for web's migrations
#   entrypoint.sh worker [celery args]  celery -A config worker --loglevel=INFO
#   entrypoint.sh beat [celery args]    celery -A config beat --loglevel=INFO (exactly one)
#   entrypoint.sh manage CMD [args]     a one-off manage.py command (createsuperuser, ...)
#   entrypoint.sh healthcheck [ready|live|worker]   the compose healthchecks
#   entrypoint.sh COMMAND [args]        any other command, as is
set -euo pipefail
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-config.settings}"

# How long a role waits for PostgreSQL (and the worker and beat for web's migrations).
DB_WAIT_SECONDS="${DB_WAIT_SECONDS:-180}"

log() { printf 'entrypoint: %s\n' "$*" >&2; }

deploy_check() {
  if ! python manage.py check --deploy --fail-level WARNING; then
    log "refusing to start: 'manage.py check --deploy' reported the problems above;"
    log "set the variables it names (deploy/env.example explains each one)"
    exit 1
  fi
}

database_answers() {
  python -c 'import django; django.setup(); from django.db import connection; connection.ensure_connection()'
}

migrations_applied() {
  python manage.py migrate --check --noinput
}

# wait_until DESCRIPTION COMMAND...: retry COMMAND every 2 s for DB_WAIT_SECONDS.
wait_until() {
  local what=$1
  shift
  local deadline=$((SECONDS + DB_WAIT_SECONDS)) said=0
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "gave up after ${DB_WAIT_SECONDS} s waiting for ${what}; the last attempt said:"
      "$@" || true
      exit 1
    fi
    if ((said == 0)); then
      log "waiting for ${what} (up to ${DB_WAIT_SECONDS} s)"
      said=1
    fi
    sleep 2
  done
}

# The compose healthchecks: the ready endpoint as a client would reach it, or a worker's ping.
healthcheck() {
  case "${1:-ready}" in
    ready | live)
      exec python - "${1:-ready}" <<'PY'
import os
import sys
import urllib.request

# The first allowed host, so ALLOWED_HOSTS accepts the probe ("*" and ".domain" included).
host = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost").split(",")[0].strip().lstrip(".")
headers = {"Host": "localhost" if host in ("", "*") else host}
if os.environ.get("DJANGO_BEHIND_PROXY", "").strip().lower() in {"1", "true", "yes", "on"}:
    headers["X-Forwarded-Proto"] = "https"  # as the proxy says, so SSL redirect lets it through
port = os.environ.get("PORT", "8000")
request = urllib.request.Request(f"http://127.0.0.1:{port}/health/{sys.argv[1]}/", headers=headers)
try:
    with urllib.request.urlopen(request, timeout=5) as response:
        sys.exit(0 if response.status == 200 else 1)
except Exception as error:
    print(f"health/{sys.argv[1]}: {error}", file=sys.stderr)
    sys.exit(1)
PY
      ;;
    worker)
      exec celery -A config inspect ping --destination "celery@${HOSTNAME}" --timeout 10
      ;;
    *)
      log "healthcheck: unknown check '$1' (ready, live or worker)"
      exit 2
      ;;
  esac
}

role="${1:-web}"
if (($# > 0)); then
  shift
fi

case "$role" in
  web)
    deploy_check
    wait_until "the database" database_answers
    # One web container migrates; with several, run `entrypoint.sh manage migrate` once first.
    python manage.py migrate --noinput
    exec gunicorn config.wsgi -c deploy/gunicorn.conf.py "$@"
    ;;
  staff)
    # The pool nginx sends signed-in people, tokens and writes to (deploy/README.md, "Two pools").
    deploy_check
    wait_until "the database and its migrations (web applies them)" migrations_applied
    exec gunicorn config.wsgi -c deploy/gunicorn.conf.py "$@"
    ;;
  worker)
    deploy_check
    wait_until "the database and its migrations (web applies them)" migrations_applied
    # Below the web's CPU priority: a standings rebuild can wait a moment, an official cannot.
    exec nice -n "${CELERY_WORKER_NICE:-10}" celery -A config worker --loglevel=INFO "$@"
    ;;
  beat)
    deploy_check
    wait_until "the database and its migrations (web applies them)" migrations_applied
    exec celery -A config beat --loglevel=INFO -s "${CELERY_BEAT_SCHEDULE_FILE:-/tmp/celerybeat-schedule}" "$@"
    ;;
  manage)
    exec python manage.py "$@"
    ;;
  healthcheck)
    healthcheck "$@"
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
