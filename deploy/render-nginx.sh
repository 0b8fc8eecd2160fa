#!/usr/bin/env bash
# deploy/nginx.conf with its ${NAME}s filled in: the one fill of the template outside compose
# (whose nginx container fills it with envsubst). deploy/stack.sh calls it for .stack/nginx.conf;
# on a host, it writes a whole nginx.conf for Debian's own nginx.service (deploy/README.md,
# "Host it yourself"):
#
#   sudo deploy/render-nginx.sh                    # /etc/nginx/nginx.conf, the host's defaults
#   sudo nginx -t && sudo systemctl reload nginx
#   deploy/render-nginx.sh OUTPUT                  # another file
#
# Each name comes from the environment when set there, else the host's default:
#
#   NGINX_PORT          127.0.0.1:8080 (loopback: caddy in front terminates HTTPS)
#   UPSTREAM            127.0.0.1:$PORT (the web unit's gunicorn; PORT 8000)
#   STAFF_UPSTREAM      127.0.0.1:$STAFF_PORT (the staff unit's; STAFF_PORT 8001)
#   STATIC_ROOT         this checkout's static/ (the web unit's collectstatic writes it)
#   NGINX_STATE         /var/cache/nginx/roundhouse (its nginx-temp/ is made here)
#   NGINX_ACCESS_LOG    /var/log/nginx/roundhouse-access.log (Debian's logrotate rotates it)
#   NGINX_MAIN          "user www-data; pid /run/nginx.pid;" (Debian's nginx.service starts nginx
#                       as root and waits for that pid file)
#   NCHAN_LOAD          load_module of Debian's nchan module when it is installed, else nothing
#                       (and the live push locations are left out: the pages poll)
#   NCHAN_REDIS         nothing: nchan keeps its channels in nginx's memory (one host). With
#                       NCHAN_REDIS_URL set (redis://[:password@]host:port/db, a Redis every
#                       host's nginx reaches), the lines of an upstream on it, in the namespace
#                       NCHAN_REDIS_NAMESPACE (roundhouse), and NCHAN_REDIS_PASS their use in the
#                       live push locations (deploy/README.md, "Several hosts")
#   LIVE_PUBLISH_ALLOW  "allow 127.0.0.1;" (the units post versions from this host)
#   SERVER_NAMES        ROUNDHOUSE_PUBLIC_URL's host, then 127.0.0.1 (LIVE_PUBLISH_URL's)
#
# PORT, STAFF_PORT and ROUNDHOUSE_PUBLIC_URL are read from the environment or else from
# ROUNDHOUSE_ENV_FILE (/etc/roundhouse/roundhouse.env), the units' environment file.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPLATE="$ROOT/deploy/nginx.conf"
OUTPUT="${1:-/etc/nginx/nginx.conf}"
ENV_FILE="${ROUNDHOUSE_ENV_FILE:-/etc/roundhouse/roundhouse.env}"
PYTHON="${PYTHON:-$(command -v python3 || echo "$ROOT/.venv/bin/python")}"

die() {
  printf 'render-nginx: %s\n' "$*" >&2
  exit 1
}

# A variable from the environment, else from the env file (its last KEY=value line), else $2.
setting() {
  local value="${!1-}"
  if [[ -z "$value" && -r "$ENV_FILE" ]]; then
    value="$(sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1)"
  fi
  printf '%s' "${value:-$2}"
}

if [[ -z "${SERVER_NAMES-}" ]]; then
  public_url="$(setting ROUNDHOUSE_PUBLIC_URL "")"
  [[ -n "$public_url" ]] ||
    die "no ROUNDHOUSE_PUBLIC_URL (in the environment or $ENV_FILE) and no SERVER_NAMES: nginx would answer no host name"
  host="${public_url#*://}"
  host="${host%%/*}"
  host="${host%%:*}"
  SERVER_NAMES="$host 127.0.0.1"
