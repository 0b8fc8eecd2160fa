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
#   deploy/stack.sh roles            the processes, one a line (STACK_HOSTS=2: both hosts')
#
# Several web hosts (STACK_HOSTS=2, or `make stack HOSTS=2`; deploy/README.md, "Several hosts"):
# each host its own nginx (its own cache) and both gunicorn pools, behind a load balancer (a
# plain nginx, deploy/lb.conf) that spreads the requests over them; PostgreSQL, Redis, the two
# workers and beat shared, and nchan's channels in Redis, so a version published once reaches
# the pages held on every host. The ports, with the default PORT of 8100:
#
#              public gunicorn        staff gunicorn              nginx (its cache, its nchan)
#   host 1     PORT 8100              STAFF_PORT 8101             NGINX_PORT 8180
#   host 2     HOST2_PORT 8102        HOST2_STAFF_PORT 8103       HOST2_NGINX_PORT 8181
#   host n     PORT + 2(n-1)          PORT + 2(n-1) + 1           NGINX_PORT + n - 1
#   balancer   LB_PORT: NGINX_PORT + 10 (8190), the site's address (ROUNDHOUSE_PUBLIC_URL)
#
# (Each overridable as named: HOSTn_PORT, HOSTn_STAFF_PORT, HOSTn_NGINX_PORT, LB_PORT.) The
# workers warm every host's cache with a new version (LIVE_WARM_URLS) and publish it once, to
# host 1's nginx (LIVE_PUBLISH_URL). STACK_LIVE_DB (4): the Redis database of nchan's channels,
# in a namespace of the stack's own (STACK_QUEUE). With one host (the default) there is no
# balancer and nchan keeps its channels in nginx's memory.
#
# Overridable: PORT (8100, gunicorn for the public), STAFF_PORT (PORT + 1: 8101, gunicorn for the
# staff), STAFF_WORKERS (1), NGINX_PORT (PORT + 80: 8180), STACK_HOSTS (1), NGINX (nginx),
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
# Web hosts: each its own nginx and both gunicorn pools (the header above). Host 1's roles keep
# their names (web, staff, nginx); host n's are webn, staffn, nginxn; the balancer is lb.
# stop, status and manage act on the stack that started: its number of hosts is in its env file.
if [[ "${1:-}" != start && -f "$ENV_FILE" ]] && grep -q '^STACK_HOSTS=' "$ENV_FILE"; then
  STACK_HOSTS="$(sed -n 's/^STACK_HOSTS=//p' "$ENV_FILE" | tail -n 1)"
fi
STACK_HOSTS="${STACK_HOSTS:-1}"
if ! [[ "$STACK_HOSTS" =~ ^[1-9]$ ]]; then
  printf 'stack: STACK_HOSTS must be a number of hosts from 1 to 9, not %s\n' "$STACK_HOSTS" >&2
  exit 2
fi
LB_PORT="${LB_PORT:-$((NGINX_PORT + 10))}"
STACK_LIVE_DB="${STACK_LIVE_DB:-4}"
HOST_WEB_PORTS=("$PORT")
HOST_STAFF_PORTS=("$STAFF_PORT")
HOST_NGINX_PORTS=("$NGINX_PORT")
for ((host = 2; host <= STACK_HOSTS; host++)); do
  web_var="HOST${host}_PORT" staff_var="HOST${host}_STAFF_PORT" nginx_var="HOST${host}_NGINX_PORT"
  HOST_WEB_PORTS+=("${!web_var:-$((PORT + 2 * (host - 1)))}")
  HOST_STAFF_PORTS+=("${!staff_var:-$((PORT + 2 * (host - 1) + 1))}")
  HOST_NGINX_PORTS+=("${!nginx_var:-$((NGINX_PORT + host - 1))}")
done
# The site's address: the balancer's with several hosts, else nginx's.
if ((STACK_HOSTS > 1)); then
  FRONT_PORT=$LB_PORT
