"""What the standings say to people: an unresolved tie, a note beside a player."""

from typing import Any

from django.utils.translation import gettext as _

from scoring.standings.records import SeatFacts


def tie_message(flag: dict[str, Any]) -> str:
    """What an unresolved tie asks of the officials, in the active language."""
    names = flag["names"][0]
    for name in flag["names"][1:]:
        names = _("%(names)s and %(name)s") % {"names": names, "name": name}
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
