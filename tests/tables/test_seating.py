import math
import random
import statistics
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.seating import (
    Entrant,
    NoBalancedSplit,
    Seating,
    late_entry_table,
    seat_random,
    seat_seeded,
    table_sizes,
    tablemate_pairs,
)

# ---------------------------------------------------------------- helpers (independent of seating)


def balanced_split_exists(n: int, size_min: int, size_max: int) -> bool:
    """Brute force: some number of tables gives sizes within bounds differing by at most one."""
    return any(n // t >= size_min and -(-n // t) <= size_max for t in range(1, n + 1))


def seated_pairs(tables: list[list[int]]) -> set[frozenset[int]]:
    return {frozenset((a, b)) for table in tables for a in table for b in table if a < b}


def count_repeats(tables: list[list[int]], previous: set[tuple[int, int]]) -> int:
    return len(seated_pairs(tables) & {frozenset(p) for p in previous if p[0] != p[1]})


def conflict_free_seating_exists(households: list[str], sizes: list[int]) -> bool:
    """Backtracking over every seating of small fields: can each household sit apart?"""
    free = list(sizes)
    present: list[set[str]] = [set() for _ in sizes]

    def place(i: int) -> bool:
        if i == len(households):
            return True
        for table in range(len(sizes)):
            if free[table] and households[i] not in present[table]:
                free[table] -= 1
                if households[i]:
                    present[table].add(households[i])
                if place(i + 1):
                    return True
                free[table] += 1
                present[table].discard(households[i])
        return False

    return place(0)


def partition(seating: Seating) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(table) for table in seating.tables)


@st.composite
def fields(draw: st.DrawFn, max_players: int = 60) -> tuple[list[Entrant], int, int]:
    """A field with a balanced split at the drawn bounds, some players sharing households."""
    size_min = draw(st.integers(1, 6))
    size_max = draw(st.integers(size_min, 9))
    n = draw(
        st.integers(1, max_players).filter(lambda k: balanced_split_exists(k, size_min, size_max))
    )
    ids = draw(st.lists(st.integers(1, 10_000), min_size=n, max_size=n, unique=True))
    names = ["", "", "", "Ames", "Bell", "Cruz", "Diaz", "Eng"]
    households = draw(st.lists(st.sampled_from(names), min_size=n, max_size=n))
    return [Entrant(i, h) for i, h in zip(ids, households, strict=True)], size_min, size_max


# ------------------------------------------------------------------------------------ table_sizes


def test_table_sizes_37_at_3_to_4_makes_seven_fours_and_three_threes() -> None:
    assert table_sizes(37, size_min=3, size_max=4) == [4] * 7 + [3] * 3


def test_table_sizes_10_at_3_to_4_puts_the_larger_table_first() -> None:
    assert table_sizes(10, size_min=3, size_max=4) == [4, 3, 3]


def test_table_sizes_5_at_3_to_4_says_why_and_suggests_bounds() -> None:
    with pytest.raises(NoBalancedSplit) as raised:
        table_sizes(5, size_min=3, size_max=4)
    assert str(raised.value) == (
        "5 players cannot be split into tables of 3 to 4 players with sizes differing by at "
        "most one. Try tables of 2 to 4 or 3 to 5."
    )
    assert raised.value.suggestions == [(2, 4), (3, 5)]
    assert isinstance(raised.value, ValueError)


def test_table_sizes_zero_players_says_there_is_nobody_to_seat() -> None:
    with pytest.raises(NoBalancedSplit, match="no players to seat") as raised:
        table_sizes(0, size_min=3, size_max=4)
    assert raised.value.suggestions == []


def test_table_sizes_fewer_players_than_the_minimum_suggests_a_smaller_minimum() -> None:
    with pytest.raises(NoBalancedSplit, match=r"^2 players cannot") as raised:
        table_sizes(2, size_min=3, size_max=4)
    assert raised.value.suggestions == [(2, 4)]


@pytest.mark.parametrize(("size_min", "size_max"), [(0, 4), (5, 4), (-1, 2)])
def test_table_sizes_rejects_nonsense_bounds(size_min: int, size_max: int) -> None:
    with pytest.raises(ValueError, match=r"bounds .* are invalid"):
        table_sizes(12, size_min=size_min, size_max=size_max)


