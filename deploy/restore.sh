#!/usr/bin/env bash
# A dump of deploy/backup.sh's back into the site's database (DATABASE_URL), then the
# migrations (a dump from an older release gets the newer tables), then the cache's entries
# emptied (they were drawn from the database as it was). Stop the site first
# (systemctl stop roundhouse.target), then, as the site's user:
#
#   sudo -u roundhouse /srv/roundhouse/deploy/restore.sh /var/backups/roundhouse/roundhouse-....dump
#   sudo -u roundhouse /srv/roundhouse/deploy/restore.sh --force FILE   # into a database in use
#
# Into an empty database only (sudo -u postgres createdb -O roundhouse NAME): one with tables
# is refused unless --force, which first drops everything in its public schema. The dump is
# restored in one transaction: one that fails partway leaves the database as it was (with
# --force: empty). DATABASE_URL from the environment, else from the units' environment file
# (ROUNDHOUSE_ENV_FILE, /etc/roundhouse/roundhouse.env), as for the settings migrate reads.
set -euo pipefail

SCRIPT=restore.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${VENV:-$ROOT/.venv}/bin/python"
die() {
  printf '%s: %s\n' "$SCRIPT" "$*" >&2
  exit 1
}
say() { printf '%s: %s\n' "$SCRIPT" "$*" >&2; }
# shellcheck source=deploy/db-env.sh
. "$ROOT/deploy/db-env.sh"

force=0
file=""
for argument in "$@"; do
  case "$argument" in
    --force) force=1 ;;
    -*) die "unknown option $argument (usage: $SCRIPT [--force] FILE)" ;;
    *)
      [[ -z "$file" ]] || die "one dump at a time (usage: $SCRIPT [--force] FILE)"
      file="$argument"
      ;;
  esac
done
[[ -n "$file" ]] || die "usage: $SCRIPT [--force] FILE (a dump of deploy/backup.sh)"
[[ -f "$file" && -r "$file" ]] || die "$file: no such file, or not readable by $(id -un)"
for tool in pg_restore psql; do
  command -v "$tool" >/dev/null || die "$tool is not installed (apt-get install postgresql-client)"
done
[[ -x "$PY" ]] || die "no virtualenv at ${PY%/bin/python} (uv sync --frozen --no-dev in $ROOT)"
pg_restore --list "$file" >/dev/null 2>&1 ||
  die "$file is not a dump of pg_dump's custom format (deploy/backup.sh writes those); nothing was changed"

load_env_file
postgres_env

psql_value() { psql --no-psqlrc --quiet --tuples-only --no-align --set ON_ERROR_STOP=1 --command "$1"; }
tables="$(psql_value "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")" ||
  die "cannot reach the database $PGDATABASE (above); nothing was changed"
if ((tables > 0)); then
  ((force)) || die "the database $PGDATABASE has $tables tables: restore into an empty one (sudo -u postgres createdb -O roundhouse NAME, then point DATABASE_URL at it), or give --force to replace everything in it; nothing was changed"
  say "--force: dropping the $tables tables of $PGDATABASE (its public schema)"
  psql_value "DROP SCHEMA public CASCADE; CREATE SCHEMA public;" >/dev/null ||
    die "could not empty $PGDATABASE (above): its owner must run the restore"
fi

say "restoring $file into $PGDATABASE"
# Whoever owned the objects when it was dumped: here they belong to the user restoring.
pg_restore --no-owner --no-privileges --exit-on-error --single-transaction --dbname="$PGDATABASE" "$file" ||
  die "pg_restore failed (above); the restore was rolled back"

say "migrating (a dump from an older release gets the newer migrations)"
"$PY" "$ROOT/manage.py" migrate --noinput

# The cached standings and pages are keyed by ids and versions the restored database hands
# out again: this site's keys go (its CACHE_KEY_PREFIX only, as another site may share the Redis).
"$PY" "$ROOT/manage.py" shell --no-imports -c '
from django.core.cache import cache

client = getattr(getattr(cache, "_cache", None), "get_client", None)
if client is None:
    cache.clear()
else:
    redis = client(None, write=True)
    for key in redis.scan_iter(match=f"{cache.key_prefix}:*", count=1000):
        redis.delete(key)
' || say "could not empty the cache (above): restart its Redis before starting the site"
say "restored: start the site (systemctl start roundhouse.target), and empty nginx's cache (deploy/README.md)"
