"""The standings rebuild in one PostgreSQL statement, for the stages it ranks exactly as
scoring.rules does: the players are ranked, their lines compared with the stored snapshot and
written where they changed, without the rows leaving the server. Where it cannot be sure of
ranking as scoring.rules would, it declines before writing anything, and the rebuild ranks in
Python (scoring.standings). tests/test_ranking_sql.py holds the two to the same snapshots.

It declines: tie-break decisions recorded for the stage (they reorder tied groups), late entries
(a rule fills their missed rounds), a player with two scores for one round, a round numbered
beyond what the packed words below hold (the stage's rounds, rounded up to a multiple of five), a
score of 4,096 pips or more (no set holds that many), and a countback part of two or more players
who have not all played just the rounds compared, which scoring.rules might compare again over
the rounds they share (players level on total, rounds won and every round their group shares:
rare). It is not tried for totals carried forward from earlier stages, for stages of more than
60 rounds, nor for tie-break orders other than the known rules each used at most once.

How: a player's confirmed rounds are a bit mask (bit r: round r), so the rounds a group of
players shares are the AND of their masks. Their scores are packed, 12 bits a round, into 64-bit
words, the last rounds in the first word: comparing the words in turn compares the scores last
round first, which is countback, for players who have played the same rounds. Where a group's
players have not, each word keeps only the rounds the group shares. Both are built by plain
aggregates, which PostgreSQL computes in one pass over the scores without sorting them.
"""

from dataclasses import dataclass
from math import ceil
from typing import Any

from django.db import connection

from scoring.models import RoundResult
from tournaments.models import Player, Stage

# The tie-break orders ranked here: each rule at most once (scoring.rules.TIEBREAK_RULES).
SUPPORTED_ORDERS = {
    (),
    ("rounds_won",),
    ("countback",),
    ("rounds_won", "countback"),
    ("countback", "rounds_won"),
}
BITS = 12  # per round's score in a word: up to 4,095 pips (a double-18 set holds 3,420)
PER_WORD = 5  # rounds in a 64-bit word, the sign bit left clear
MOST_ROUNDS = 60  # twelve words; the mask (bits 1 to 62 of a bigint) would allow 62


@dataclass(frozen=True)
class Word:
    """A word of packed scores: rounds low..high, round r at bit BITS * (r - low)."""

    name: str
    low: int
    high: int

    def packed(self) -> str:
        return (
            f"BIT_OR(s.pips::bigint << ({BITS} * (r.round_no - {self.low}))) "
            f"FILTER (WHERE r.round_no BETWEEN {self.low} AND {self.high}) AS {self.name}"
        )

    def kept(self, shared: str) -> str:
        """The word with only the scores of the rounds in the mask `shared`."""
        slots = " | ".join(
            f"CASE WHEN ({shared} >> {r}) & 1 = 1 "
            f"THEN {(1 << BITS) - 1}::bigint << {BITS * (r - self.low)} ELSE 0 END"
            for r in range(self.low, self.high + 1)
        )
        return f"{self.name} & ({slots})"

    def score(self, round_no: str, alias: str) -> str:
        """The score of round `round_no` (in this word) of the row `alias`."""
        shift = f"{BITS} * ({round_no} - {self.low})"
        return f"({alias}.{self.name} >> ({shift})) & {(1 << BITS) - 1}"


def _words(rounds: int) -> list[Word]:
    """The words for a stage of `rounds` rounds, last rounds first."""
    count = max(1, ceil(rounds / PER_WORD))
    return [
        Word(f"k{i}", low, low + PER_WORD - 1)
        for i, low in enumerate(range(PER_WORD * (count - 1) + 1, 0, -PER_WORD))
    ]


