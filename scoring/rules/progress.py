"""Like with like mid-stage: the standings rank on the rounds every table has confirmed.

Mid-stage, tables report at their own pace. Ranked on whatever each has reported, a player whose
table has not reported round 3 would stand above one who scored in it, for having played less
(lowest total wins). So the ranking counts rounds 1 to N, N the last round that every table of
the stage has confirmed, with every round before it: "ranked through round N". The rounds a
table has confirmed beyond N are shown beside, provisional, and count as soon as every table has
them. With every round in, N is the stage's last round and the ranking is the final rule's.
A table opened for late players from round S (its first round) has no rounds before S: it
holds nobody back for them, and counts from S like every other table. Pure: plain values in
and out."""

from collections.abc import Iterable, Mapping, Set

from scoring.rules.ranking import PlayerRecord


def ranked_through(
    table_rounds: Mapping[int, Set[int]],
    tables: Iterable[int],
    rounds: int,
    first_rounds: Mapping[int, int] | None = None,
) -> int:
    """The last round (0 to `rounds`) that every one of `tables` has confirmed, with every round
    before it. table_rounds: table -> the rounds it has confirmed (a table missing has none);
    first_rounds: table -> its first round, for a table opened for late players after round 1
    (the rounds before it are none of its own: they count as done)."""
    through = rounds
    for table in tables:
        confirmed = table_rounds.get(table, frozenset())
        reached = min((first_rounds or {}).get(table, 1) - 1, through)
        while reached < through and reached + 1 in confirmed:
            reached += 1
        through = reached
        if not through:
            break
    return through


def counting_through(
    record: PlayerRecord, through: int, *, missed_rounds: Set[int] = frozenset()
) -> PlayerRecord:
    """The record as the ranking counts it: rounds 1 to `through` only (the rounds a late entry
    missed, `missed_rounds`, counted as its rule filled them, where they are among those)."""
    if all(round_no <= through for round_no in record.scores):
        return record
    scores = {r: pips for r, pips in record.scores.items() if r <= through}
    won = frozenset(r for r in record.went_out if r <= through)
    missed = sum(1 for r in missed_rounds if r <= through)
    return PlayerRecord(record.player_id, record.table, scores, won, record.carried, missed)


def decided(ranked_through: int, rounds: int) -> bool:
    """Whether the standings say who advances ("advances") rather than who would as things stand
    ("would advance"): once the ranking counts every round of the stage. A tie that decides it
    is then flagged for the officials, and a correction is still an audited change."""
    return ranked_through >= rounds
