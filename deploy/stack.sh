#!/usr/bin/env bash
# The production topology without Docker: nginx in front of gunicorn, two Celery workers and beat
# on this machine's PostgreSQL and Redis, with a production-like environment. State, pids, logs
# and nginx's cache in .stack/. The stack's address, for people and tests, is nginx's:
# http://127.0.0.1:$NGINX_PORT/ (static files from disk, public answers cached as the origin's
# Cache-Control says: deploy/nginx.conf). Two gunicorn pools behind it: web on $PORT for the
# public's GETs, staff on $STAFF_PORT for signed-in people, tokens and every write (nginx picks;
# deploy/README.md, "Two pools"). Both still answer on their ports, for the benchmarks.
#
#   deploy/stack.sh start            deploy check, migrations, the five processes, then nginx
#   deploy/stack.sh status           each process, /health/ready/ from gunicorn and through nginx
#   deploy/stack.sh stop             QUIT to nginx, TERM to the others, wait STACK_STOP_TIMEOUT s,
#                                    then KILL what is left
#   deploy/stack.sh manage CMD ...   a manage.py command with the stack's environment
#
# Overridable: PORT (8100, gunicorn for the public), STAFF_PORT (PORT + 1: 8101, gunicorn for the
# staff), STAFF_WORKERS (1), NGINX_PORT (PORT + 80: 8180), NGINX (the nginx binary),
# STACK_DIR (.stack), STACK_DB (roundhouse_stack), STACK_PG_URL (postgres://postgres@127.0.0.1:5432),
# STACK_REDIS_URL (redis://127.0.0.1:6379; broker db STACK_BROKER_DB=2, cache db
# STACK_CACHE_DB=3), STACK_QUEUE (roundhouse-stack), STACK_START_TIMEOUT (90), STACK_STOP_TIMEOUT
# (20), WORKER_NICE (10: the Celery workers' niceness), NCHAN_MODULE (Debian's
# ngx_nchan_module.so: live push to the pages when it is there; set it empty for none); and,
# passed to the app when set, ROUNDHOUSE_PUBLIC_URL (http://127.0.0.1:$NGINX_PORT), PUBLIC_MAX_AGE,
# PUBLIC_STALE_SECONDS, PUBLIC_QUEUE_LIMIT_SECONDS, STANDINGS_SMALL_QUEUE (and then worker2 takes
# only the small stages' rebuilds), STANDINGS_SMALL_PLAYERS, DJANGO_DB_CONNECT_TIMEOUT,
# DJANGO_DB_STATEMENT_TIMEOUT, DJANGO_DB_LOCK_TIMEOUT and EMAIL_URL (config/settings.py's
# defaults otherwise).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="${VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
STACK_DIR="${STACK_DIR:-$ROOT/.stack}"
ENV_FILE="$STACK_DIR/env"
SECRET_FILE="$STACK_DIR/secret"
PORT="${PORT:-8100}"
# PORT + 80 unless set: a second stack given only a PORT of its own (bench/) gets its own nginx.
NGINX_PORT="${NGINX_PORT:-$((PORT + 80))}"
STAFF_PORT="${STAFF_PORT:-$((PORT + 1))}"
# The staff's pool: officials, organisers and scripts are tens, not thousands; one worker of
# gunicorn.conf.py's threads, and the public pool's workers are WEB_CONCURRENCY (2).
STAFF_WORKERS="${STAFF_WORKERS:-1}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
NGINX_TEMPLATE="$ROOT/deploy/nginx.conf"
# nginx's module for live push (deploy/README.md, "Live push (nchan)"): without it the stack
# starts all the same and the pages poll.
NCHAN_MODULE="${NCHAN_MODULE-/usr/lib/nginx/modules/ngx_nchan_module.so}"
NCHAN_LOAD=""
LIVE_PUBLISH_URL=""
if [[ -n "$NCHAN_MODULE" && -f "$NCHAN_MODULE" ]]; then
  NCHAN_LOAD="load_module $NCHAN_MODULE;"
  LIVE_PUBLISH_URL="http://127.0.0.1:$NGINX_PORT/_live/publish/"
