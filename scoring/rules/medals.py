"""Places within a division and the medals they win: pure rules, no database.

Every player is placed overall (scoring.services.closing.decide_placings). Within a division the
players keep the order of their overall places, and are placed among themselves by competition
ranking: two tied on a place share it and the next place is skipped (1, 2, 2, 4). The players of no
division are one group of their own, so in a tournament without divisions the place in the group is
the overall place. Places 1, 2 and 3 in a group win gold, silver and bronze (two tied second both
win silver, and nobody bronze). A player who withdrew is placed overall but in no group, so wins no
medal (scoring.services.closing.decide_placings leaves them out).
"""

from collections.abc import Hashable, Iterable

from django.utils.translation import pgettext_lazy

MEDALS = {1: "gold", 2: "silver", 3: "bronze"}
MEDAL_NAMES = {
    "gold": pgettext_lazy("medal", "Gold"),
    "silver": pgettext_lazy("medal", "Silver"),
    "bronze": pgettext_lazy("medal", "Bronze"),
}


def places_in_groups(placed: Iterable[tuple[Hashable, int, Hashable]]) -> dict[Hashable, int]:
    """{player: place in their group} from (player, overall place, group) for everyone placed;
    a group is a division's key, or None for the players of no division."""
    seen: dict[Hashable, int] = {}  # players of each group placed so far
    last: dict[Hashable, tuple[int, int]] = {}  # each group's last overall place, and its place
    places = {}
    for player, place, group in sorted(placed, key=lambda item: item[1]):
        before = seen.get(group, 0)
        if group in last and last[group][0] == place:
            places[player] = last[group][1]  # tied overall: tied in the group too
        else:
            places[player] = before + 1
            last[group] = (place, before + 1)
        seen[group] = before + 1
    return places


def medal(place_in_group: int | None) -> str | None:
    """ "gold", "silver" or "bronze" for places 1 to 3 in a group, else None."""
    return MEDALS.get(place_in_group) if place_in_group is not None else None


class Medalled:
    """The medal of something with a `division_place` (a stored placing, a placed player on the
    results page): the first three of the division win gold, silver and bronze."""

    @property
    def medal(self) -> str | None:
        """ "gold", "silver" or "bronze", else None."""
        return medal(self.division_place)  # type: ignore[attr-defined]

    @property
    def medal_name(self) -> str:
        return str(MEDAL_NAMES[self.medal]) if self.medal else ""