fi
NCHAN_MODULE="${NCHAN_MODULE-/usr/lib/nginx/modules/ngx_nchan_module.so}"
if [[ -z "${NCHAN_LOAD+set}" ]]; then
  NCHAN_LOAD=""
  if [[ -n "$NCHAN_MODULE" && -f "$NCHAN_MODULE" ]]; then
    NCHAN_LOAD="load_module $NCHAN_MODULE;"
  fi
fi
# One Redis for every host's nchan, or (unset) nginx's own memory. NCHAN_REDIS_URL also comes
# from the env file, so the units and nginx read one setting on each host.
NCHAN_REDIS_URL="$(setting NCHAN_REDIS_URL "")"
if [[ -z "${NCHAN_REDIS+set}" ]]; then
  NCHAN_REDIS=""
  NCHAN_REDIS_PASS=""
  if [[ -n "$NCHAN_REDIS_URL" ]]; then
    # One word nginx reads as such: no space, quote, brace or semicolon.
    url_pattern='^redis://[^[:space:];{}"'"'"']+$'
    [[ "$NCHAN_REDIS_URL" =~ $url_pattern ]] ||
      die "NCHAN_REDIS_URL is not a redis://host:port/db address: $NCHAN_REDIS_URL"
    NCHAN_REDIS="upstream roundhouse_live { nchan_redis_server $NCHAN_REDIS_URL; } nchan_redis_namespace $(setting NCHAN_REDIS_NAMESPACE roundhouse);"
    NCHAN_REDIS_PASS="nchan_redis_pass roundhouse_live;"
  fi
fi
export NCHAN_REDIS NCHAN_REDIS_PASS="${NCHAN_REDIS_PASS-}"
export NGINX_PORT="${NGINX_PORT:-127.0.0.1:8080}"
export UPSTREAM="${UPSTREAM:-127.0.0.1:$(setting PORT 8000)}"
export STAFF_UPSTREAM="${STAFF_UPSTREAM:-127.0.0.1:$(setting STAFF_PORT 8001)}"
export STATIC_ROOT="${STATIC_ROOT:-$ROOT/static}"
export NGINX_STATE="${NGINX_STATE:-/var/cache/nginx/roundhouse}"
export NGINX_ACCESS_LOG="${NGINX_ACCESS_LOG:-/var/log/nginx/roundhouse-access.log}"
export NGINX_MAIN="${NGINX_MAIN-user www-data; pid /run/nginx.pid;}"
export NCHAN_LOAD
export LIVE_PUBLISH_ALLOW="${LIVE_PUBLISH_ALLOW:-allow 127.0.0.1;}"
export SERVER_NAMES

# nginx makes only the last level of a path: its temporary files' folder must exist.
mkdir -p "$NGINX_STATE/nginx-temp"
"$PYTHON" - "$TEMPLATE" "$OUTPUT" <<'PY'
import os
import re
import sys

names = (
    "NGINX_PORT", "UPSTREAM", "STAFF_UPSTREAM", "STATIC_ROOT", "NGINX_STATE", "NGINX_ACCESS_LOG",
    "NGINX_MAIN", "NCHAN_LOAD", "NCHAN_REDIS", "NCHAN_REDIS_PASS", "LIVE_PUBLISH_ALLOW",
    "SERVER_NAMES",
)
template = open(sys.argv[1], encoding="utf-8").read()
if not os.environ["NCHAN_LOAD"]:  # no nchan: its locations would not pass nginx -t
    template = re.sub(r"(?ms)^[ \t]*# live push: begin$.*?^[ \t]*# live push: end\n", "", template)
pattern = r"\$\{(" + "|".join(names) + r")\}"
code = re.sub(r"(?m)^[ \t]*#.*$", "", template)  # the comments name ${NAME}s as examples
left = set(re.findall(r"\$\{([A-Z_]+)\}", re.sub(pattern, "", code)))
if left:
    sys.exit(f"render-nginx: {sys.argv[1]} names {', '.join(sorted(left))}, which this script does not fill")
with open(sys.argv[2], "w", encoding="utf-8") as conf:
    conf.write(re.sub(pattern, lambda match: os.environ[match[1]], template))
PY