@given(st.integers(1, 400), st.integers(1, 12), st.integers(0, 12))
def test_table_sizes_is_balanced_with_fewest_tables_or_no_split_exists(
    n: int, size_min: int, spread: int
) -> None:
    size_max = size_min + spread
    try:
        sizes = table_sizes(n, size_min=size_min, size_max=size_max)
    except NoBalancedSplit as error:
        assert not balanced_split_exists(n, size_min, size_max)
        assert error.suggestions
        for low, high in error.suggestions:
            assert f"{low} to {high}" in str(error)
            assert sum(table_sizes(n, size_min=low, size_max=high)) == n
        # Nearest: nothing between the suggestion and the requested bound works either.
        low, high = error.suggestions[0]
        assert high == size_max and low < size_min
        assert not any(balanced_split_exists(n, m, size_max) for m in range(low + 1, size_min))
        if len(error.suggestions) == 2:
            low, high = error.suggestions[1]
            assert low == size_min and high > size_max
            assert not any(balanced_split_exists(n, size_min, m) for m in range(size_max, high))
        return
    assert balanced_split_exists(n, size_min, size_max)
    assert sum(sizes) == n
    assert len(sizes) == math.ceil(n / size_max)
    assert all(size_min <= size <= size_max for size in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)


# ------------------------------------------------------------------------------------ seat_random


@settings(max_examples=200)
@given(fields(), st.integers(0, 2**32))
def test_seat_random_seats_everyone_once_in_balanced_tables(
    field: tuple[list[Entrant], int, int], seed: int
) -> None:
    entrants, size_min, size_max = field
    seating = seat_random(entrants, size_min=size_min, size_max=size_max, seed=seed)
    seated = [player for table in seating.tables for player in table]
    assert sorted(seated) == sorted(e.id for e in entrants)
    assert [len(table) for table in seating.tables] == table_sizes(
        len(entrants), size_min=size_min, size_max=size_max
    )
    assert seating.seed == seed
    assert seating.repeat_pairs == 0


@settings(max_examples=200)
@given(fields(), st.integers(0, 2**32), st.data())
def test_seat_random_keeps_households_apart_whenever_no_household_outnumbers_the_tables(
    field: tuple[list[Entrant], int, int], seed: int, data: st.DataObject
) -> None:
    # Why that condition: a household with more members than tables must put two at one table
    # (pigeonhole); one with at most that many can always sit apart (dealing each household's
    # members round the tables in turn does it), and seat_random must find such a seating.
    entrants, size_min, size_max = field
    ids = [e.id for e in entrants]
    previous = set(data.draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)))))
    seating = seat_random(
        entrants, size_min=size_min, size_max=size_max, seed=seed, previous_tablemates=previous
    )
    tables = len(seating.tables)
    household_of = {e.id: e.household for e in entrants}
    sizes = Counter(e.household for e in entrants if e.household)
    conflicts = sorted(
        (index, household)
        for index, table in enumerate(seating.tables)
        for household, count in Counter(household_of[p] for p in table if household_of[p]).items()
        if count > 1
    )
    assert seating.household_conflicts == conflicts
    # Every household is spread as evenly as it can be: apart whenever it fits.
    for index, table in enumerate(seating.tables):
        at_table = Counter(household_of[p] for p in table if household_of[p])
        for household, count in at_table.items():
            assert count <= math.ceil(sizes[household] / tables), (index, household)
    oversized = [h for h, size in sizes.items() if size > tables]
    assert (conflicts == []) == (oversized == [])
    for household in oversized:
        assert any(f"Household “{household}” has" in str(w) for w in seating.warnings)
    assert seating.repeat_pairs == count_repeats(seating.tables, previous)
    assert (seating.repeat_pairs > 0) == any(
        "previous tablemates" in str(w) for w in seating.warnings
    )


