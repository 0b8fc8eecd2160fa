"""The rule presets against every number in docs/DESIGN.md (no database)."""

import pytest

from tournaments.presets import (
    PRESETS,
    engine_for_round,
    get_preset,
    max_round_total,
    tiles_in_set,
    total_pips,
)


@pytest.mark.parametrize(
    ("domino_set", "tiles", "pips"),
    [(6, 28, 168), (9, 55, 495), (12, 91, 1092), (15, 136, 2040), (18, 190, 3420)],
)
def test_set_tiles_and_total_pips_match_design(domino_set, tiles, pips):
    assert tiles_in_set(domino_set) == tiles
    assert total_pips(domino_set) == pips


def test_engine_for_round_counts_down_from_the_starting_double():
    assert [engine_for_round(12, n) for n in range(1, 5)] == [12, 11, 10, 9]
    assert [engine_for_round(12, n) for n in range(1, 14)] == list(range(12, -1, -1))


@pytest.mark.parametrize(("starting_double", "round_no"), [(12, 0), (12, 14), (9, 11)])
def test_engine_for_round_refuses_rounds_past_double_blank(starting_double, round_no):
    with pytest.raises(ValueError, match="does not exist"):
        engine_for_round(starting_double, round_no)


def test_max_round_total_is_the_set_less_the_engine_double():
    assert max_round_total(12, 12) == 1068
    assert max_round_total(12, 0) == 1092
    assert max_round_total(9, 9) == 477


def test_samboree_deals_12_10_8_by_table_size():
    samboree = get_preset("samboree")
    assert [samboree.tiles_dealt(12, n) for n in range(2, 11)] == [12, 12, 12, 10, 10, 8, 8, 8, 8]
    assert samboree.table_bounds(12) == (2, 10)


def test_samboree_template_is_four_rounds_from_double_12_then_a_playoff():
    stages = get_preset("samboree").stages_for(12)
    assert [(s.kind, s.rounds, s.starting_double) for s in stages] == [
        ("qualifying", 4, 12),
        ("playoff", 4, 12),
    ]


def test_parsons_deals_by_players_with_double_12():
    parsons = get_preset("parsons")
    expected = {2: 16, 3: 15, 4: 14, 5: 12, 6: 11, 7: 10, 8: 9}
    assert {n: parsons.tiles_dealt(12, n) for n in range(2, 9)} == expected
    assert parsons.table_bounds(12) == (2, 8)


def test_pagat_deal_table_matches_seed_001():
    pagat = get_preset("pagat")
    assert [pagat.tiles_dealt(6, n) for n in range(2, 5)] == [9, 8, 6]
    assert [pagat.tiles_dealt(9, n) for n in range(2, 9)] == [9, 9, 9, 7, 7, 7, 6]
    assert [pagat.tiles_dealt(12, n) for n in range(2, 9)] == [15, 15, 15, 12, 12, 11, 11]
    assert [pagat.tiles_dealt(15, n) for n in range(2, 13)] == [
        15, 15, 15, 15, 15, 13, 13, 11, 11, 11, 11,
    ]  # fmt: skip
    assert pagat.table_bounds(6) == (2, 4)
    assert pagat.table_bounds(15) == (2, 12)


def test_online_uses_double_9_for_small_tables_and_double_12_for_larger():
    online = get_preset("online")
    assert [online.tiles_dealt(9, n) for n in (2, 3)] == [10, 10]
    assert [online.tiles_dealt(12, n) for n in range(4, 9)] == [10, 10, 10, 8, 8]
    assert online.table_bounds(9) == (2, 3)
    assert online.table_bounds(12) == (4, 8)


def test_every_deal_fits_in_its_set_beside_the_engine():
    for preset in PRESETS.values():
        for domino_set, deal in preset.deals.items():
            for players, tiles in deal.items():
                assert players * tiles <= tiles_in_set(domino_set) - 1, (preset.key, players)


def test_a_table_size_outside_the_deal_is_refused_with_the_bounds():
    with pytest.raises(ValueError, match="2 to 8 players at a table, not 9"):
        get_preset("parsons").tiles_dealt(12, 9)


def test_a_set_the_preset_does_not_deal_for_is_refused():
    with pytest.raises(ValueError, match="deals only with double-12, not double-9"):
        get_preset("samboree").deal(9)


def test_an_unknown_preset_names_the_known_ones():
    with pytest.raises(ValueError, match="samboree, parsons, pagat, online"):
        get_preset("cardinal")
