"""Every family of keys Roundhouse keeps in the Redis cache, named in one place.

Each function builds one family's key (after the cache's KEY_PREFIX, "roundhouse"); the module
that owns the family (named in each comment) reads and writes it, and docs/ARCHITECTURE.md
("Redis") says what each holds and for how long. A new family gets its function here, so that
two families never share a prefix by accident. Keys of libraries (allauth's "allauth:rl:...")
are theirs, not listed here."""


# The API's standings document of a stage: {"built_seq", "payload"}. Owner:
# scoring/standings/cache.py; `payload_version` is the document's shape (PAYLOAD_VERSION), so a
# deploy that changes it never reads a payload of the old shape.
def standings(stage_id: int, payload_version: int) -> str:
    return f"standings:{payload_version}:{stage_id}"


# A rebuild of the stage's standings is queued (1). Owner: scoring/standings/cache.py, set by
# scoring/queue.py send_once.
def standings_pending(stage_id: int) -> str:
    return f"standings-pending:{stage_id}"


# A page of rows of a stage's standings table, drawn: named by the snapshot (`built_seq`), the
# language, the members shown (a division's digest, or none for the whole field), the rows per
# page and the page (or "all"), and the release that drew it. Owner: scoring/standings_html.py.
def standings_table(
    stage_id: int,
    built_seq: int,
    language: str,
    members_digest: str | None,
    rows_per_page: int,
    page: int | str,
    release: str,
) -> str:
    of = "" if members_digest is None else f":{members_digest}"
    return f"standings-table:{stage_id}:{built_seq}:{language}{of}:{rows_per_page}:{page}:{release}"


# A tournament's whole standings page (bytes) at a version (its ETag), for visitors without a
# session. Owner: scoring/public.py standings_page.
def standings_page(tournament_id: int, etag: str) -> str:
    return f"standings-page:{tournament_id}:{etag}"


# The live part's HTML around the rows of a tournament's standings, named by the ETag of its
# first page. Owner: scoring/public.py _frame_key.
def standings_frame(tournament_id: int, etag: str) -> str:
    return f"standings-frame:{tournament_id}:{etag}"


# A rating run of the club is queued (1), from the tournament's event (0: from nothing). Owner:
# clubs/rating_store.py.
def club_rating_pending(club_id: int, tournament_id: int | None) -> str:
    return f"clubs:rating:pending:{club_id}:{tournament_id or 0}"


# A rebuild of the season's ladder is queued (1). Owner: clubs/ladder_services.py.
def ladder_pending(season_id: int) -> str:
    return f"clubs:ladder-pending:{season_id}"


# The readiness check's value, written and read back. Owner: config/health.py check_cache.
def health_ready() -> str:
    return "health:ready"


# The times one address knocked at a door anyone may use (an entry sent, a wrong private
# address, a wrong check-in code) within the door's window; for a door counted in fixed windows
# (a table's code), the address is followed by ":w<window>" and the key holds a count. Owner:
# config/throttles.py.
def throttle(scope: str, address: str) -> str:
    return f"throttle:{scope}:{address}"
