"""A season's ladder, no ORM: the club's members ranked by the season's rule, with every tie
explained.

Vocabulary: the season counts *events* (its tournaments, in playing order); an *entrant* is a
member with what they *played* in each event (their place, None when the event placed them
nowhere, and their confirmed rounds and pips). A *rule* is one of:

- points: each event's place scores points_table[place - 1] (a place beyond the table scores
  0); the ladder ranks the season's points, highest first;
- best_n: the same, but only each member's best N events count (the *counted* events);
- average: the season's pips per round played, lowest first; a member with fewer than
  min_rounds rounds is listed after the ranked ones, not ranked.

Places. An event's place is the member's place among the *members* who played it (the rule's
`places` MEMBERS: guests, players linked to nobody, are left out, as the ratings leave them
out), or among everyone it placed (EVERYONE: the event's own placings). An event that placed a
member nowhere counts nothing for them: not in their events, rounds or pips.

Ties. Equal on the rule's value, members are separated by these tie-breaks, in order:

- points and best_n: more 1st places, then more 2nd places, and so on (in the counted events);
  then the lower average pips per round over every event played;
- average: more 1st places, then more 2nd places, and so on; then more rounds played.

Still equal, they share the place (1=, 1=, 3). Every member whose tie was broken or shared gets
notes saying how: whom they are ahead of or behind and on what, or with whom they share. Under
points and best_n, members with no points are not separated: they share the place after those
who scored, with no note (nothing was won to break a tie on; the rule's words say so).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import formats
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from scoring.results import ordinal

POINTS, BEST_N, AVERAGE = "points", "best_n", "average"
RULES = (POINTS, BEST_N, AVERAGE)
# The points a new season offers for 1st, 2nd, 3rd... place (the organiser may change them).
DEFAULT_POINTS = (10, 8, 6, 5, 4, 3, 2, 1)
# Whom a member's place in an event is counted among (see the module's docstring).
MEMBERS, EVERYONE = "members", "everyone"
PLACES = (MEMBERS, EVERYONE)

# The tie-breaks of each rule, in order (see the module's docstring).
TIE_BREAKS = {POINTS: ("places", "average"), BEST_N: ("places", "average"),
              AVERAGE: ("places", "rounds")}  # fmt: skip


@dataclass(frozen=True)
class Played:
    """One member's part in one event of the season."""

    event_id: int
    place: int | None  # None: the event placed them nowhere
    rounds: int = 0  # confirmed rounds played
    pips: int = 0  # their pips in those rounds


@dataclass(frozen=True)
class Entrant:
    member_id: int
    name: str
    played: tuple[Played, ...]


@dataclass(frozen=True)
class Rule:
    kind: str
    events: tuple[int, ...]  # the season's event ids, in playing order: M = len(events)
    points_table: tuple[int, ...] = ()
    best_n: int | None = None
    min_rounds: int = 0
    # EVERYONE: the places as given; a season's rule says which (ladder_services.season_rule).
    places: str = EVERYONE


@dataclass
class Line:
    """A member's line in the ladder. `value` is points, or average pips per round (exact);
    `place` is None for a member not ranked (average, too few rounds)."""

    member_id: int
    name: str
    place: int | None
    shared: bool
    value: Fraction
    events: int
    counted: tuple[int, ...]
    rounds: int
    pips: int
    notes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def value_decimal(self) -> Decimal:
        """The value as stored (three decimals)."""
        return to_decimal(self.value)


def to_decimal(value: Fraction, places: int = 3) -> Decimal:
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


# ---- the rule's checks --------------------------------------------------------------------------


def check_rule(rule: Rule) -> None:
    """Refuse (ValidationError, by field) a rule the ladder cannot be built by: no events, an
    unknown rule, a points table with a negative number, best N missing, under 1 or above the
    season's M events."""
    errors: dict[str, list[str]] = {}
    if rule.kind not in RULES:
        errors["rule"] = [_("Choose a ladder rule: points, best N events or lowest average.")]
    if not rule.events:
        errors["events"] = [
            _(
                "The season counts no events yet: choose at least one of the club's tournaments "
                "for it to count."
            )
        ]
    if rule.kind in (POINTS, BEST_N):
        if not rule.points_table:
            errors["points_table"] = [
                _("Give the points for each place, 1st place first, e.g. 10, 8, 6, 5, 4, 3, 2, 1.")
            ]
        elif any(points < 0 for points in rule.points_table):
            errors["points_table"] = [_("Points cannot be negative.")]
    if rule.kind == BEST_N:
        if rule.best_n is None or rule.best_n < 1:
            errors["best_n"] = [_("Say how many events count for each member: N, 1 or more.")]
        elif rule.events and rule.best_n > len(rule.events):
            errors["best_n"] = [
                ngettext(
                    "Best %(n)s of %(m)s events: N cannot be more than the season's %(m)s event.",
                    "Best %(n)s of %(m)s events: N cannot be more than the season's %(m)s events.",
                    len(rule.events),
                )
                % {"n": rule.best_n, "m": len(rule.events)}
            ]
    if rule.places not in PLACES:
        errors["places"] = [_("Choose whom each event's places are counted among.")]
    if rule.min_rounds < 0:
        errors["min_rounds"] = [_("The minimum number of rounds cannot be negative.")]
    if errors:
        raise ValidationError(errors)