else
  FRONT_PORT=$NGINX_PORT
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

# The app's processes start first; nginx once gunicorn answers (the balancer once each host's
# nginx does), and they stop first.
host_suffix() {
  if (($1 > 1)); then printf '%s' "$1"; fi
}
APP_ROLES=()
NGINX_ROLES=()
for ((host = 1; host <= STACK_HOSTS; host++)); do
  APP_ROLES+=("web$(host_suffix "$host")" "staff$(host_suffix "$host")")
  NGINX_ROLES+=("nginx$(host_suffix "$host")")
done
APP_ROLES+=(worker1 worker2 beat)
FRONT_ROLES=("${NGINX_ROLES[@]}")
if ((STACK_HOSTS > 1)); then
  FRONT_ROLES=(lb "${NGINX_ROLES[@]}")
fi
ROLES=("${FRONT_ROLES[@]}" "${APP_ROLES[@]}")

# A host's folder for its nginx (config, cache, access log): host 1's is the stack's own.
host_dir() {
  if (($1 > 1)); then printf '%s/host%s' "$STACK_DIR" "$1"; else printf '%s' "$STACK_DIR"; fi
}
# The host number of a role (web2: 2, nginx: 1), or nothing for the workers, beat and lb.
role_host() {
  case "$1" in
    web | staff | nginx) printf '1' ;;
    web[0-9] | staff[0-9] | nginx[0-9]) printf '%s' "${1: -1}" ;;
  esac
}

say() { printf 'stack: %s\n' "$*"; }
die() {
  printf 'stack: %s\n' "$*" >&2
  exit 1
}

pid_file() { printf '%s/%s.pid' "$STACK_DIR" "$1"; }
log_file() { printf '%s/%s.log' "$STACK_DIR" "$1"; }

# What a role's command line holds: the virtualenv's programs, or nginx with the stack's config.
role_mark() {
  case "$1" in
    nginx*) printf '%s' "$(host_dir "$(role_host "$1")")/nginx.conf" ;;
    lb) printf '%s' "$STACK_DIR/lb/nginx.conf" ;;
    *) printf '%s' "$VENV/bin/" ;;
  esac
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

# deploy/nginx.conf with a host's ports and folders filled in, and checked with nginx -t. With
# several hosts nchan keeps its channels in the stack's Redis (STACK_LIVE_DB), in a namespace
# of the stack's own (its queue's name): another stack on the same Redis hears none of them.
write_nginx_conf() {
  local host=$1 dir redis_url=""
  dir="$(host_dir "$host")"
  mkdir -p "$dir"
  # A fresh cache at each start: the database may have changed since the last one.
  rm -rf "${dir:?}/nginx-cache"
  if ((STACK_HOSTS > 1)); then
    redis_url="$STACK_REDIS_URL/$STACK_LIVE_DB"
  fi
  # Not nginx.pid: stack.sh writes that one itself, as for its other processes.
  NGINX_PORT="${HOST_NGINX_PORTS[host - 1]}" UPSTREAM="127.0.0.1:${HOST_WEB_PORTS[host - 1]}" \
    STAFF_UPSTREAM="127.0.0.1:${HOST_STAFF_PORTS[host - 1]}" STATIC_ROOT="$STATIC_ROOT" \
    NGINX_STATE="$dir" NGINX_ACCESS_LOG="$dir/nginx-access.log" \
    NGINX_MAIN="pid $dir/nginx-master.pid;" \
    NCHAN_LOAD="$NCHAN_LOAD" NCHAN_REDIS_URL="$redis_url" NCHAN_REDIS_NAMESPACE="$STACK_QUEUE" \
    LIVE_PUBLISH_ALLOW="allow 127.0.0.1;" ROUNDHOUSE_ENV_FILE=/dev/null \
    SERVER_NAMES="127.0.0.1 localhost" PYTHON="$PY" \
    bash "$ROOT/deploy/render-nginx.sh" "$dir/nginx.conf"
  check_nginx_conf "$dir" "$dir/nginx.conf" "$NGINX_TEMPLATE"
}

