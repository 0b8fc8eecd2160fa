#!/usr/bin/env bash
# A dump of the site's database (pg_dump's custom format: compressed, restored with
# deploy/restore.sh), into ROUNDHOUSE_BACKUP_DIR as roundhouse-<UTC date and time>.dump; then the
# dumps older than ROUNDHOUSE_BACKUP_DAYS days are deleted. roundhouse-backup.timer runs it each
# night (deploy/systemd/); by hand, as the site's user:
#
#   sudo -u roundhouse /srv/roundhouse/deploy/backup.sh
#
# DATABASE_URL, ROUNDHOUSE_BACKUP_DIR (/var/backups/roundhouse) and ROUNDHOUSE_BACKUP_DAYS (14):
# from the environment, else from the units' environment file (ROUNDHOUSE_ENV_FILE,
# /etc/roundhouse/roundhouse.env). Prints the new dump's path. A dump that fails leaves no file
# behind and deletes nothing: the last good ones stay.
set -euo pipefail

SCRIPT=backup.sh
die() {
  printf '%s: %s\n' "$SCRIPT" "$*" >&2
  exit 1
}
# shellcheck source=deploy/db-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/db-env.sh"

load_env_file
DIR="${ROUNDHOUSE_BACKUP_DIR:-/var/backups/roundhouse}"
DAYS="${ROUNDHOUSE_BACKUP_DAYS:-14}"
[[ "$DAYS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDHOUSE_BACKUP_DAYS must be a whole number of days, 1 or more (it is '$DAYS')"
command -v pg_dump >/dev/null || die "pg_dump is not installed (apt-get install postgresql-client)"
postgres_env

umask 077
mkdir -p "$DIR" 2>/dev/null || die "cannot create $DIR (as root: install -d -o roundhouse -g roundhouse -m 700 $DIR)"
[[ -w "$DIR" ]] || die "$DIR is not writable by $(id -un)"
name="roundhouse-$(date -u +%Y-%m-%dT%H%M%SZ).dump"
partial="$DIR/.$name.partial"
trap 'rm -f "$partial"' EXIT
pg_dump --format=custom --file="$partial" || die "pg_dump of $PGDATABASE failed (above); nothing was deleted"
mv "$partial" "$DIR/$name"
trap - EXIT

# Keep the last DAYS days: a dump more than DAYS x 24 hours old goes (never the one just made).
find "$DIR" -maxdepth 1 -type f -name 'roundhouse-*.dump' ! -name "$name" -mmin "+$((DAYS * 24 * 60))" \
  -print -delete | sed 's/^/backup.sh: deleted /' >&2
printf '%s\n' "$DIR/$name"