fi
# settings.STATIC_ROOT, where prepare's collectstatic writes and nginx serves /static/ from.
STATIC_ROOT="$ROOT/static"
# nginx in the foreground, a child of stack.sh's. Started as root, its workers would switch to
# nobody, who may not enter the stack's folder (mode 700): they run as the user that runs
# gunicorn and Celery instead.
NGINX_GLOBALS='daemon off;'
if ((EUID == 0)); then
  NGINX_GLOBALS+=' user root;'
fi
STACK_DB="${STACK_DB:-roundhouse_stack}"
STACK_PG_URL="${STACK_PG_URL:-postgres://postgres@127.0.0.1:5432}"
STACK_REDIS_URL="${STACK_REDIS_URL:-redis://127.0.0.1:6379}"
STACK_BROKER_DB="${STACK_BROKER_DB:-2}"
STACK_CACHE_DB="${STACK_CACHE_DB:-3}"
WORKER_NICE="${WORKER_NICE:-10}"
# A queue of the stack's own: workers of another checkout on the same Redis never take its tasks.
STACK_QUEUE="${STACK_QUEUE:-roundhouse-stack}"
# Empty: every rebuild on STACK_QUEUE; a name: small stages' rebuilds there, for worker2.
STANDINGS_SMALL_QUEUE="${STANDINGS_SMALL_QUEUE:-}"
STACK_START_TIMEOUT="${STACK_START_TIMEOUT:-90}"
STACK_STOP_TIMEOUT="${STACK_STOP_TIMEOUT:-20}"

# The app's processes start first; nginx once gunicorn answers, and it stops first.
APP_ROLES=(web staff worker1 worker2 beat)
ROLES=(nginx "${APP_ROLES[@]}")

say() { printf 'stack: %s\n' "$*"; }
die() {
  printf 'stack: %s\n' "$*" >&2
  exit 1
}

pid_file() { printf '%s/%s.pid' "$STACK_DIR" "$1"; }
log_file() { printf '%s/%s.log' "$STACK_DIR" "$1"; }

# What a role's command line holds: the virtualenv's programs, or nginx with the stack's config.
role_mark() {
  if [[ "$1" == nginx ]]; then
    printf '%s' "$STACK_DIR/nginx.conf"
  else
    printf '%s' "$VENV/bin/"
  fi
}

# The pid of a role's process when it is alive and is ours (a recycled pid is not).
live_pid() {
  local file pid
  file="$(pid_file "$1")"
  [[ -f "$file" ]] || return 1
  pid="$(<"$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$(role_mark "$1")" || return 1
  printf '%s\n' "$pid"
}

# Any process left in the role's process group (its gunicorn workers, its Celery pool).
group_alive() { kill -0 -- "-$1" 2>/dev/null; }

# The stack's variables, KEY=VALUE lines without comments.
stack_vars() { grep -E '^[A-Z_][A-Z0-9_]*=' "$ENV_FILE"; }

stack_port() { stack_vars | sed -n "s/^${1:-PORT}=//p"; }

# The environment of the stack's processes: only the stack's variables (and PATH, HOME,
# locale), so what the caller's shell exports (a DATABASE_URL for the tests, say) never reaches it.
STACK_ENV=()
load_stack_env() {
  local vars
  mapfile -t vars < <(stack_vars)
  STACK_ENV=(
    -i PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin" HOME="${HOME:-/tmp}"
    LANG="${LANG:-C.UTF-8}" TMPDIR="${TMPDIR:-/tmp}" "${vars[@]}"
  )
}

# GET a URL: prints the status and the body; "000" when nothing answers.
http_get() {
  "$PY" - "$1" <<'PY'
import sys
import urllib.error
import urllib.request

try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as response:
        print(response.status, response.read().decode(errors="replace"))
except urllib.error.HTTPError as error:
    print(error.code, error.read().decode(errors="replace"))
except OSError as error:
    print("000", error)
PY
}

check_tools() {
  [[ -x "$PY" ]] || die "no virtualenv at $VENV: run 'make install' first"
  local tool
  for tool in gunicorn celery; do
    [[ -x "$VENV/bin/$tool" ]] || die "$tool is not installed in $VENV (it is a dependency: add it to pyproject.toml, or for now: uv pip install --python $PY $tool)"
  done
  [[ -x "$NGINX" ]] || die "nginx is not installed (apt-get install nginx, or set NGINX to one)"
}