# ---- ranking -------------------------------------------------------------------------------------


@dataclass
class _Standing:
    """An entrant's figures under the rule, before places are given."""

    entrant: Entrant
    played: list[Played]
    counted: list[Played]
    primary: Fraction | None  # None: not ranked
    places: Counter = field(default_factory=Counter)

    @property
    def rounds(self) -> int:
        return sum(p.rounds for p in self.played)

    @property
    def pips(self) -> int:
        return sum(p.pips for p in self.played)

    @property
    def average(self) -> Fraction | None:
        return Fraction(self.pips, self.rounds) if self.rounds else None


def _points(place: int | None, table: Sequence[int]) -> int:
    return table[place - 1] if place is not None and 1 <= place <= len(table) else 0


def places_among_members(entrants: Iterable[Entrant]) -> list[Entrant]:
    """The entrants with each event's place given again among themselves: 1 + the number of
    entrants the event placed strictly ahead (equal places stay equal: 1, 2, 2, 4)."""
    entrants = list(entrants)
    by_event: dict[int, list[int]] = {}
    for entrant in entrants:
        for played in entrant.played:
            if played.place is not None:
                by_event.setdefault(played.event_id, []).append(played.place)
    for places in by_event.values():
        places.sort()

    def among(played: Played) -> Played:
        if played.place is None:
            return played
        return replace(played, place=bisect_left(by_event[played.event_id], played.place) + 1)

    return [replace(e, played=tuple(among(p) for p in e.played)) for e in entrants]


def _no_points(standing: _Standing, rule: Rule) -> bool:
    return rule.kind != AVERAGE and standing.primary == 0


def _standing(entrant: Entrant, rule: Rule) -> _Standing:
    order = {event_id: index for index, event_id in enumerate(rule.events)}
    # An event that placed the member nowhere is not a result of theirs: it counts nothing.
    played = sorted(
        (p for p in entrant.played if p.event_id in order and p.place is not None),
        key=lambda p: order[p.event_id],
    )
    counted = played
    if rule.kind == BEST_N:
        # The N events scoring most; between equal ones, the earlier event.
        best = sorted(
            played, key=lambda p: (-_points(p.place, rule.points_table), order[p.event_id])
        )
        chosen = {p.event_id for p in best[: rule.best_n]}
        counted = [p for p in played if p.event_id in chosen]
    standing = _Standing(entrant, played, counted, None)
    standing.places = Counter(p.place for p in counted if p.place is not None)
    if rule.kind == AVERAGE:
        enough = standing.rounds >= max(rule.min_rounds, 1)
        standing.primary = standing.average if enough else None
    else:
        standing.primary = Fraction(sum(_points(p.place, rule.points_table) for p in counted))
    return standing


def _key(standing: _Standing, rule: Rule, deepest: int) -> tuple:
    """What the ladder sorts by: the rule's value, then its tie-breaks (smaller is better). No
    points: nothing to break a tie on, all equal."""
    if _no_points(standing, rule):
        return (Fraction(0), *(None for _name in TIE_BREAKS[rule.kind]))
    places = tuple(-standing.places[place] for place in range(1, deepest + 1))
    primary = standing.primary if rule.kind == AVERAGE else -standing.primary
    breaks = {
        "places": places,
        # No rounds played: the worst average there is.
        "average": (standing.average is None, standing.average or 0),
        "rounds": -standing.rounds,
    }
    return (primary, *(breaks[name] for name in TIE_BREAKS[rule.kind]))