check_nginx_conf() {
  local checked
  if ! checked="$("$NGINX" -t -q -p "$1" -c "$2" -g "$NGINX_GLOBALS" 2>&1)"; then
    die "nginx -t refused $2 (from $3): $checked"
  fi
}

# The balancer in front of the hosts' nginx (deploy/lb.conf), with several hosts.
write_lb_conf() {
  local dir="$STACK_DIR/lb" servers="" port
  mkdir -p "$dir/nginx-temp"
  for port in "${HOST_NGINX_PORTS[@]}"; do
    servers+="server 127.0.0.1:$port max_fails=1 fail_timeout=5s; "
  done
  LB_PORT="$LB_PORT" LB_SERVERS="$servers" NGINX_STATE="$dir" \
    NGINX_ACCESS_LOG="$dir/nginx-access.log" NGINX_MAIN="pid $dir/nginx-master.pid;" \
    "$PY" - "$ROOT/deploy/lb.conf" "$dir/nginx.conf" <<'PY'
import os
import re
import sys

names = ("LB_PORT", "LB_SERVERS", "NGINX_STATE", "NGINX_ACCESS_LOG", "NGINX_MAIN")
template = open(sys.argv[1], encoding="utf-8").read()
pattern = r"\$\{(" + "|".join(names) + r")\}"
with open(sys.argv[2], "w", encoding="utf-8") as conf:
    conf.write(re.sub(pattern, lambda match: os.environ[match[1]], template))
PY
  check_nginx_conf "$dir" "$dir/nginx.conf" "$ROOT/deploy/lb.conf"
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

# Every address a browser may post a form from: each nginx, the balancer, host 1's gunicorn.
trusted_origins() {
  local port origins=()
  for port in "${HOST_NGINX_PORTS[@]}" "$PORT"; do
    origins+=("http://127.0.0.1:$port" "http://localhost:$port")
  done
  if ((STACK_HOSTS > 1)); then
    origins=("http://127.0.0.1:$LB_PORT" "http://localhost:$LB_PORT" "${origins[@]}")
  fi
  local IFS=,
  printf '%s' "${origins[*]}"
}

# Hosts 2 and up (HOST2_PORT=..., one a line) and the balancer's port, for stack.sh status.
host_ports() {
  local host
  for ((host = 2; host <= STACK_HOSTS; host++)); do
    printf 'HOST%s_PORT=%s\nHOST%s_STAFF_PORT=%s\nHOST%s_NGINX_PORT=%s\n' \
      "$host" "${HOST_WEB_PORTS[host - 1]}" "$host" "${HOST_STAFF_PORTS[host - 1]}" \
      "$host" "${HOST_NGINX_PORTS[host - 1]}"
  done
  if ((STACK_HOSTS > 1)); then
    printf 'LB_PORT=%s\n' "$LB_PORT"
  fi
}

# Each host's nginx, where the workers warm a new version's standings.
warm_urls() {
  local port urls=()
  for port in "${HOST_NGINX_PORTS[@]}"; do
    urls+=("http://127.0.0.1:$port")
  done
  local IFS=,
  printf '%s' "${urls[*]}"
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
ROUNDHOUSE_PUBLIC_URL=${ROUNDHOUSE_PUBLIC_URL:-http://127.0.0.1:$FRONT_PORT}
DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
DJANGO_CSRF_TRUSTED_ORIGINS=$(trusted_origins)
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
# With several hosts the balancer appends to X-Forwarded-For before a host's nginx does: the
# client's address is the one before the balancer's.
DJANGO_PROXY_COUNT=$((STACK_HOSTS > 1 ? 1 : 0))
DJANGO_LOG_LEVEL=INFO
PORT=$PORT
# Not Django's: where stack.sh status finds the staff's gunicorn and nginx, and the other hosts'.
STAFF_PORT=$STAFF_PORT
NGINX_PORT=$NGINX_PORT
STACK_HOSTS=$STACK_HOSTS
$(host_ports)
# nginx's publisher of live versions (empty without nchan: the pages poll): host 1's, whose
# nchan passes a version to every host's pages through Redis when there are several.
LIVE_PUBLISH_URL=$LIVE_PUBLISH_URL
# The address the phones use, under which the standings at a new version are put in nginx's
# cache before the pages hear of it: in every host's nginx (LIVE_WARM_URLS), each its own cache.
LIVE_PUBLIC_ORIGIN=${LIVE_PUBLISH_URL:+http://127.0.0.1:$FRONT_PORT}
LIVE_WARM_URLS=${LIVE_PUBLISH_URL:+$(warm_urls)}
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
  local host dir
  host="$(role_host "$role")"
  case "$role" in
    web*)
      command=(gunicorn config.wsgi -c deploy/gunicorn.conf.py
        --bind "127.0.0.1:${HOST_WEB_PORTS[host - 1]}")
      ;;
    staff*)
      command=(gunicorn config.wsgi -c deploy/gunicorn.conf.py
        --bind "127.0.0.1:${HOST_STAFF_PORTS[host - 1]}" --workers "$STAFF_WORKERS")
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
    nginx*)
      dir="$(host_dir "$host")"
      command=("$NGINX" -p "$dir" -c "$dir/nginx.conf" -g "$NGINX_GLOBALS")
      ;;
    lb) command=("$NGINX" -p "$STACK_DIR/lb" -c "$STACK_DIR/lb/nginx.conf" -g "$NGINX_GLOBALS") ;;
  esac
  log="$(log_file "$role")"
  if [[ -f "$log" ]]; then
    mv -f "$log" "$log.1"
  fi
  case "$role" in
    nginx*) dir="$(host_dir "$host")" ;;
    lb) dir="$STACK_DIR/lb" ;;
    *) dir="" ;;
  esac
  if [[ -n "$dir" && -f "$dir/nginx-access.log" ]]; then
    mv -f "$dir/nginx-access.log" "$dir/nginx-access.log.1"
  fi
  # setsid: a session and process group of its own, so stop reaches its children and a closed
  # terminal does not hang it up. This shell has no job control, so the child is no group
  # leader: env and setsid exec in place and $! is the process itself.
  if [[ "$role" != nginx* && "$role" != lb ]]; then
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