# {group} is the group countback compares within: total, and rounds won when that rule comes
# first. {o_order} orders the stage and {t_order} a table; RANGE frames of CURRENT ROW count the
# peers (players level on every key).
_RANK = """
WITH
agg AS (
    SELECT s.player_id,
           SUM(s.pips)::int AS total,
           (COUNT(*) FILTER (WHERE s.went_out))::int AS won,
           COUNT(*)::int AS played,
           BIT_OR(1::bigint << r.round_no)
               FILTER (WHERE r.round_no BETWEEN 1 AND {covered}) AS mask,
           BOOL_OR(r.round_no NOT BETWEEN 1 AND {covered} OR s.pips > {most_pips}) AS beyond,
           {packed}
    FROM scoring_score s JOIN scoring_roundresult r ON r.id = s.result_id
    WHERE r.stage_id = %(stage)s AND r.status = %(confirmed)s
    GROUP BY s.player_id
),
pl AS (
    SELECT st.player_id, st.table_id, t.number AS table_no,
           p.status = %(withdrawn)s AS withdrawn,
           COALESCE(a.total, 0) AS total, COALESCE(a.won, 0) AS won,
           COALESCE(a.played, 0) AS played, COALESCE(a.mask, 0) AS mask, {words_or_zero},
           -- two scores for one round, or a score the words cannot hold: declined
           COALESCE(a.beyond OR bit_count(a.mask::bit(64)) <> a.played, false) AS odd
    FROM tables_seat st
    JOIN tables_table t ON t.id = st.table_id
    JOIN tournaments_player p ON p.id = st.player_id
    LEFT JOIN agg a ON a.player_id = st.player_id
    WHERE st.stage_id = %(stage)s
),
shared AS (
    SELECT pl.*,
           BIT_AND(mask) OVER (PARTITION BY {group}) AS o_shared,
           BIT_AND(mask) OVER (PARTITION BY table_no, {group}) AS t_shared
    FROM pl
),
keyed AS (
    SELECT s.*, {o_keys}, {t_keys}
    FROM shared s
),
ranked AS (
    SELECT k.*,
           RANK() OVER o AS rank,
           COUNT(*) OVER (o RANGE BETWEEN CURRENT ROW AND CURRENT ROW) > 1 AS tied,
           RANK() OVER t AS table_rank,
           COUNT(*) OVER (t RANGE BETWEEN CURRENT ROW AND CURRENT ROW) > 1 AS table_tied,
           -- a countback part of two or more players who have not all played just the rounds
           -- compared: scoring.rules would compare them again over the rounds they share
           {o_again} AS o_again,
           {t_again} AS t_again
    FROM keyed k
    WINDOW o AS (ORDER BY {o_order}), t AS (PARTITION BY table_no ORDER BY {t_order})
),
-- Confirmed rounds per table: the results counted, and the tables that played every round.
tr AS (
    SELECT table_id, COUNT(DISTINCT round_no) AS n
    FROM scoring_roundresult WHERE stage_id = %(stage)s AND status = %(confirmed)s
    GROUP BY table_id
),
decline AS (
    SELECT EXISTS (SELECT 1 FROM scoring_tiebreakdecision WHERE stage_id = %(stage)s)
        OR EXISTS (SELECT 1 FROM tables_seat WHERE stage_id = %(stage)s AND from_round > 1)
        OR EXISTS (SELECT 1 FROM ranked WHERE odd OR o_again OR t_again) AS declined
),
-- Advancement (scoring.standings._advancers): the top K eligible players at each table, unless
-- a tie straddles the line (then only those above it, and the tie is flagged once the table
-- has played every round), then the best W of the rest.
eligible AS (
    SELECT player_id, table_id, table_no, table_rank, rank,
           ROW_NUMBER() OVER (PARTITION BY table_no ORDER BY table_rank, player_id) AS rn,
           COUNT(*) OVER (PARTITION BY table_no) AS n,
           MIN(ARRAY[table_rank, player_id]) OVER (PARTITION BY table_no) AS first
    FROM ranked WHERE NOT withdrawn
),
lined AS (
    SELECT e.*,
           MAX(table_rank) FILTER (WHERE rn = %(k)s) OVER (PARTITION BY table_no) AS line,
           MAX(table_rank) FILTER (WHERE rn = %(k)s + 1) OVER (PARTITION BY table_no) AS next
    FROM eligible e
),
at_table AS (
    SELECT l.*,
           n <= %(k)s OR table_rank < line OR (next <> line AND rn <= %(k)s) AS advances,
           n > %(k)s AND next = line AND table_rank = line AS straddles
    FROM lined l
),
wildcard AS (
    SELECT player_id FROM (
        SELECT player_id, ROW_NUMBER() OVER (ORDER BY rank, player_id) AS w
        FROM at_table WHERE NOT advances
    ) x WHERE w <= %(wildcards)s
),
flags AS (
    SELECT a.table_no, MIN(a.first) AS first, MIN(a.table_rank) AS place,
           ARRAY_AGG(a.player_id ORDER BY a.player_id) AS players,
           ARRAY_AGG(p.name ORDER BY a.player_id) AS names
    FROM at_table a
    JOIN tr ON tr.table_id = a.table_id AND tr.n >= %(rounds)s
    JOIN tournaments_player p ON p.id = a.player_id
    WHERE a.straddles GROUP BY a.table_no
),
computed AS (
    SELECT c.*,
           -- what the line shows, hashed: a stored line is rewritten when its digest differs
           hash_array_extended(ARRAY[
               rank, table_no, table_rank, total, won, played, mask, {words},
               tied::int, table_tied::int, advances::int, withdrawn::int
           ], 7312001) AS digest
    FROM (
        SELECT r.player_id, r.rank, r.table_no, r.table_rank, r.total, r.won, r.played,
               r.mask, {r_words}, r.tied, r.table_tied, r.withdrawn,
               COALESCE(a.advances, false) OR w.player_id IS NOT NULL AS advances
        FROM ranked r
        LEFT JOIN at_table a ON a.player_id = r.player_id
        LEFT JOIN wildcard w ON w.player_id = r.player_id
    ) c
),
"""