def rank(entrants: Iterable[Entrant], rule: Rule) -> list[Line]:
    """The ladder: the ranked lines best first (a shared place repeated), then those not ranked
    (most rounds first). Refused (check_rule) when the rule cannot be built by."""
    check_rule(rule)
    if rule.places == MEMBERS:
        entrants = places_among_members(entrants)
    standings = [_standing(entrant, rule) for entrant in entrants]
    standings = [s for s in standings if s.played]  # placed in none of the season's events
    deepest = max((max(s.places, default=0) for s in standings), default=0)
    ranked = sorted(
        (s for s in standings if s.primary is not None),
        key=lambda s: (_key(s, rule, deepest), s.entrant.name, s.entrant.member_id),
    )
    keys = [_key(s, rule, deepest) for s in ranked]
    lines: list[Line] = []
    for index, standing in enumerate(ranked):
        first = keys.index(keys[index])  # the first of those equal to it in everything
        line = _line(standing, place=first + 1)
        line.shared = keys.count(keys[index]) > 1
        line.notes = [] if _no_points(standing, rule) else _tie_notes(index, ranked, keys, rule)
        lines.append(line)
    unranked = sorted(
        (s for s in standings if s.primary is None),
        key=lambda s: (-s.rounds, s.entrant.name, s.entrant.member_id),
    )
    for standing in unranked:
        line = _line(standing, place=None)
        missing = max(rule.min_rounds, 1) - standing.rounds
        line.notes = [{"kind": "needs", "rounds": missing}]
        lines.append(line)
    return lines


def _line(standing: _Standing, *, place: int | None) -> Line:
    value = standing.primary if standing.primary is not None else standing.average or Fraction(0)
    return Line(
        member_id=standing.entrant.member_id,
        name=standing.entrant.name,
        place=place,
        shared=False,
        value=value,
        events=len(standing.played),
        counted=tuple(p.event_id for p in standing.counted),
        rounds=standing.rounds,
        pips=standing.pips,
    )


def _tie_notes(index: int, ranked: list[_Standing], keys: list[tuple], rule: Rule) -> list[dict]:
    """How the member's tie on the rule's value was broken (ahead of the next group of those
    equal on the value, behind the previous one) or shared."""
    key = keys[index]
    notes: list[dict[str, Any]] = []
    sharing = [
        ranked[i].entrant.member_id for i, other in enumerate(keys) if other == key and i != index
    ]
    first = keys.index(key)
    last = len(keys) - 1 - keys[::-1].index(key)
    if first > 0 and keys[first - 1][0] == key[0]:  # behind others equal on the value
        notes.append(_broken("behind", ranked, keys, first - 1, ranked[index], rule))
    if sharing:
        notes.append(
            {
                "kind": "shares",
                "place": first + 1,
                "members": sharing,
                "on": ["value", *TIE_BREAKS[rule.kind]],
                "rule": rule.kind,
            }
        )
    if last + 1 < len(keys) and keys[last + 1][0] == key[0]:  # ahead of others equal on it
        notes.append(_broken("ahead", ranked, keys, last + 1, ranked[index], rule))
    return notes


def _broken(how: str, ranked: list[_Standing], keys: list[tuple], at: int, me: _Standing,
            rule: Rule) -> dict[str, Any]:  # fmt: skip
    """A tie broken between `me` and the group of equals around ranked[at]: on what, and the
    figures of each side."""
    group = [ranked[i] for i, key in enumerate(keys) if key == keys[at]]
    other = group[0]
    note: dict[str, Any] = {"kind": how, "members": [s.entrant.member_id for s in group]}
    for name in TIE_BREAKS[rule.kind]:
        if name == "places":
            deepest = max([*me.places, *other.places, 0])
            for place in range(1, deepest + 1):
                if me.places[place] != other.places[place]:
                    note |= {"on": "places", "place": place,
                             "mine": me.places[place], "theirs": other.places[place]}  # fmt: skip
                    return note
        elif name == "rounds" and me.rounds != other.rounds:
            return note | {"on": "rounds", "mine": me.rounds, "theirs": other.rounds}
        elif name == "average" and me.average != other.average:
            return note | {
                "on": "average",
                "mine": _exact(me.average),
                "theirs": _exact(other.average),
            }
    raise AssertionError("a broken tie differs on a tie-break")  # pragma: no cover


def _exact(value: Fraction | None) -> str | None:
    return None if value is None else str(to_decimal(value, 4))


# ---- the notes, in the reader's language ---------------------------------------------------------

