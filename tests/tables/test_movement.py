"""Tables that move between games: the algorithm (tables.seating.movement) and the settings' checks
through the API and the console."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.seating.movement import NoRoom, move_tables
from tournaments.models import Stage


def numbered(*sizes: int) -> list[list[int]]:
    """Tables of the given sizes, players numbered 1.. in order: table 1 is 1..n, best first."""
    tables, start = [], 1
    for size in sizes:
        tables.append(list(range(start, start + size)))
        start += size
    return tables


def as_sets(moved) -> list[set[int]]:
    return [set(table) for table in moved.tables]


# ---- the algorithm ------------------------------------------------------------------------------


def test_the_k_best_move_up_and_the_k_worst_down():
    before = numbered(4, 4, 4)  # 1-4 | 5-8 | 9-12
    moved = move_tables(before, k=1, size_min=4, size_max=4)
    # Table 2's best (5) goes up, its worst (8) down; table 1's worst (4) down; table 3's best
    # (9) up.
    assert as_sets(moved) == [{1, 2, 3, 5}, {9, 6, 7, 4}, {10, 11, 12, 8}]
    assert moved.from_table == {p: (p - 1) // 4 + 1 for p in range(1, 13)}


def test_the_top_table_keeps_its_best_and_the_bottom_its_worst():
    moved = move_tables(numbered(6, 6, 6), k=2, size_min=6, size_max=6)
    top, middle, bottom = as_sets(moved)
    assert {1, 2} <= top and {7, 8} <= top  # its best stay, table 2's best come up
    assert not {5, 6} & top  # its worst went down
    assert {5, 6} <= middle and {13, 14} <= middle
    assert {17, 18} <= bottom and {11, 12} <= bottom  # its worst stay, table 2's worst come
    assert not {13, 14} & bottom


def test_k_down_moves_exactly_k_from_each_table():
    moved = move_tables(numbered(5, 5, 5, 5), k=2, size_min=5, size_max=5)
    for number, table in enumerate(moved.tables, start=1):
        came_down = [p for p in table if moved.from_table[p] == number - 1]
        came_up = [p for p in table if moved.from_table[p] == number + 1]
        assert len(came_down) == (2 if number > 1 else 0)
        assert len(came_up) == (2 if number < 4 else 0)
    assert [len(t) for t in moved.tables] == [5, 5, 5, 5]


def test_tables_of_seven_with_three_moving_each_way():
    before = numbered(7, 7, 7)
    moved = move_tables(before, k=3, size_min=7, size_max=7)
    assert [len(t) for t in moved.tables] == [7, 7, 7]
    top, middle, bottom = as_sets(moved)
    assert top == {1, 2, 3, 4, 8, 9, 10}  # the middle player (4) of an odd table stays
    assert middle == {5, 6, 7, 11, 15, 16, 17}
    assert bottom == {12, 13, 14, 18, 19, 20, 21}


def test_tables_of_six_and_seven_keep_their_sizes():
    moved = move_tables(numbered(7, 7, 6, 6), k=3, size_min=6, size_max=7)
    assert [len(t) for t in moved.tables] == [7, 7, 6, 6]
    # Table 3 (15-20) sends its 3 best up and 3 worst down: 3 come down from table 2 (8-14)
    # and 3 up from table 4 (21-26), whose 3 worst stay at the bottom.
    assert set(moved.tables[1]) == {4, 5, 6, 7, 11, 15, 16, 17} - {4}
    assert set(moved.tables[2]) == {12, 13, 14, 21, 22, 23}
    assert set(moved.tables[3]) == {18, 19, 20, 24, 25, 26}


def test_a_player_withdrawn_between_games_is_not_seated_and_the_tables_even_out():
    before = numbered(4, 4, 4)
    moved = move_tables(before, k=1, size_min=3, size_max=4, leaving={6})
    seated = [p for t in moved.tables for p in t]
    assert 6 not in seated and len(seated) == 11
    assert [len(t) for t in moved.tables] == [4, 3, 4]  # within one: nobody else moves
    assert as_sets(moved)[1] == {9, 7, 4}


def test_tables_too_uneven_after_withdrawals_take_from_the_nearest_larger_table():
    before = numbered(4, 4, 4)
    moved = move_tables(before, k=1, size_min=3, size_max=4, leaving={10, 11})
    # 10 players at 3 tables: 4, 3, 3. Table 3 is left with 9 and 12: one each way, so 9 goes
    # up and 12 stays; 8 comes down. It has 2, so table 2 (4, 6, 7, 9), the nearest with a
    # player to spare, gives its weakest by the last game (the lower table, then the lower
    # place there): 9, who came up from table 3.
    assert [len(t) for t in moved.tables] == [4, 3, 3]
    assert as_sets(moved) == [{1, 2, 3, 5}, {4, 6, 7}, {8, 9, 12}]


def test_a_field_that_no_longer_fits_the_sizes_is_said_clearly():
    with pytest.raises(NoRoom, match="10 players cannot be seated at the 3 tables"):
        move_tables(numbered(4, 4, 4), k=1, size_min=4, size_max=4, leaving={1, 2})


def test_a_late_entry_sits_at_the_bottom_table():
    moved = move_tables(numbered(4, 4), k=1, size_min=4, size_max=5, joining=[99])
    assert 99 in moved.tables[1]
    assert moved.from_table[99] is None
    assert [len(t) for t in moved.tables] == [4, 5]


def test_a_late_entry_sits_at_the_emptiest_table():
    moved = move_tables(numbered(4, 3, 4), k=1, size_min=3, size_max=4, joining=[99])
    assert 99 in moved.tables[1]


def test_one_table_moves_nobody():
    moved = move_tables(numbered(5), k=2, size_min=5, size_max=5)
    assert as_sets(moved) == [{1, 2, 3, 4, 5}]


@st.composite
def fields(draw):
    size_min = draw(st.integers(2, 8))
    size_max = draw(st.integers(size_min, size_min + 1))
    count = draw(st.integers(1, 8))
    sizes = [draw(st.integers(size_min, size_max)) for _ in range(count)]
    sizes.sort(reverse=True)
    k = draw(st.integers(1, size_min // 2 or 1))
    tables = numbered(*sizes)
    everyone = [p for t in tables for p in t]
    leaving = draw(st.sets(st.sampled_from(everyone), max_size=2))
    joining = list(range(1000, 1000 + draw(st.integers(0, 2))))
    return tables, k, size_min, size_max, leaving, joining


@given(fields())
def test_everyone_is_seated_once_and_the_sizes_kept(field):
    tables, k, size_min, size_max, leaving, joining = field
    try:
        moved = move_tables(
            tables, k=k, size_min=size_min, size_max=size_max, leaving=leaving, joining=joining
        )
    except NoRoom:
        total = sum(map(len, tables)) - len(leaving) + len(joining)
        base, extra = divmod(total, len(tables))
        assert base < size_min or base + (extra > 0) > size_max
        return
    seated = [p for t in moved.tables for p in t]
    expected = {p for t in tables for p in t} - set(leaving) | set(joining)
    assert sorted(seated) == sorted(expected)  # everyone once, nobody withdrawn
    assert len(moved.tables) == len(tables)
    sizes = [len(t) for t in moved.tables]
    assert all(size_min <= s <= size_max for s in sizes)
    assert max(sizes) - min(sizes) <= 1
    if not leaving and not joining:
        assert sizes == [len(t) for t in tables]  # every table keeps its size
        last = len(tables)
        for number, table in enumerate(tables, start=1):
            best, worst = table[:k], table[-k:]
            if number == 1:  # the top table's best stay
                assert set(best) <= set(moved.tables[0])
            if number == last:  # the bottom table's worst stay
                assert set(worst) <= set(moved.tables[-1])
    if not leaving and not joining:  # nobody moves more than one table
        for player, number in moved.from_table.items():
            now = next(i for i, t in enumerate(moved.tables, start=1) if player in t)
            assert abs(now - number) <= 1


# ---- the settings: API and console ----------------------------------------------------------


STAGE = {
    "kind": "qualifying",
    "rounds": 2,
    "starting_double": 12,
    "table_size_min": 6,
    "table_size_max": 7,
}


@pytest.mark.django_db
def test_a_game_that_moves_more_than_half_a_table_is_refused_and_nothing_changes(
    as_organiser, tournament
):
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    assert as_organiser.post(url, {**STAGE, "name": "Game 1"}, format="json").status_code == 201
    body = {**STAGE, "name": "Game 2", "carry_forward": True, "movement": "move", "move_count": 4}
    response = as_organiser.post(url, body, format="json")
    assert response.status_code == 400
    assert response.json()["move_count"] == [
        "With tables of 6, 3 players at most can move up and as many down (half a table each way)."
    ]
    assert list(tournament.stages.values_list("name", flat=True)) == ["Game 1"]

    good = as_organiser.post(url, {**body, "move_count": 3}, format="json")
    assert good.status_code == 201, good.json()
    assert (good.json()["movement"], good.json()["move_count"]) == ("move", 3)
    game = Stage.objects.get(pk=good.json()["id"])
    change = as_organiser.patch(f"/api/v1/stages/{game.pk}/", {"move_count": 5}, format="json")
    assert change.status_code == 400
    assert "3 players at most can move up" in change.json()["move_count"][0]
    game.refresh_from_db()
    assert game.move_count == 3


@pytest.mark.django_db
def test_movement_on_the_first_stage_is_refused(as_organiser, tournament):
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    body = {**STAGE, "name": "Game 1", "movement": "move", "move_count": 2}
    response = as_organiser.post(url, body, format="json")
    assert response.status_code == 400
    assert (
        "Only a qualifying stage after another is seated from the game before"
        in (response.json()["movement"][0])
    )
    assert not tournament.stages.exists()


@pytest.mark.django_db
def test_the_console_shows_the_movement_errors_on_their_fields(client, organiser, tournament):
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/stages/add/"
    form = {
        **STAGE,
        "name": "Game 1",
        "advance_per_table": 1,
        "wildcards": 0,
        "late_entry_rule": "table_high",
    }
    first = client.post(url, form)
    assert first.status_code == 302, first.content.decode()[:2000]
    response = client.post(url, {**form, "name": "Game 2", "movement": "move", "move_count": 4})
    assert response.status_code == 400
    page = response.content.decode()
    assert "3 players at most can move up and as many down" in page
    assert tournament.stages.count() == 1
    # The pending game's own page changes it.
    game_url = f"/t/{tournament.slug}/manage/stages/add/"
    client.post(game_url, {**form, "name": "Game 2", "movement": "reseat"})
    game = tournament.stages.get(order=2)
    assert game.movement == "reseat"
    page = client.get(f"/t/{tournament.slug}/manage/stages/2/").content.decode()
    assert "Seating from the game before" in page
    refused = client.post(
        f"/t/{tournament.slug}/manage/stages/2/movement/", {"movement": "move", "move_count": 9}
    )
    assert refused.status_code == 400
    assert "3 players at most can move up" in refused.content.decode()
    saved = client.post(
        f"/t/{tournament.slug}/manage/stages/2/movement/", {"movement": "move", "move_count": 2}
    )
    assert saved.status_code == 302
    game.refresh_from_db()
    assert (game.movement, game.move_count) == ("move", 2)
