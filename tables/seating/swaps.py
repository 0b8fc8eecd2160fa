"""A seating being improved by swapping players between tables (players are indexes 0..n-1):
where each sits, the households at each table, and what a swap would change."""

from __future__ import annotations

from dataclasses import dataclass

NO_HOUSEHOLD = -1


@dataclass
class Arrangement:
    """Mutable state the local searches share; `swap` keeps every field consistent."""

    table_of: list[int]  # table index of each player
    seated: list[list[int]]  # players at each table
    count: list[dict[int, int]]  # count[t][h]: members of household h at table t
    household: list[int]  # each player's household index, NO_HOUSEHOLD for none
    mates: list[set[int]]  # each player's previous tablemates

    @classmethod
    def of(
        cls, table_of: list[int], tables: int, household: list[int], mates: list[set[int]]
    ) -> Arrangement:
        seated: list[list[int]] = [[] for _ in range(tables)]
        for i, table in enumerate(table_of):
            seated[table].append(i)
        # Households of one never conflict, but counting them is harmless.
        count: list[dict[int, int]] = [{} for _ in range(tables)]
        for i, table in enumerate(table_of):
            if household[i] != NO_HOUSEHOLD:
                count[table][household[i]] = count[table].get(household[i], 0) + 1
        return cls(table_of, seated, count, household, mates)

    def repeats_at(self, player: int, table: int) -> int:
        """Previous tablemates of `player` sitting at `table`."""
        return sum(1 for mate in self.mates[player] if self.table_of[mate] == table)

    def household_delta(self, a: int, b: int) -> int:
        """Change in household clashes if a and b swapped tables (positive is worse)."""
        # Clashes are same-household pairs at a table, so an oversized household stays evenly
        # spread too: a swap may not move one of its members to where more of them sit.
        ha, hb = self.household[a], self.household[b]
        if ha == hb:
            return 0
        ta, tb = self.table_of[a], self.table_of[b]
        delta = 0
        if ha != NO_HOUSEHOLD:
            delta += self.count[tb].get(ha, 0) - (self.count[ta][ha] - 1)
        if hb != NO_HOUSEHOLD:
            delta += self.count[ta].get(hb, 0) - (self.count[tb][hb] - 1)
        return delta

    def repeat_delta(self, a: int, b: int) -> int:
        """Change in repeat pairs if a and b swapped tables (positive is worse)."""
        ta, tb = self.table_of[a], self.table_of[b]
        if ta == tb:
            return 0
        known = 1 if b in self.mates[a] else 0
        return (
            self.repeats_at(a, tb)
            + self.repeats_at(b, ta)
            - 2 * known
            - self.repeats_at(a, ta)
            - self.repeats_at(b, tb)
        )

    def swap(self, a: int, b: int) -> None:
        ta, tb = self.table_of[a], self.table_of[b]
        self.seated[ta][self.seated[ta].index(a)] = b
        self.seated[tb][self.seated[tb].index(b)] = a
        self.table_of[a], self.table_of[b] = tb, ta
        for player, old, new in ((a, ta, tb), (b, tb, ta)):
            h = self.household[player]
            if h != NO_HOUSEHOLD:
                self.count[old][h] -= 1
                self.count[new][h] = self.count[new].get(h, 0) + 1

    def repeat_pairs(self) -> int:
        n = len(self.table_of)
        return sum(
            1
            for a in range(n)
            for b in self.mates[a]
            if a < b and self.table_of[a] == self.table_of[b]
        )
