"""Pure scoring rules: standings with tie-breaks and advancement ties, and the validation of one
round result. No ORM: records in, plain values out (vocabulary as in DESIGN.md)."""

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import groupby
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from django.utils import formats
from django.utils.translation import get_language, gettext, gettext_lazy, pgettext_lazy

from scoring.choices import DecisionMethod
from tournaments.choices import DEFAULT_TIEBREAKS, LateEntryRule, Tiebreak
from tournaments.presets import max_round_total

# --------------------------------------------------------------------------------------------
# Ranking


@dataclass(slots=True)  # not frozen: a frozen dataclass is made three times slower, per player
class PlayerRecord:
    player_id: int
    table: int | None  # table number in the stage (None if unseated)
    scores: Mapping[int, int]  # round_no -> pips, confirmed rounds only
    went_out: frozenset[int] = frozenset()  # rounds this player went out in (won)
    carried: int = 0  # total carried forward from an earlier stage (added to total)
    # Of scores, the rounds a late entry missed, filled by the stage's rule (missed_round_scores):
    # they count in the total and the countback, not as rounds played.
    missed: int = 0

    # Each is needed again at every level of the ranking: computed once, with the record.
    total: int = field(init=False, compare=False)
    rounds_won: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        self.total = sum(self.scores.values()) + self.carried
        # Only confirmed rounds count: a went-out mark for a round without a score is ignored.
        self.rounds_won = len(self.went_out & self.scores.keys()) if self.went_out else 0


@dataclass(frozen=True)
class Decision:
    """An official's tie-break decision: `order` holds the tied players' ids, best first."""

    order: tuple[int, ...]
    method: str

    def __post_init__(self) -> None:
        if self.method not in DecisionMethod.values:
            raise ValueError(
                f"Unknown tie-break method {self.method!r}; known methods: "
                + ", ".join(DecisionMethod.values)
            )
        if len(self.order) < 2:
            raise ValueError("A tie-break decision orders at least two players")
        if len(set(self.order)) != len(self.order):
            raise ValueError(f"A tie-break decision lists a player twice: {self.order}")


class Ranked(NamedTuple):  # a tuple: thousands are made at each rebuild
    player_id: int
    table: int | None
    rank: int  # overall, standard competition ranking (1, 2, 2, 4)
    table_rank: int | None  # same rules within the player's table
    total: int
    rounds_won: int
    rounds_played: int
    tied: bool  # shares its overall rank with someone (unresolved)
    table_tied: bool  # shares its table rank with someone at the table (unresolved)


SortKey = Callable[[PlayerRecord], Any]


@dataclass(frozen=True)
class TiebreakRule:
    """A tie-break rule, lower keys better. Its key may depend on the group of players still level
    (countback compares the rounds they share), so a rule names that dependence: `context` reads
    what the key depends on from a group, and `key` builds the sort key from it. A part of a split
    group with the same context would sort the same way again, so it is split no further. A rule
    without a context has one key for every group (`key(None)`)."""

    context: Callable[[Sequence[PlayerRecord]], Hashable] | None
    key: Callable[[Any], SortKey]


_total = attrgetter("total")


def _most_rounds_won(record: PlayerRecord) -> int:
    return -record.rounds_won


def _shared_rounds(group: Sequence[PlayerRecord]) -> tuple[int, ...]:
    """The rounds every player of the group has played, last round first."""
    first, *others = (record.scores.keys() for record in group)
    shared = set(first).intersection(*others)
    return tuple(sorted(shared, reverse=True))


def _countback_key(rounds: tuple[int, ...]) -> SortKey:
    # Countback compares the last round, then the round before, and so on, lower score first.
    # A round that one of the compared players has not played (no confirmed score) is skipped,
    # so only the rounds every player in the group has played are compared. When that splits
    # the group, each part still level is compared again over the rounds its own players share
    # (see _refine). A group it cannot split stays level, even if two of its players could be
    # told apart on a round a third has not played: that third would be level with both.
    if not rounds:
        return lambda record: ()
    scores_in = itemgetter(*rounds)  # one round gives a number, not a tuple: the same for all
    return lambda record: scores_in(record.scores)


