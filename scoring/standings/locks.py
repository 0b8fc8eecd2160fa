"""One rebuild of a stage at a time: PostgreSQL advisory locks, released at the commit."""

from django.db import OperationalError, connection, transaction

REBUILD_LOCK = 7_312_001  # the advisory lock's first key; the stage's id is the second
REBUILD_WAIT_SECONDS = 5.0


def wait_for_rebuild(stage_id: int) -> None:
    """Take the stage's rebuild lock for the rest of this transaction, waiting up to
    REBUILD_WAIT_SECONDS for a rebuild in progress to finish; RebuildBusy after that.

    For what must rebuild the standings itself and cannot be told "try again" for a rebuild
    that lasts tens of milliseconds (closing a stage). Call it before taking any row lock: the
    rebuild it waits for must not be waiting for this transaction."""
    if connection.vendor != "postgresql":
        return  # SQLite runs one writing transaction at a time anyway
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
            [f"{int(REBUILD_WAIT_SECONDS * 1000)}ms"],
        )
        previous = cursor.fetchone()[0]
        try:
            with transaction.atomic():  # a savepoint: timed out, the transaction goes on
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [REBUILD_LOCK, stage_id])
        except OperationalError as error:  # lock_timeout
            raise RebuildBusy(stage_id) from error
        finally:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [previous])


def try_lock(stage_id: int, *, asynchronous_commit: bool) -> bool:
    """One rebuild of a stage at a time (PostgreSQL advisory lock, released at commit).

    With asynchronous_commit (when the rebuild is a transaction of its own, as in a worker), its
    commit does not wait for the WAL to reach the disk (synchronous_commit off, for this
    transaction only): the snapshot is derived from results that are already durable, and it is
    written with the built_seq it includes. Lost in a crash, both are lost together, so the stage
    is still stale and is rebuilt; meanwhile the commit is quicker, and leaves the disk to the
    officials' results. Inside a caller's transaction (closing a stage, seating the next level)
    the setting would cover the caller's own writes too, so it is left alone."""
    if connection.vendor != "postgresql":
        return True  # SQLite runs one writing transaction at a time anyway
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_xact_lock(%s, %s), set_config('synchronous_commit', %s, true)",
            [REBUILD_LOCK, stage_id, "off" if asynchronous_commit else "on"],
        )
        return bool(cursor.fetchone()[0])


class RebuildBusy(Exception):
    """Another rebuild of the stage is running; try again shortly."""