_AGAIN = """(COUNT(*) OVER {part} > 1
    AND NOT (MIN(mask) OVER {part} = {shared} AND MAX(mask) OVER {part} = {shared}))"""

# Make the stored lines equal computed, unless the statement declined: rewrite the lines whose
# digest differs, insert the players who have none, delete those no longer seated. This digest
# never equals scoring.standings' (Python's hash), so after a rebuild in Python each line is
# written once more here, and the other way round.
_WRITE = """
updated AS (
    UPDATE scoring_standingrow t
    SET rank = c.rank, table_number = c.table_no, table_rank = c.table_rank, total = c.total,
        carried = 0, rounds_won = c.won, rounds_played = c.played, scores = {scores},
        tied = c.tied, table_tied = c.table_tied, advances = c.advances,
        note = CASE WHEN c.withdrawn THEN 'withdrawn' ELSE '' END, digest = c.digest
    FROM computed c
    WHERE t.stage_id = %(stage)s AND t.player_id = c.player_id AND t.digest <> c.digest
      AND NOT (SELECT declined FROM decline)
    RETURNING 1
),
inserted AS (
    INSERT INTO scoring_standingrow (
        stage_id, player_id, rank, table_number, table_rank, total, carried, rounds_won,
        rounds_played, scores, tied, table_tied, advances, note, digest
    )
    SELECT %(stage)s, c.player_id, c.rank, c.table_no, c.table_rank, c.total, 0, c.won,
           c.played, {scores}, c.tied, c.table_tied, c.advances,
           CASE WHEN c.withdrawn THEN 'withdrawn' ELSE '' END, c.digest
    FROM computed c
    WHERE NOT (SELECT declined FROM decline)
      AND NOT EXISTS (
          SELECT 1 FROM scoring_standingrow t
          WHERE t.stage_id = %(stage)s AND t.player_id = c.player_id
      )
    RETURNING 1
),
deleted AS (
    DELETE FROM scoring_standingrow t
    WHERE t.stage_id = %(stage)s AND NOT (SELECT declined FROM decline)
      AND NOT EXISTS (SELECT 1 FROM computed c WHERE c.player_id = t.player_id)
    RETURNING 1
)
SELECT (SELECT declined FROM decline),
       (SELECT COUNT(*) FROM updated) + (SELECT COUNT(*) FROM inserted)
           + (SELECT COUNT(*) FROM deleted),
       (SELECT COALESCE(SUM(n), 0) FROM tr)::int,
       (SELECT COUNT(*) FROM tables_table WHERE stage_id = %(stage)s)::int,
       COALESCE((SELECT json_agg(json_build_object(
            'table', table_no, 'players', players, 'place', place, 'names', names)
            ORDER BY first) FROM flags), '[]')
"""

