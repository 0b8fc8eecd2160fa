"""The ranking of a stage's players: lowest total first, then the tournament's tie-break rules
in order (most rounds won, countback), then the officials' decisions (docs/DESIGN.md)."""

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby, pairwise
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from scoring.choices import DecisionMethod
from tournaments.choices import DEFAULT_TIEBREAKS, Tiebreak


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
    # How a tie-break rule or a decision put this player ahead of, or behind, the players next
    # to them on the same total, overall and at their table.
    separations: tuple["Separation", ...] = ()


class Separation(NamedTuple):
    """How the players on one side of a place were separated from those on the other side when
    their totals were equal, from one player's side: `ahead` of `players` (or `behind` them) on
    `rule`: rounds won (`mine` against `theirs`), countback (`mine` against `theirs` pips in
    `round`, the last round that differed among those the group shared), or an officials'
    decision (`method`). `scope` is "overall", or "table" where the table's order differs."""

    scope: str
    side: str
    players: tuple[int, ...]
    rule: str
    mine: int | None = None
    theirs: int | None = None
    round: int | None = None
    method: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """As the snapshot stores it and the API gives it: the fields that apply."""
        fields = {name: value for name, value in self._asdict().items() if value is not None}
        fields["players"] = list(self.players)
        return fields


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


# Why a group stands behind the group before it on the same total: the rule that split them and
# what it compared (countback's rounds, a decision's method); None between different totals.
Reason = tuple[str, Any] | None
Ordered = list[tuple[Group, Reason]]


def _refine(group: Group, name: str, rule: TiebreakRule, context: Any = None) -> Ordered:
    """Split a level group by a rule, and each part again until the rule separates no one more."""
    if rule.context is None:
        parts = _split(group, rule.key(None))
        return [(part, (name, None) if i else None) for i, part in enumerate(parts)]
    if context is None:
        context = rule.context(group)
    parts = _split(group, rule.key(context))
    if len(parts) == 1:
        return [(parts[0], None)]
    refined: Ordered = []
    for i, part in enumerate(parts):
        reason = (name, context) if i else None
        own = rule.context(part) if len(part) > 1 else context
        if own == context:  # the same key again (or one player): split no further
            refined.append((part, reason))
        else:
            (first, _), *rest = _refine(part, name, rule, own)
            refined += [(first, reason), *rest]
    return refined


DecisionIndex = dict[int, list[tuple[dict[int, int], str]]]  # player id -> (positions, method)


def _index_decisions(decisions: Sequence[Decision]) -> DecisionIndex:
    index: DecisionIndex = defaultdict(list)
    for decision in decisions:
        position = {player_id: place for place, player_id in enumerate(decision.order)}
        for player_id in decision.order:
            index[player_id].append((position, decision.method))
    return index


def _decide(group: Group, index: DecisionIndex) -> Ordered:
    # A decision covers a tie when it names every tied player: the exact group, or a superset
    # (made when more players were tied, before a correction; its relative order still holds).
    # One naming only some of the tied players cannot place them among the rest, so the tie stays.
    # The latest covering decision wins.
    if len(group) < 2:
        return [(group, None)]
    for position, method in reversed(index.get(group[0].player_id, ())):
        if all(record.player_id in position for record in group):
            ordered = sorted(group, key=lambda r: position[r.player_id])
            return [
                ([record], ("decision", method) if i else None) for i, record in enumerate(ordered)
            ]
    return [(group, None)]


def _ordered_groups(
    records: Sequence[PlayerRecord], rules: Sequence[tuple[str, TiebreakRule]], index: DecisionIndex
) -> Ordered:
    groups: Ordered = [(group, None) for group in _split(records, _total)]
    if len(groups) == len(records):  # no two totals equal (most tables): nothing to break
        return groups
    for name, rule in rules:
        groups = _within(groups, lambda group: _refine(group, name, rule))  # noqa: B023
    return _within(groups, lambda group: _decide(group, index))


def _within(groups: Ordered, split: Callable[[Group], Ordered]) -> Ordered:
    """Each level group split further; its first part keeps the reason the group had."""
    ordered: Ordered = []
    for group, reason in groups:
        if len(group) < 2:
            ordered.append((group, reason))
            continue
        (first, _), *rest = split(group)
        ordered += [(first, reason), *rest]
    return ordered


def _separations(ordered: Ordered, scope: str) -> dict[int, list[Separation]]:
    """For each pair of neighbouring groups a tie-break split, both sides' Separation."""
    found: dict[int, list[Separation]] = defaultdict(list)
    for (above, _), (below, reason) in pairwise(ordered):
        if reason is None:
            continue
        rule, context = reason
        a, b = above[0], below[0]  # each group is level on what was compared: one speaks for all
        mine = theirs = round_no = method = None
        if rule == "decision":
            method = context
        elif rule == Tiebreak.ROUNDS_WON:
            mine, theirs = a.rounds_won, b.rounds_won
        else:  # countback: the last of the compared rounds in which they differ
            round_no = next(n for n in context if a.scores[n] != b.scores[n])
            mine, theirs = a.scores[round_no], b.scores[round_no]
        ahead_of = tuple(sorted(record.player_id for record in below))
        behind = tuple(sorted(record.player_id for record in above))
        for record in above:
            found[record.player_id].append(
                Separation(scope, "ahead", ahead_of, rule, mine, theirs, round_no, method)
            )
        for record in below:
            found[record.player_id].append(
                Separation(scope, "behind", behind, rule, theirs, mine, round_no, method)
            )
    return found


def _places(groups: Ordered) -> Iterator[tuple[int, Group]]:
    """Standard competition ranking: a group of k tied players uses up k places."""
    place = 1
    for group, _ in groups:
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
    rules = [(str(name), TIEBREAK_RULES[name]) for name in tiebreaks]
    index = _index_decisions(decisions)

    by_table: dict[int, list[PlayerRecord]] = defaultdict(list)
    for record in records:
        if record.table is not None:
            by_table[record.table].append(record)
    table_places: dict[int, tuple[int, bool]] = {}
    at_table: dict[int, list[Separation]] = {}
    for members in by_table.values():
        ordered = _ordered_groups(members, rules, index)
        for place, group in _places(ordered):
            placed = (place, len(group) > 1)
            for record in group:
                table_places[record.player_id] = placed
        at_table.update(_separations(ordered, "table"))

    ranked: list[Ranked] = []
    unseated = (None, False)
    ordered = _ordered_groups(records, rules, index)
    overall = _separations(ordered, "overall")
    for place, group in _places(ordered):
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
                    _explained(overall.get(record.player_id), at_table.get(record.player_id)),
                )
            )
    return ranked


def _explained(
    overall: list[Separation] | None, at_table: list[Separation] | None
) -> tuple[Separation, ...]:
    """A player's separations overall, then those at their table that say something else (at a
    table of players alone on their total overall, the two are the same)."""
    if not at_table:
        return tuple(overall or ())
    said = {(s.side, s.players, s.rule) for s in overall or ()}
    return (*(overall or ()), *(s for s in at_table if (s.side, s.players, s.rule) not in said))