TIEBREAK_RULES: dict[str, TiebreakRule] = {
    Tiebreak.ROUNDS_WON: TiebreakRule(context=None, key=lambda _: _most_rounds_won),
    Tiebreak.COUNTBACK: TiebreakRule(context=_shared_rounds, key=_countback_key),
}

Group = list[PlayerRecord]


def _split(group: Sequence[PlayerRecord], key: SortKey) -> list[Group]:
    """Sort by key, best first, and cut into runs of equal key."""
    keyed = sorted([(key(record), record) for record in group], key=itemgetter(0))
    return [[record for _, record in run] for _, run in groupby(keyed, key=itemgetter(0))]


def _refine(group: Group, rule: TiebreakRule, context: Any = None) -> list[Group]:
    """Split a level group by a rule, and each part again until the rule separates no one more."""
    if rule.context is None:
        return _split(group, rule.key(None))
    if context is None:
        context = rule.context(group)
    parts = _split(group, rule.key(context))
    if len(parts) == 1:
        return parts
    refined: list[Group] = []
    for part in parts:
        own = rule.context(part) if len(part) > 1 else context
        if own == context:  # the same key again (or one player): split no further
            refined.append(part)
        else:
            refined.extend(_refine(part, rule, own))
    return refined


DecisionIndex = dict[int, list[dict[int, int]]]  # player id -> positions of each decision


def _index_decisions(decisions: Sequence[Decision]) -> DecisionIndex:
    index: DecisionIndex = defaultdict(list)
    for decision in decisions:
        position = {player_id: place for place, player_id in enumerate(decision.order)}
        for player_id in decision.order:
            index[player_id].append(position)
    return index


def _decide(group: Group, index: DecisionIndex) -> list[Group]:
    # A decision covers a tie when it names every tied player: the exact group, or a superset
    # (made when more players were tied, before a correction; its relative order still holds).
    # One naming only some of the tied players cannot place them among the rest, so the tie stays.
    # The latest covering decision wins.
    if len(group) < 2:
        return [group]
    for position in reversed(index.get(group[0].player_id, ())):
        if all(record.player_id in position for record in group):
            return [[record] for record in sorted(group, key=lambda r: position[r.player_id])]
    return [group]


def _ordered_groups(
    records: Sequence[PlayerRecord], rules: Sequence[TiebreakRule], index: DecisionIndex
) -> list[Group]:
    groups = _split(records, _total)
    if len(groups) == len(records):  # no two totals equal (most tables): nothing to break
        return groups
    for rule in rules:
        groups = [
            part
            for group in groups
            for part in (_refine(group, rule) if len(group) > 1 else (group,))
        ]
    return [part for group in groups for part in _decide(group, index)]


def _places(groups: Sequence[Group]) -> Iterator[tuple[int, Group]]:
    """Standard competition ranking: a group of k tied players uses up k places."""
    place = 1
    for group in groups:
        yield place, group
        place += len(group)


