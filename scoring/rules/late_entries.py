"""Late entries: what a player who sat down after round 1 scores for the rounds they missed."""

from collections.abc import Iterable, Mapping

from tournaments.choices import LateEntryRule


def missed_round_scores(
    *, table_rounds: Mapping[int, Mapping[int, int]], from_round: int, rule: str
) -> dict[int, int]:
    """What a late entry scores for the rounds their table played before they sat down.

    table_rounds: round_no -> {player_id: pips} of the table's results. "table_high" (the house
    rule) gives the highest score at the table in each missed round; "zero" and "no_advance"
    give 0 (with "no_advance" the player also cannot advance, which advancement checks).
    """
    if rule not in LateEntryRule.values:
        raise ValueError(
            f"Unknown late entry rule {rule!r}: use one of {', '.join(LateEntryRule.values)}"
        )
    missed = {}
    for round_no, scores in table_rounds.items():
        if round_no < from_round and scores:
            missed[round_no] = max(scores.values()) if rule == LateEntryRule.TABLE_HIGH else 0
    return missed


def typical_table_high(table_highs: Iterable[int]) -> int:
    """What a round missed by a whole table counts under "table_high": a table opened for late
    players after round 1 has no scores of its own in the rounds before, so each of its players
    scores the mean of the other tables' highest scores in that round, rounded up (the highest at
    a usual table, as a late entry at one scores, never less). `table_highs`: each table's
    highest score in the round; at least one."""
    highs = list(table_highs)
    if not highs:
        raise ValueError("A round nobody has played has no typical table high.")
    return -(-sum(highs) // len(highs))