# "200 ..." when every host's two pools answer /health/ready/, else the first other answer.
pools_ready() {
  local port answer
  for port in "${HOST_WEB_PORTS[@]}" "${HOST_STAFF_PORTS[@]}"; do
    answer="$(http_get "http://127.0.0.1:$port/health/ready/")"
    if [[ "$answer" != 200* ]]; then
      printf '%s (gunicorn on :%s)' "$answer" "$port"
      return
    fi
  done
  printf '%s' "$answer"
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
    answer="$(pools_ready)"
    if [[ "$answer" == 200* ]] &&
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

# An nginx (a host's, or the balancer) is up when /health/ready/ answers 200 through it (it is
# never cached: no-store).
wait_until_proxied() {
  local role=$1 port=$2 deadline=$((SECONDS + 15)) answer pid
  pid="$(<"$(pid_file "$role")")"
  while :; do
    # Not live_pid: until the exec, the child's command line is still this script's.
    kill -0 "$pid" 2>/dev/null || fail_start "$role exited during start"
    answer="$(http_get "http://127.0.0.1:$port/health/ready/")"
    [[ "$answer" == 200* ]] && return 0
    if ((SECONDS >= deadline)); then
      fail_start "$role did not pass /health/ready/ on within 15 s; it said: ${answer}"
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
  local port ports=("${HOST_WEB_PORTS[@]}" "${HOST_STAFF_PORTS[@]}" "${HOST_NGINX_PORTS[@]}")
  if ((STACK_HOSTS > 1)); then
    ports+=("$LB_PORT")
  fi
  for port in "${ports[@]}"; do
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
  if ((STACK_HOSTS == 1)); then
    [[ "$(printf '%s\n' "${ports[@]}" | sort -u | wc -l)" == 3 ]] ||
      die "PORT ($PORT), STAFF_PORT ($STAFF_PORT) and NGINX_PORT ($NGINX_PORT) must differ"
  else
    [[ "$(printf '%s\n' "${ports[@]}" | sort -u | wc -l)" == "${#ports[@]}" ]] ||
      die "the hosts' and the balancer's ports must differ: ${ports[*]}"
  fi
  write_env
  local host
  for ((host = 1; host <= STACK_HOSTS; host++)); do
    write_nginx_conf "$host"
  done
  if ((STACK_HOSTS > 1)); then
    write_lb_conf
  fi
  load_stack_env
  create_database
  say "deploy check, migrations, static files"
  prepare
  for role in "${APP_ROLES[@]}"; do
    launch "$role"
  done
  say "started ${APP_ROLES[*]}; waiting for /health/ready/"
  wait_until_ready
  for ((host = 1; host <= STACK_HOSTS; host++)); do
    launch "nginx$(host_suffix "$host")"
    wait_until_proxied "nginx$(host_suffix "$host")" "${HOST_NGINX_PORTS[host - 1]}"
  done
  if ((STACK_HOSTS == 1)); then
    say "ready: http://127.0.0.1:$NGINX_PORT/ (nginx; gunicorn itself on :$PORT, the staff's on :$STAFF_PORT; logs in $STACK_DIR)"
    return
  fi
  launch lb
  wait_until_proxied lb "$LB_PORT"
  say "ready: http://127.0.0.1:$LB_PORT/ (the balancer over $STACK_HOSTS hosts: nginx on :${HOST_NGINX_PORTS[*]}, gunicorn on :${HOST_WEB_PORTS[*]}, the staff's on :${HOST_STAFF_PORTS[*]}; logs in $STACK_DIR)"
}

stop_all() {
  local role pid pids=() deadline
  for role in "${ROLES[@]}"; do
    if pid="$(live_pid "$role")"; then
      # To the main process only: gunicorn and Celery each stop their children gracefully on
      # TERM; nginx's graceful stop is QUIT (it finishes the requests under way).
      if [[ "$role" == nginx* || "$role" == lb ]]; then
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
  local host prefix answer staff proxied healthy=1
  for ((host = 1; host <= STACK_HOSTS; host++)); do
    prefix=""
    if ((host > 1)); then prefix="HOST${host}_"; fi
    answer="$(http_get "http://127.0.0.1:$(stack_port "${prefix}PORT")/health/ready/")"
    staff="$(http_get "http://127.0.0.1:$(stack_port "${prefix}STAFF_PORT")/health/ready/")"
    proxied="$(http_get "http://127.0.0.1:$(stack_port "${prefix}NGINX_PORT")/health/ready/")"
    if ((STACK_HOSTS > 1)); then printf 'host %s\n' "$host"; fi
    printf 'ready    %s\nstaff    %s\nproxied  %s\n' "$answer" "$staff" "$proxied"
    [[ "$answer" == 200* && "$staff" == 200* && "$proxied" == 200* ]] || healthy=0
  done
  if ((STACK_HOSTS > 1)); then
    answer="$(http_get "http://127.0.0.1:$(stack_port LB_PORT)/health/ready/")"
    printf 'balanced %s\n' "$answer"
    [[ "$answer" == 200* ]] || healthy=0
  fi
  ((up == ${#ROLES[@]} && healthy))
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
  # The processes start would start, one a line, in stop's order (tests/deploy/test_systemd.py).
  roles) printf '%s\n' "${ROLES[@]}" ;;
  manage)
    shift
    manage "$@"
    ;;
  *)
    echo "usage: $0 start|stop|status|roles|manage COMMAND [ARGS]" >&2
    exit 2
    ;;
esac