def rank_players(
    records: Sequence[PlayerRecord],
    *,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    decisions: Sequence[Decision] = (),
) -> list[Ranked]:
    """Rank by total, lowest first, then each tie-break rule in order, then the officials'
    decisions; players still level share the place. Sorted by rank, then player id."""
    unknown = [name for name in tiebreaks if name not in TIEBREAK_RULES]
    if unknown:
        raise ValueError(
            f"Unknown tie-break rule {unknown[0]!r}; known rules: " + ", ".join(TIEBREAK_RULES)
        )
    counts = Counter(record.player_id for record in records)
    repeated = [player_id for player_id, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"Player {repeated[0]} has more than one record")
    rules = [TIEBREAK_RULES[name] for name in tiebreaks]
    index = _index_decisions(decisions)

    by_table: dict[int, list[PlayerRecord]] = defaultdict(list)
    for record in records:
        if record.table is not None:
            by_table[record.table].append(record)
    table_places: dict[int, tuple[int, bool]] = {}
    for members in by_table.values():
        for place, group in _places(_ordered_groups(members, rules, index)):
            placed = (place, len(group) > 1)
            for record in group:
                table_places[record.player_id] = placed

    ranked: list[Ranked] = []
    unseated = (None, False)
    for place, group in _places(_ordered_groups(records, rules, index)):
        tied = len(group) > 1
        if tied:
            group = sorted(group, key=attrgetter("player_id"))
        for record in group:
            table_rank, table_tied = table_places.get(record.player_id, unseated)
            ranked.append(
                Ranked(
                    record.player_id,
                    record.table,
                    place,
                    table_rank,
                    record.total,
                    record.rounds_won,
                    len(record.scores) - record.missed,
                    tied,
                    table_tied,
                )
            )
    return ranked


def advancement_ties(ranked: Sequence[Ranked], *, per_table: int) -> dict[int, list[int]]:
    """Table -> ids (ascending) of the unresolved tie that straddles the advancement line: players
    sharing a table rank r <= per_table whose group reaches past per_table places."""
    if per_table < 0:
        raise ValueError("per_table must be 0 or more")
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for row in ranked:
        if row.table is not None and row.table_rank is not None:
            groups[row.table, row.table_rank].append(row.player_id)
    return {
        table: sorted(player_ids)
        for (table, table_rank), player_ids in sorted(groups.items())
        if len(player_ids) > 1 and table_rank <= per_table < table_rank + len(player_ids) - 1
    }


# --------------------------------------------------------------------------------------------
# Late entries


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


# --------------------------------------------------------------------------------------------
# Validation of one round result


@dataclass(frozen=True)
class ScoreLine:
    player_id: int
    pips: object  # raw input: int, digit string, or anything a form or a CSV file may send
    went_out: bool = False


# Officials read these on the tablet and in the CSV import: lazy, so each request gets its own
# language; validate_round turns them into plain strings.
PIPS_MESSAGE = gettext_lazy("Enter a whole number of pips, 0 or more")
WENT_OUT_MESSAGE = gettext_lazy("Mark went out as yes or no")
WENT_OUT_SCORES_ZERO = gettext_lazy("A player who went out scores 0")
NOBODY_WENT_OUT = gettext_lazy(
    "Nobody is marked as went out: mark the player who went out, or mark the round as blocked"
)
BLOCKED_WENT_OUT = gettext_lazy("The round was blocked, so nobody can be marked as went out")

# "Two players are marked as went out": counts of players, spelled out up to twelve.
_NUMBER_WORDS = {
    2: pgettext_lazy("number of players", "two"),
    3: pgettext_lazy("number of players", "three"),
    4: pgettext_lazy("number of players", "four"),
    5: pgettext_lazy("number of players", "five"),
    6: pgettext_lazy("number of players", "six"),
    7: pgettext_lazy("number of players", "seven"),
    8: pgettext_lazy("number of players", "eight"),
    9: pgettext_lazy("number of players", "nine"),
    10: pgettext_lazy("number of players", "ten"),
    11: pgettext_lazy("number of players", "eleven"),
    12: pgettext_lazy("number of players", "twelve"),
}


def _number_word(n: int) -> str:
    return str(_NUMBER_WORDS.get(n, n))


def _grouped(n: int) -> str:
    # Thousands grouped as the active language writes them: "1,100" in English. Outside any
    # language (translations deactivated) Django would not group at all, so group as English.
    if get_language() is None:
        return f"{n:,}"
    return formats.number_format(n, force_grouping=True)