# deploy/nginx.conf with the stack's ports and folders filled in, and checked with nginx -t.
write_nginx_conf() {
  # A fresh cache at each start: the database may have changed since the last one.
  rm -rf "${STACK_DIR:?}/nginx-cache"
  # Not nginx.pid: stack.sh writes that one itself, as for its other processes.
  NGINX_PORT="$NGINX_PORT" UPSTREAM="127.0.0.1:$PORT" STAFF_UPSTREAM="127.0.0.1:$STAFF_PORT" \
    STATIC_ROOT="$STATIC_ROOT" \
    NGINX_STATE="$STACK_DIR" NGINX_ACCESS_LOG="$STACK_DIR/nginx-access.log" \
    NGINX_MAIN="pid $STACK_DIR/nginx-master.pid;" \
    NCHAN_LOAD="$NCHAN_LOAD" LIVE_PUBLISH_ALLOW="allow 127.0.0.1;" \
    SERVER_NAMES="127.0.0.1 localhost" PYTHON="$PY" \
    bash "$ROOT/deploy/render-nginx.sh" "$STACK_DIR/nginx.conf"
  local checked
  if ! checked="$("$NGINX" -t -q -p "$STACK_DIR" -c "$STACK_DIR/nginx.conf" \
    -g "$NGINX_GLOBALS" 2>&1)"; then
    die "nginx -t refused $STACK_DIR/nginx.conf (from $NGINX_TEMPLATE): $checked"
  fi
}

check_services() {
  STACK_PG_URL="$STACK_PG_URL" STACK_REDIS_URL="$STACK_REDIS_URL" "$PY" - <<'PY' || exit 1
import os
import sys

import psycopg
import redis

try:
    psycopg.connect(os.environ["STACK_PG_URL"] + "/postgres", connect_timeout=3).close()
except psycopg.Error as error:
    sys.exit(f"stack: PostgreSQL at {os.environ['STACK_PG_URL']} does not answer: {error}")
try:
    redis.Redis.from_url(os.environ["STACK_REDIS_URL"], socket_connect_timeout=3).ping()
except redis.RedisError as error:
    sys.exit(f"stack: Redis at {os.environ['STACK_REDIS_URL']} does not answer: {error}")
PY
}

create_database() {
  STACK_PG_URL="$STACK_PG_URL" STACK_DB="$STACK_DB" "$PY" - <<'PY'
import os

import psycopg
from psycopg import errors, sql

name = os.environ["STACK_DB"]
with psycopg.connect(os.environ["STACK_PG_URL"] + "/postgres", autocommit=True) as conn:
    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
        try:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"stack: created the database {name}")
        except errors.DuplicateDatabase:  # another start created it meanwhile
            pass
PY
}