_BROKEN = {
    ("ahead", "places"): gettext_lazy(
        "Ahead of %(names)s: more %(ordinal)s places (%(mine)s to %(theirs)s)."
    ),
    ("behind", "places"): gettext_lazy(
        "Behind %(names)s: fewer %(ordinal)s places (%(mine)s to %(theirs)s)."
    ),
    ("ahead", "average"): gettext_lazy(
        "Ahead of %(names)s: lower average per round (%(mine)s to %(theirs)s)."
    ),
    ("behind", "average"): gettext_lazy(
        "Behind %(names)s: higher average per round (%(mine)s to %(theirs)s)."
    ),
    ("ahead", "rounds"): gettext_lazy(
        "Ahead of %(names)s: more rounds played (%(mine)s to %(theirs)s)."
    ),
    ("behind", "rounds"): gettext_lazy(
        "Behind %(names)s: fewer rounds played (%(mine)s to %(theirs)s)."
    ),
}


def _criterion(name: str, rule: str) -> str:
    if name == "value":
        return _("average per round") if rule == AVERAGE else _("points")
    return {
        "places": _("places"),
        "average": _("average per round"),
        "rounds": _("rounds played"),
    }[name]


def average_text(value: str | Decimal | Fraction | None, places: int = 2) -> str:
    """An average pips per round, as the reader's language writes numbers; "—" for none."""
    if value is None:
        return "—"
    number = to_decimal(value if isinstance(value, Fraction) else Fraction(Decimal(value)), places)
    return formats.number_format(number, places)


def note_text(note: dict[str, Any], names: Mapping[int, str]) -> str:
    """A note of rank() as a sentence in the active language; `names` names the members it
    speaks of (read when shown: a member erased since is named as they are now)."""
    kind = note.get("kind")
    if kind == "needs":
        count = note["rounds"]
        return ngettext(
            "Not ranked: needs %(count)s more round.",
            "Not ranked: needs %(count)s more rounds.",
            count,
        ) % {"count": count}
    others = get_text_list([names.get(m, "?") for m in note.get("members", [])], _("and"))
    if kind == "shares":
        criteria = get_text_list(
            [_criterion(name, note.get("rule", "")) for name in note["on"]], _("and")
        )
        return _("Shares %(ordinal)s place with %(names)s: equal on %(criteria)s.") % {
            "ordinal": ordinal(note["place"]), "names": others, "criteria": criteria}  # fmt: skip
    template = _BROKEN.get((kind, note.get("on")))
    if template is None:
        return ""
    mine, theirs = note["mine"], note["theirs"]
    if note["on"] == "average":
        # Two decimals, unless they hide the difference.
        places = 2 if average_text(mine) != average_text(theirs) else 4
        mine, theirs = average_text(mine, places), average_text(theirs, places)
    values = {"names": others, "mine": mine, "theirs": theirs}
    if note["on"] == "places":
        values["ordinal"] = ordinal(note["place"])
    return str(template) % values


def notes_text(notes: Iterable[dict[str, Any]], names: Mapping[int, str]) -> str:
    return " ".join(text for text in (note_text(note, names) for note in notes) if text)


def rule_words(rule: Rule) -> str:
    """The rule, and how it breaks ties, in the active language: for the ladder's readers."""
    table = ", ".join(str(points) for points in rule.points_table)
    if rule.kind == AVERAGE:
        minimum = max(rule.min_rounds, 1)
        text = ngettext(
            "Lowest average pips per round played first; a member needs %(min)s round to be "
            "ranked.",
            "Lowest average pips per round played first; a member needs %(min)s rounds to be "
            "ranked.",
            minimum,
        ) % {"min": minimum}
        ties = _(
            "Equal averages: more 1st places first, then more 2nd places and so on; then more "
            "rounds played; still equal, the place is shared."
        )
    else:
        text = _(
            "Points by place in each event: %(table)s for 1st, 2nd, 3rd… place; a place "
            "beyond them scores 0. Most points first."
        ) % {"table": table}
        if rule.kind == BEST_N:
            text += " " + ngettext(
                "Only each member's best %(n)s event of the season's %(m)s counts.",
                "Only each member's best %(n)s events of the season's %(m)s count.",
                rule.best_n or 0,
            ) % {"n": rule.best_n, "m": len(rule.events)}
        ties = _(
            "Equal points: more 1st places first, then more 2nd places and so on; then the "
            "lower average pips per round; still equal, the place is shared."
        )
        ties += " " + _("Members with no points share the place after those who scored.")
    return f"{text} {ties} {places_words(rule.places)}"


def places_words(places: str) -> str:
    """Whom an event's places are counted among, in the active language."""
    if places == MEMBERS:
        return _(
            "Each event's places are counted among the club's members who played it: guests "
            "are left out."
        )
    return _("Each event's places are its own, guests included.")