def _listed(name: str, n: int) -> str:
    if n == 2:
        return gettext("%(name)s is listed twice") % {"name": name}
    return gettext("%(name)s is listed %(count)s times") % {"name": name, "count": _number_word(n)}


def parse_pips(value: object) -> int | None:
    """The pips in raw input as an int, or None unless it is a whole number, 0 or more.
    Accepts ints, digit strings (surrounding spaces ignored) and whole floats; never a bool."""
    if isinstance(value, bool):  # True would otherwise pass as 1
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float | Decimal):
        if not math.isfinite(value) or value != int(value):
            return None
        number = int(value)
    elif isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()):
            return None
        try:
            number = int(text)
        except ValueError:  # longer than Python's int/str conversion limit
            return None
    else:
        return None
    return number if number >= 0 else None


def validate_round(
    *,
    seated: Mapping[int, str],
    lines: Sequence[ScoreLine],
    blocked: bool,
    domino_set: int,
    engine: int,
) -> dict[str, list[str]]:
    """Every problem with one table's result for one round, as messages keyed "scores",
    "scores.<player_id>", "blocked" or "non_field_errors"; {} when the result is valid."""
    limit = max_round_total(domino_set, engine)
    over = {"set": domino_set, "engine": engine, "limit": _grouped(limit)}
    errors: dict[str, list[str]] = {}

    def add(key: str, message: str) -> None:
        errors.setdefault(key, []).append(message)

    counts = Counter(line.player_id for line in lines)
    for player_id, n in counts.items():
        if player_id not in seated:
            add(
                f"scores.{player_id}",
                gettext("Player %(id)s is not seated at this table") % {"id": player_id},
            )
        elif n > 1:
            add(f"scores.{player_id}", _listed(seated[player_id], n))
    for player_id, name in seated.items():
        if player_id not in counts:
            add(f"scores.{player_id}", gettext("No score for %(name)s") % {"name": name})

    # A player listed twice is already an error; judge the first line only, not both.
    first_lines: dict[int, ScoreLine] = {}
    for line in lines:
        if line.player_id in seated:
            first_lines.setdefault(line.player_id, line)

    pips: dict[int, int] = {}
    went_out: list[int] = []
    over_limit = False
    for player_id, line in first_lines.items():
        key, name = f"scores.{player_id}", seated[player_id]
        if not isinstance(line.went_out, bool):
            add(key, str(WENT_OUT_MESSAGE))
        elif line.went_out:
            went_out.append(player_id)
        number = parse_pips(line.pips)
        if number is None:
            add(key, str(PIPS_MESSAGE))
            continue
        pips[player_id] = number
        if number > limit:
            over_limit = True
            add(
                key,
                gettext(
                    "%(name)s's %(pips)s is more than a double-%(set)s set holds in a round with "
                    "the %(engine)s engine (%(limit)s)"
                )
                % {"name": name, "pips": _grouped(number), **over},
            )

    if blocked:
        # Blocked: nobody could play and the boneyard is empty, so nobody went out.
        if went_out:
            add("blocked", str(BLOCKED_WENT_OUT))
    else:
        if not went_out:
            add("non_field_errors", str(NOBODY_WENT_OUT))
        elif len(went_out) > 1:
            add(
                "scores",
                gettext(
                    "%(count)s players are marked as went out: only one player can go out in a "
                    "round"
                )
                % {"count": _number_word(len(went_out)).capitalize()},
            )
        for player_id in went_out:
            if pips.get(player_id, 0) > 0:
                add(f"scores.{player_id}", str(WENT_OUT_SCORES_ZERO))

    total = sum(pips.values())
    if total > limit and not over_limit:  # one score over the limit already says it
        add(
            "scores",
            gettext(
                "Total %(total)s is more than a double-%(set)s set holds in a round with the "
                "%(engine)s engine (%(limit)s)"
            )
            % {"total": _grouped(total), **over},
        )
    return errors