write_env() {
  mkdir -p "$STACK_DIR"
  chmod 700 "$STACK_DIR"
  # Kept across restarts, so sessions and password-reset links stay valid.
  if [[ ! -s "$SECRET_FILE" ]]; then
    (umask 077 && "$PY" -c 'import secrets; print(secrets.token_urlsafe(50))' >"$SECRET_FILE")
  fi
  (
    umask 077
    cat >"$ENV_FILE" <<EOF
# Written by deploy/stack.sh start (rewritten at every start; the secret is in $SECRET_FILE).
DJANGO_SETTINGS_MODULE=config.settings
PYTHONUNBUFFERED=1
DJANGO_SECRET_KEY=$(<"$SECRET_FILE")
DJANGO_DEBUG=0
# The site's address, on which every link in pages and mails is built (never a request's Host).
ROUNDHOUSE_PUBLIC_URL=${ROUNDHOUSE_PUBLIC_URL:-http://127.0.0.1:$NGINX_PORT}
DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
DJANGO_CSRF_TRUSTED_ORIGINS=http://127.0.0.1:$NGINX_PORT,http://localhost:$NGINX_PORT,http://127.0.0.1:$PORT,http://localhost:$PORT
DATABASE_URL=$STACK_PG_URL/$STACK_DB
DJANGO_CONN_MAX_AGE=60
REDIS_URL=$STACK_REDIS_URL/$STACK_CACHE_DB
CELERY_BROKER_URL=$STACK_REDIS_URL/$STACK_BROKER_DB
CELERY_TASK_DEFAULT_QUEUE=$STACK_QUEUE
# Plain HTTP on loopback: no TLS to redirect to. Browsers send Secure cookies to localhost,
# and Django sends the HSTS header over HTTPS only, so the production values below are inert.
DJANGO_SECURE_SSL_REDIRECT=0
DJANGO_SECURE_COOKIES=1
DJANGO_HSTS_SECONDS=31536000
DJANGO_HSTS_INCLUDE_SUBDOMAINS=1
DJANGO_HSTS_PRELOAD=1
# nginx in front sets X-Forwarded-Proto (http here).
DJANGO_BEHIND_PROXY=1
DJANGO_LOG_LEVEL=INFO
PORT=$PORT
# Not Django's: where stack.sh status finds the staff's gunicorn and nginx.
STAFF_PORT=$STAFF_PORT
NGINX_PORT=$NGINX_PORT
# nginx's publisher of live versions (empty without nchan: the pages poll).
LIVE_PUBLISH_URL=$LIVE_PUBLISH_URL
# The address the phones use, under which the standings at a new version are put in nginx's
# cache before the pages hear of it.
LIVE_PUBLIC_ORIGIN=${LIVE_PUBLISH_URL:+http://127.0.0.1:$NGINX_PORT}
# One worker per core: with 4 threads each, 2 workers served the public page and the officials
# better than gunicorn.conf.py's 2 x cores + 1 on 2 cores (docs/PERFORMANCE.md's git history,
# Load).
WEB_CONCURRENCY=${WEB_CONCURRENCY:-2}
# The public pages' cache times, and how long a public request may wait for gunicorn before it
# is turned away (503: config/queue_limit.py): config/settings.py's unless set here.
${PUBLIC_MAX_AGE:+PUBLIC_MAX_AGE=$PUBLIC_MAX_AGE}
${PUBLIC_STALE_SECONDS:+PUBLIC_STALE_SECONDS=$PUBLIC_STALE_SECONDS}
${PUBLIC_QUEUE_LIMIT_SECONDS:+PUBLIC_QUEUE_LIMIT_SECONDS=$PUBLIC_QUEUE_LIMIT_SECONDS}
# Small stages' rebuilds on a queue of their own, which worker2 alone takes (config/settings.py).
${STANDINGS_SMALL_QUEUE:+STANDINGS_SMALL_QUEUE=$STANDINGS_SMALL_QUEUE}
${STANDINGS_SMALL_PLAYERS:+STANDINGS_SMALL_PLAYERS=$STANDINGS_SMALL_PLAYERS}
# The database's timeouts (config/settings.py's unless set here), and where mail goes (the log
# unless set).
${DJANGO_DB_CONNECT_TIMEOUT:+DJANGO_DB_CONNECT_TIMEOUT=$DJANGO_DB_CONNECT_TIMEOUT}
${DJANGO_DB_STATEMENT_TIMEOUT:+DJANGO_DB_STATEMENT_TIMEOUT=$DJANGO_DB_STATEMENT_TIMEOUT}
${DJANGO_DB_LOCK_TIMEOUT:+DJANGO_DB_LOCK_TIMEOUT=$DJANGO_DB_LOCK_TIMEOUT}
${EMAIL_URL:+EMAIL_URL=$EMAIL_URL}
EOF
  )
}

# The deploy check at the entrypoint's level (WARNING), then migrations and static files, in
# one Python process: Django starts once instead of three times.
prepare() {
  env "${STACK_ENV[@]}" "$PY" - <<'PY'
import sys

import django
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import SystemCheckError

django.setup()
# W008 (no SECURE_SSL_REDIRECT) is the one finding of a plain-HTTP stack on loopback.
settings.SILENCED_SYSTEM_CHECKS = [*settings.SILENCED_SYSTEM_CHECKS, "security.W008"]
try:
    call_command("check", deploy=True, fail_level="WARNING")
except SystemCheckError as error:
    sys.exit(f"stack: refusing to start, the deploy check failed:\n{error}")
call_command("migrate", interactive=False, verbosity=1)
call_command("collectstatic", interactive=False, verbosity=0)
PY
}

launch() {
  local role=$1 log
  local -a command priority=()
  case "$role" in
    web) command=(gunicorn config.wsgi -c deploy/gunicorn.conf.py --bind "127.0.0.1:$PORT") ;;
    staff)
      command=(gunicorn config.wsgi -c deploy/gunicorn.conf.py --bind "127.0.0.1:$STAFF_PORT"
        --workers "$STAFF_WORKERS")
      ;;
    worker1 | worker2)
      command=(celery -A config worker --loglevel=INFO -n "$role@%h" --concurrency 1)
      # Small stages' rebuilds on a queue of their own (config/settings.py): worker2 takes only
      # those, worker1 everything, those too.
      if [[ -n "$STANDINGS_SMALL_QUEUE" && "$role" == worker2 ]]; then
        command+=(-Q "$STANDINGS_SMALL_QUEUE")
      elif [[ -n "$STANDINGS_SMALL_QUEUE" ]]; then
        command+=(-Q "$STACK_QUEUE,$STANDINGS_SMALL_QUEUE")
      fi
      # Below the web's priority: a rebuild waits a moment for the cores, an official does not.
      priority=(nice -n "$WORKER_NICE")
      ;;
    beat) command=(celery -A config beat --loglevel=INFO -s "$STACK_DIR/celerybeat-schedule") ;;
    nginx) command=("$NGINX" -p "$STACK_DIR" -c "$STACK_DIR/nginx.conf" -g "$NGINX_GLOBALS") ;;
  esac
  log="$(log_file "$role")"
  if [[ -f "$log" ]]; then
    mv -f "$log" "$log.1"
  fi
  if [[ "$role" == nginx && -f "$STACK_DIR/nginx-access.log" ]]; then
    mv -f "$STACK_DIR/nginx-access.log" "$STACK_DIR/nginx-access.log.1"
  fi
  # setsid: a session and process group of its own, so stop reaches its children and a closed
  # terminal does not hang it up. This shell has no job control, so the child is no group
  # leader: env and setsid exec in place and $! is the process itself.
  if [[ "$role" != nginx ]]; then
    command[0]="$VENV/bin/${command[0]}"
  fi
  env "${STACK_ENV[@]}" setsid "${priority[@]}" "${command[@]}" </dev/null >"$log" 2>&1 &
  echo $! >"$(pid_file "$role")"
}