# A line's scores as stored, {"round": pips}, unpacked from the mask and the words.
_SCORES = """(SELECT COALESCE(jsonb_object_agg(b::text, CASE {pick} END), '{{}}')
    FROM generate_series(1, {covered}) b WHERE (c.mask >> b) & 1 = 1)"""


def _statement(tiebreaks: tuple[str, ...], rounds: int) -> str:
    rules = list(tiebreaks)
    words = _words(rounds)
    names = [word.name for word in words]
    countback = "countback" in rules
    # countback compares within the players level on what comes before it
    before = rules[: rules.index("countback")] if countback else rules
    group = ", ".join(["total", *(["won"] if "rounds_won" in before else [])])

    def keys(prefix: str) -> str:
        return ", ".join(
            f"CASE WHEN mask = {prefix}_shared THEN {word.name} "
            f"ELSE {word.kept(f'{prefix}_shared')} END AS {prefix}_{word.name}"
            for word in words
        )

    def order(prefix: str) -> str:
        named = {
            "rounds_won": "won DESC",
            "countback": ", ".join(f"{prefix}_{name}" for name in names),
        }
        return ", ".join(["total", *(named[rule] for rule in rules)])

    def again(prefix: str, partition: str) -> str:
        if not countback:
            return "false"
        key = ", ".join(f"{prefix}_{name}" for name in names)
        return _AGAIN.format(part=f"(PARTITION BY {partition}, {key})", shared=f"{prefix}_shared")

    rank = _RANK.format(
        covered=PER_WORD * len(words),
        most_pips=(1 << BITS) - 1,
        packed=", ".join(word.packed() for word in words),
        words_or_zero=", ".join(f"COALESCE(a.{name}, 0) AS {name}" for name in names),
        group=group,
        o_keys=keys("o"),
        t_keys=keys("t"),
        o_order=order("o"),
        t_order=order("t"),
        o_again=again("o", group),
        t_again=again("t", f"table_no, {group}"),
        words=", ".join(names),
        r_words=", ".join(f"r.{name}" for name in names),
    )
    pick = " ".join(f"WHEN b >= {word.low} THEN {word.score('b', 'c')}" for word in words)
    scores = _SCORES.format(pick=pick, covered=PER_WORD * len(words))
    return rank + _WRITE.format(scores=scores)


@dataclass(frozen=True)
class Rebuilt:
    written: int  # lines updated, inserted or deleted
    counted: int  # confirmed results counted
    tables: int  # the stage's tables
    flags: list[
        dict[str, Any]
    ]  # unresolved ties deciding advancement: table, players, place, names


def supported(stage: Stage, tiebreaks: Any) -> bool:
    """Whether the statement may be tried: PostgreSQL, no totals carried forward, rounds that the
    words hold, and a tie-break order it ranks. (It declines the rest itself: see the module.)"""
    return (
        connection.vendor == "postgresql"
        and not stage.carry_forward
        and stage.rounds <= MOST_ROUNDS
        and isinstance(tiebreaks, list | tuple)
        and tuple(tiebreaks) in SUPPORTED_ORDERS
    )


def rebuild_lines(stage: Stage, tiebreaks: Any) -> Rebuilt | None:
    """Rank the stage and write its lines in one statement; None, with nothing written, where it
    declines (the rebuild then ranks in Python)."""
    params = {
        "stage": stage.pk,
        "confirmed": RoundResult.Status.CONFIRMED,
        "withdrawn": Player.Status.WITHDRAWN,
        "k": stage.advance_per_table,
        "wildcards": stage.wildcards,
        "rounds": stage.rounds,
    }
    with connection.cursor() as cursor:
        cursor.execute(_statement(tuple(tiebreaks), stage.rounds), params)
        declined, written, counted, tables, flags = cursor.fetchone()
    if declined:
        return None
    return Rebuilt(written, counted, tables, flags)
