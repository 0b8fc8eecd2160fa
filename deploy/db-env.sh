# Sourced by deploy/backup.sh and deploy/restore.sh: the site's environment and its database's
# address for PostgreSQL's own tools.
#
# load_env_file: the units' environment file (ROUNDHOUSE_ENV_FILE, default
# /etc/roundhouse/roundhouse.env) when it is there, as systemd reads it: plain KEY=value lines,
# never run as shell (a value such as "Roundhouse <roundhouse@example.org>" stays as it is). A
# variable already set in the environment wins.
load_env_file() {
  local file="${ROUNDHOUSE_ENV_FILE:-/etc/roundhouse/roundhouse.env}" line key
  [[ -r "$file" ]] || return 0
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    key="${BASH_REMATCH[1]}"
    [[ -n "${!key+set}" ]] || export "$key=${BASH_REMATCH[2]}"
  done <"$file"
}

# postgres_env: DATABASE_URL as libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE, so
# that the password never shows in the process list (pg_dump's command line would show it).
postgres_env() {
  [[ -n "${DATABASE_URL:-}" ]] ||
    die "DATABASE_URL is not set (in the environment or ${ROUNDHOUSE_ENV_FILE:-/etc/roundhouse/roundhouse.env})"
  unset PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE PGSERVICE
  local vars
  vars="$(python3 - "$SCRIPT" <<'PY'
import os
import shlex
import sys
from urllib.parse import unquote, urlsplit

url = urlsplit(os.environ["DATABASE_URL"])
if url.scheme not in ("postgres", "postgresql", "pgsql"):
    sys.exit(f"{sys.argv[1]}: DATABASE_URL is not a PostgreSQL database ({url.scheme}://...)")
name = unquote(url.path.lstrip("/"))
if not name:
    sys.exit(f"{sys.argv[1]}: DATABASE_URL names no database (postgres://user:pw@host:port/NAME)")
for key, value in (
    ("PGHOST", url.hostname),
    ("PGPORT", url.port),
    ("PGUSER", url.username and unquote(url.username)),
    ("PGPASSWORD", url.password and unquote(url.password)),
    ("PGDATABASE", name),
):
    if value:
        print(f"export {key}={shlex.quote(str(value))}")
PY
)" || exit 1
  eval "$vars"
}