fail_start() {
  printf 'stack: %s\n' "$1" >&2
  local role
  for role in "${ROLES[@]}"; do
    printf '\n----- %s (last 25 lines of %s) -----\n' "$role" "$(log_file "$role")" >&2
    tail -n 25 "$(log_file "$role")" >&2 2>/dev/null || true
  done
  stop_all >&2
  exit 1
}

wait_until_ready() {
  local deadline=$((SECONDS + STACK_START_TIMEOUT)) role answer
  while :; do
    for role in "${APP_ROLES[@]}"; do
      # Alive, not live_pid: until its exec, a child's command line is still this script's, and
      # on a busy machine the first check can come before it (CI saw "worker1 exited during
      # start" with an empty log).
      kill -0 "$(<"$(pid_file "$role")")" 2>/dev/null || fail_start "$role exited during start"
    done
    answer="$(http_get "http://127.0.0.1:$PORT/health/ready/")"
    if [[ "$answer" == 200* ]] &&
      [[ "$(http_get "http://127.0.0.1:$STAFF_PORT/health/ready/")" == 200* ]] &&
      grep -q ' ready\.' "$(log_file worker1)" &&
      grep -q ' ready\.' "$(log_file worker2)" &&
      grep -q 'beat: Starting' "$(log_file beat)"; then
      return 0
    fi
    if ((SECONDS >= deadline)); then
      fail_start "not ready within ${STACK_START_TIMEOUT} s; /health/ready/ said: ${answer}"
    fi
    sleep 0.5
  done
}

# nginx is up when /health/ready/ answers 200 through it (it is never cached: no-store).
wait_until_proxied() {
  local deadline=$((SECONDS + 15)) answer pid
  pid="$(<"$(pid_file nginx)")"
  while :; do
    # Not live_pid: until the exec, the child's command line is still this script's.
    kill -0 "$pid" 2>/dev/null || fail_start "nginx exited during start"
    answer="$(http_get "http://127.0.0.1:$NGINX_PORT/health/ready/")"
    [[ "$answer" == 200* ]] && return 0
    if ((SECONDS >= deadline)); then
      fail_start "nginx did not pass /health/ready/ on within 15 s; it said: ${answer}"
    fi
    sleep 0.2
  done
}

start() {
  check_tools
  local role running=() stopped=()
  for role in "${ROLES[@]}"; do
    if live_pid "$role" >/dev/null; then running+=("$role"); else stopped+=("$role"); fi
  done
  if ((${#stopped[@]} == 0)); then
    say "already running"
    status
    return
  fi
  if ((${#running[@]} > 0)); then
    die "partly running (${running[*]} up, ${stopped[*]} down): run '$0 stop' first"
  fi
  check_services
  local port
  for port in "$PORT" "$STAFF_PORT" "$NGINX_PORT"; do
    "$PY" - "$port" <<'PY' || die "port $port is taken: set PORT, STAFF_PORT (gunicorn's) and NGINX_PORT to free ones"
import socket
import sys

with socket.socket() as probe:
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn: TIME_WAIT is free
    try:
        probe.bind(("127.0.0.1", int(sys.argv[1])))
    except OSError:
        sys.exit(1)
PY
  done
  [[ "$(printf '%s\n' "$PORT" "$STAFF_PORT" "$NGINX_PORT" | sort -u | wc -l)" == 3 ]] ||
    die "PORT ($PORT), STAFF_PORT ($STAFF_PORT) and NGINX_PORT ($NGINX_PORT) must differ"
  write_env
  write_nginx_conf
  load_stack_env
  create_database
  say "deploy check, migrations, static files"
  prepare
  for role in "${APP_ROLES[@]}"; do
    launch "$role"
  done
  say "started ${APP_ROLES[*]}; waiting for /health/ready/"
  wait_until_ready
  launch nginx
  wait_until_proxied
  say "ready: http://127.0.0.1:$NGINX_PORT/ (nginx; gunicorn itself on :$PORT, the staff's on :$STAFF_PORT; logs in $STACK_DIR)"
}

stop_all() {
  local role pid pids=() deadline
  for role in "${ROLES[@]}"; do
    if pid="$(live_pid "$role")"; then
      # To the main process only: gunicorn and Celery each stop their children gracefully on
      # TERM; nginx's graceful stop is QUIT (it finishes the requests under way).
      if [[ "$role" == nginx ]]; then
        kill -QUIT "$pid" 2>/dev/null || true
      else
        kill -TERM "$pid" 2>/dev/null || true
      fi
      pids+=("$pid")
      say "stopping $role (pid $pid)"
    fi
    rm -f "$(pid_file "$role")"
  done
  deadline=$((SECONDS + STACK_STOP_TIMEOUT))
  while :; do
    local left=()
    for pid in "${pids[@]}"; do
      group_alive "$pid" && left+=("$pid")
    done
    ((${#left[@]} == 0)) && break
    if ((SECONDS >= deadline)); then
      say "still running after ${STACK_STOP_TIMEOUT} s, killing process groups ${left[*]}"
      for pid in "${left[@]}"; do
        kill -KILL -- "-$pid" 2>/dev/null || true
      done
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  say "stopped"
}

status() {
  local role pid up=0
  for role in "${ROLES[@]}"; do
    if pid="$(live_pid "$role")"; then
      printf '%-8s running  pid %s\n' "$role" "$pid"
      up=$((up + 1))
    else
      printf '%-8s stopped\n' "$role"
    fi
  done
  if ((up == 0)); then
    return 3
  fi
  local answer staff proxied
  answer="$(http_get "http://127.0.0.1:$(stack_port)/health/ready/")"
  printf 'ready    %s\n' "$answer"
  staff="$(http_get "http://127.0.0.1:$(stack_port STAFF_PORT)/health/ready/")"
  printf 'staff    %s\n' "$staff"
  proxied="$(http_get "http://127.0.0.1:$(stack_port NGINX_PORT)/health/ready/")"
  printf 'proxied  %s\n' "$proxied"
  ((up == ${#ROLES[@]})) && [[ "$answer" == 200* && "$staff" == 200* && "$proxied" == 200* ]]
}

manage() {
  [[ -f "$ENV_FILE" ]] || die "no $ENV_FILE: run '$0 start' first"
  # The caller's environment too (DJANGO_SUPERUSER_PASSWORD, say), under the stack's variables.
  local vars
  mapfile -t vars < <(stack_vars)
  env "${vars[@]}" "$PY" manage.py "$@"
}

case "${1:-}" in
  start) start ;;
  stop) stop_all ;;
  status) status ;;
  manage)
    shift
    manage "$@"
    ;;
  *)
    echo "usage: $0 start|stop|status|manage COMMAND [ARGS]" >&2
    exit 2
    ;;
esac
