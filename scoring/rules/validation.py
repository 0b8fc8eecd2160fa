"""The validation of one round result: the pips, who went out, and a blocked round
(docs/DESIGN.md)."""

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.utils import formats
from django.utils.translation import get_language, gettext, gettext_lazy, pgettext_lazy

from tournaments.presets import max_round_total


@dataclass(frozen=True)
class ScoreLine:
    player_id: int
    pips: object  # raw input: int, digit string, or anything a form or a CSV file may send
    went_out: bool = False
    # The official confirmed an unusual score as it is (plausibility.py): stored with its warning.
    checked: bool = False


# Officials read these on the tablet and in the CSV import: lazy, so each request gets its own
# language; validate_round turns them into plain strings.
PIPS_MESSAGE = gettext_lazy("Enter a whole number of pips, 0 or more")
# A score left blank is missing, not mistyped: said so, with what to enter for who went out.
MISSING_PIPS = gettext_lazy("Enter this player's pips (0 if they went out)")
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


grouped = _grouped  # the other rules' messages write numbers the same way


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
            blank = line.pips is None or (isinstance(line.pips, str) and not line.pips.strip())
            add(key, str(MISSING_PIPS if blank else PIPS_MESSAGE))
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