@settings(max_examples=150)
@given(fields(max_players=9), st.integers(0, 2**32))
def test_seat_random_has_household_conflicts_only_when_no_seating_avoids_them(
    field: tuple[list[Entrant], int, int], seed: int
) -> None:
    entrants, size_min, size_max = field
    seating = seat_random(entrants, size_min=size_min, size_max=size_max, seed=seed)
    sizes = [len(table) for table in seating.tables]
    households = [e.household for e in entrants]
    assert (seating.household_conflicts == []) == conflict_free_seating_exists(households, sizes)


@given(fields(), st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_seat_random_same_seed_gives_the_same_seating_whatever_the_entrant_order(
    field: tuple[list[Entrant], int, int], seed: int, shuffler: random.Random
) -> None:
    entrants, size_min, size_max = field
    previous = tablemate_pairs([[e.id for e in entrants[:5]]])
    first = seat_random(
        entrants, size_min=size_min, size_max=size_max, seed=seed, previous_tablemates=previous
    )
    reordered = list(entrants)
    shuffler.shuffle(reordered)
    again = seat_random(
        reordered, size_min=size_min, size_max=size_max, seed=seed, previous_tablemates=previous
    )
    assert again == first


def test_seat_random_different_seeds_give_different_seatings() -> None:
    entrants = [Entrant(i, f"house{i % 7}" if i % 3 == 0 else "") for i in range(1, 41)]
    seatings = [seat_random(entrants, size_min=3, size_max=4, seed=seed) for seed in range(20)]
    assert len({partition(s) for s in seatings}) == 20
    # Seat order within a table is random too, not just the grouping.
    assert len({tuple(s.tables[0]) for s in seatings}) > 15


def test_seat_random_warns_about_a_household_bigger_than_the_number_of_tables() -> None:
    entrants = [Entrant(i, "Okafor" if i <= 3 else "") for i in range(1, 9)]
    seating = seat_random(entrants, size_min=4, size_max=4, seed=7)
    assert len(seating.tables) == 2
    assert [str(warning) for warning in seating.warnings] == [
        "Household “Okafor” has 3 players but there are only 2 tables, "
        "so some of them must share a table."
    ]
    together = [index for index, table in enumerate(seating.tables) if {1, 2, 3} & set(table)]
    assert seating.household_conflicts in ([(0, "Okafor")], [(1, "Okafor")])
    assert together == [0, 1]  # still spread: two at one table, one at the other


def test_seat_random_takes_a_household_spelled_with_other_case_or_spaces_as_the_same() -> None:
    spellings = {1: "Smith", 2: "smith", 3: " SMITH ", 4: "Smith  "}
    entrants = [Entrant(i, spellings.get(i, "")) for i in range(1, 17)]
    for seed in range(10):
        seating = seat_random(entrants, size_min=4, size_max=4, seed=seed)
        tables_of_smiths = [t for t in seating.tables if {1, 2, 3, 4} & set(t)]
        assert len(tables_of_smiths) == 4, seating.tables  # one Smith at each of the 4 tables
    crowded = seat_random(entrants[:8], size_min=4, size_max=4, seed=1)  # 4 Smiths, 2 tables
    assert [str(warning) for warning in crowded.warnings] == [
        "Household “Smith” has 4 players but there are only 2 tables, "
        "so some of them must share a table."
    ]
    assert [name for _, name in crowded.household_conflicts] == ["Smith", "Smith"]


def test_seat_random_counts_and_explains_repeats_it_cannot_avoid() -> None:
    entrants = [Entrant(i) for i in range(1, 5)]
    previous = [(1, 2), (3, 2), (4, 1), (4, 99)]  # any order; 99 is not in this stage
    seating = seat_random(entrants, size_min=4, size_max=4, seed=1, previous_tablemates=previous)
    assert seating.repeat_pairs == 3
    assert [str(warning) for warning in seating.warnings] == [
        "3 pairs of previous tablemates share a table again: Roundhouse could not separate them "
        "without seating members of a household together."
    ]


def test_seat_random_explains_a_single_unavoidable_repeat_in_the_singular() -> None:
    seating = seat_random(
        [Entrant(1), Entrant(2)], size_min=2, size_max=2, seed=3, previous_tablemates=[(2, 1)]
    )
    assert seating.repeat_pairs == 1
    assert str(seating.warnings[0]).startswith("1 pair of previous tablemates shares a table again")


def test_seat_random_separates_previous_tablemates_when_it_can() -> None:
    entrants = [Entrant(i) for i in range(1, 9)]
    previous = tablemate_pairs([[1, 2, 3, 4], [5, 6, 7, 8]])
    for seed in range(20):
        seating = seat_random(
            entrants, size_min=4, size_max=4, seed=seed, previous_tablemates=previous
        )
        # Best is two from each old table at each new table: one repeat pair per old pair of
        # pairs, 4 in all (a 3-1 split repeats 6, a plain shuffle often does that).
        assert seating.repeat_pairs == 4 == count_repeats(seating.tables, previous)


def test_seat_random_does_not_trade_household_separation_for_fewer_repeats() -> None:
    # Only {1, 2} + {3, 4} avoids every repeat, and it seats the Lund household together.
    entrants = [Entrant(1, "Lund"), Entrant(2, "Lund"), Entrant(3), Entrant(4)]
    previous = [(1, 3), (1, 4), (2, 3), (2, 4)]
    for seed in range(20):
        seating = seat_random(
            entrants, size_min=2, size_max=2, seed=seed, previous_tablemates=previous
        )
        assert seating.household_conflicts == []
        assert seating.repeat_pairs == 2


def test_seat_random_rejects_a_player_entered_twice() -> None:
    with pytest.raises(ValueError, match="more than once: 2"):
        seat_random([Entrant(1), Entrant(2), Entrant(2)], size_min=1, size_max=3, seed=0)


def test_seat_random_without_a_balanced_split_raises_no_balanced_split() -> None:
    with pytest.raises(NoBalancedSplit, match="Try tables of 2 to 4 or 3 to 5"):
        seat_random([Entrant(i) for i in range(5)], size_min=3, size_max=4, seed=0)


def test_seat_random_second_stage_repeats_fewer_tablemates_than_a_plain_shuffle() -> None:
    # Compared: the mean number of repeat pairs over 20 seeds, for 40 players at tables of 4,
    # of seat_random with the first stage's tablemates against shuffling the same field with
    # random.Random(seed) and cutting it into the same table sizes. A plain shuffle repeats
    # about 60 pairs x 3/39 = 4.6 pairs on average (4.5 here); seat_random averaged 0.
    entrants = [Entrant(i, f"house{i // 10}" if i % 5 == 0 else "") for i in range(1, 41)]
    ids = [e.id for e in entrants]
    sizes = table_sizes(40, size_min=4, size_max=4)
    smart, plain = [], []
    for seed in range(20):
        first = seat_random(entrants, size_min=4, size_max=4, seed=seed)
        previous = tablemate_pairs(first.tables)
        second = seat_random(
            entrants, size_min=4, size_max=4, seed=1000 + seed, previous_tablemates=previous
        )
        assert second.repeat_pairs == count_repeats(second.tables, previous)
        smart.append(second.repeat_pairs)
        shuffled = list(ids)
        random.Random(1000 + seed).shuffle(shuffled)
        starts = [sum(sizes[:k]) for k in range(len(sizes))]
        cut = [shuffled[start : start + size] for start, size in zip(starts, sizes, strict=True)]
        plain.append(count_repeats(cut, previous))
    assert statistics.mean(plain) > 2
    assert statistics.mean(smart) <= statistics.mean(plain) / 4
    assert max(smart) <= 1


# ------------------------------------------------------------------------------------ seat_seeded


def test_seat_seeded_deals_ranks_in_snake_order() -> None:
    # Ids deliberately out of rank order: placement follows rank, seats list ids.
    entrants = [Entrant(100 - rank, rank=rank) for rank in range(1, 13)]
    seating = seat_seeded(entrants, size_min=3, size_max=4)
    ranks = [[100 - player for player in table] for table in seating.tables]
    assert ranks == [[1, 6, 7, 12], [2, 5, 8, 11], [3, 4, 9, 10]]
    assert seating.seed is None
    assert seating.repeat_pairs == 0
    assert seating.warnings == []


def test_seat_seeded_gives_the_partial_last_row_to_the_larger_tables() -> None:
    entrants = [Entrant(rank, rank=rank) for rank in range(1, 11)]
    seating = seat_seeded(entrants, size_min=3, size_max=4)
    assert seating.tables == [[1, 6, 7, 10], [2, 5, 8], [3, 4, 9]]


def test_seat_seeded_breaks_rank_ties_by_id() -> None:
    entrants = [Entrant(9, rank=1), Entrant(4, rank=2), Entrant(3, rank=2), Entrant(1, rank=3)]
    seating = seat_seeded(entrants, size_min=2, size_max=2)
    assert seating.tables == [[9, 1], [3, 4]]


def test_seat_seeded_seats_unranked_players_last_and_says_so() -> None:
    entrants = [Entrant(8), Entrant(5), Entrant(2, rank=2), Entrant(7, rank=1)]
    seating = seat_seeded(entrants, size_min=2, size_max=2)
    assert seating.tables == [[7, 8], [2, 5]]
    assert [str(w) for w in seating.warnings] == [
        "2 players had no rank from the earlier stage and were seated last: 5, 8."
    ]


def test_seat_seeded_does_not_move_households_but_reports_them() -> None:
    entrants = [Entrant(1, "Ng", rank=1), Entrant(2, rank=2), Entrant(3, "Ng", rank=3)]
    seating = seat_seeded(entrants, size_min=1, size_max=3)
    assert seating.tables == [[1, 2, 3]]
    assert seating.household_conflicts == [(0, "Ng")]


@given(fields(max_players=80), st.randoms(use_true_random=False))
def test_seat_seeded_spreads_the_best_ranks_across_tables(
    field: tuple[list[Entrant], int, int], shuffler: random.Random
) -> None:
    entrants, size_min, size_max = field
    ranks = list(range(1, len(entrants) + 1))
    shuffler.shuffle(ranks)
    ranked = [Entrant(e.id, e.household, rank) for e, rank in zip(entrants, ranks, strict=True)]
    rank_of = {e.id: e.rank for e in ranked}
    seating = seat_seeded(ranked, size_min=size_min, size_max=size_max)
    table_ranks = [[rank_of[p] for p in table] for table in seating.tables]
    tables = len(table_ranks)
    assert [len(t) for t in table_ranks] == table_sizes(
        len(entrants), size_min=size_min, size_max=size_max
    )
    assert [t[0] for t in table_ranks] == list(range(1, tables + 1))  # table k seats rank k
    assert all(t == sorted(t) for t in table_ranks)  # seats follow rank
    if len(entrants) >= 2 * tables:  # second row comes back: table 1 gets rank 2t
        assert [t[1] for t in table_ranks] == list(range(2 * tables, tables, -1))


# ------------------------------------------------------------------------------- late_entry_table


def test_late_entry_table_picks_the_smallest_table_with_room() -> None:
    assert late_entry_table({1: 4, 2: 3, 3: 4, 4: 2}, size_max=4) == 4


def test_late_entry_table_keeps_away_from_the_players_household_while_it_can() -> None:
    sizes = {1: 3, 2: 4, 3: 4}
    assert late_entry_table(sizes, size_max=5, avoid={1}) == 2  # not the smallest: Smiths there
    assert late_entry_table(sizes, size_max=5, avoid={1, 2, 3}) == 1  # nowhere else: smallest
    assert late_entry_table({1: 3, 2: 5}, size_max=5, avoid={1}) == 1  # the other is full


def test_late_entry_table_breaks_ties_by_the_lowest_key() -> None:
    assert late_entry_table({9: 3, 5: 3, 2: 4, 7: 3}, size_max=4) == 5


def test_late_entry_table_returns_none_when_every_table_is_full() -> None:
    assert late_entry_table({1: 4, 2: 4}, size_max=4) is None
    assert late_entry_table({}, size_max=4) is None


# -------------------------------------------------------------------------------- tablemate_pairs


def test_tablemate_pairs_lists_each_pair_once_lowest_id_first() -> None:
    assert tablemate_pairs([[3, 1, 2], [5, 4], [6]]) == {(1, 2), (1, 3), (2, 3), (4, 5)}
