"""What the standings say to people: an unresolved tie, a note beside a player, how a tie-break
separated players on the same total."""

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from scoring.standings.records import SeatFacts


def and_names(names: Sequence[str]) -> str:
    """The names joined with "and", in the active language: "Ann and Bo and Cy"."""
    joined = names[0]
    for name in names[1:]:
        joined = _("%(names)s and %(name)s") % {"names": joined, "name": name}
    return joined


def tie_message(flag: dict[str, Any]) -> str:
    """What an unresolved tie asks of the officials, in the active language."""
    names = and_names(flag["names"])
    if flag["table"] is None:
        return _(
            "%(names)s are tied for place %(place)s overall, which decides the last wildcard. "
            "Record a tie-break decision."
        ) % {"names": names, "place": flag["place"]}
    if flag.get("final"):
        if flag["place"] == 1:
            message = _(
                "Table %(table)s: %(names)s are tied for first place in the final, which decides "
                "the winner. Record a tie-break decision."
            )
        else:
            message = _(
                "Table %(table)s: %(names)s are tied for second place in the final. Record a "
                "tie-break decision."
            )
        return message % {"table": flag["table"], "names": names}
    return _(
        "Table %(table)s: %(names)s are tied for place %(place)s, which decides who advances. "
        "Record a tie-break decision."
    ) % {"table": flag["table"], "names": names, "place": flag["place"]}


def note(seat: SeatFacts) -> str:
    # Stored in English, like every snapshot value; scoring.public translates it for the page.
    if seat.withdrawn:
        return "withdrawn"
    if seat.from_round > 1:
        return f"joined in round {seat.from_round}"
    return ""


def note_text(note: str) -> str:
    """A stored note (see note) in the active language."""
    if note == "withdrawn":
        return _("withdrawn")
    if note.startswith("joined in round ") and note[16:].isdigit():
        return _("joined in round %(round)s") % {"round": note[16:]}
    return note


def separation_text(separation: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """How a tie-break put a player ahead of, or behind, others on the same total (a stored
    rules.Separation), in the active language: "ahead of Bo Li on rounds won, 2-1"."""
    values = {
        "names": and_names([names.get(player, f"#{player}") for player in separation["players"]]),
        "mine": separation.get("mine"),
        "theirs": separation.get("theirs"),
        "round": separation.get("round"),
    }
    ahead = separation["side"] == "ahead"
    if separation["rule"] == "rounds_won":
        if ahead:
            return _("ahead of %(names)s on rounds won, %(mine)s-%(theirs)s") % values
        return _("behind %(names)s on rounds won, %(mine)s-%(theirs)s") % values
    if separation["rule"] == "countback":
        if ahead:
            text = _(
                "ahead of %(names)s on countback: %(mine)s against %(theirs)s in round %(round)s"
            )
        else:
            text = _(
                "behind %(names)s on countback: %(mine)s against %(theirs)s in round %(round)s"
            )
        return text % values
    if separation.get("method") == "draw":
        values["how"] = _("drawing lots")
    else:
        values["how"] = _("a tie-break round")
    if ahead:
        return _("ahead of %(names)s by the officials' decision: %(how)s") % values
    return _("behind %(names)s by the officials' decision: %(how)s") % values


def explained(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The standings rows with each tie-break's text, in the active language, beside its facts."""
    names = {row["player"]["id"]: row["player"]["name"] for row in rows}
    return [
        {
            **row,
            "tiebreaks": [
                {**separation, "text": separation_text(separation, names)}
                for separation in row["tiebreaks"]
            ],
        }
        if row.get("tiebreaks")
        else row
        for row in rows
    ]
