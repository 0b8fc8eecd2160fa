"""Plausibility from the deal (scoring.rules.plausibility): the line each deal draws, that ordinary
hands never reach it and typos always do, and the words said."""

import re

import pytest
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import (
    PipsWarning,
    ScoreLine,
    plausibility,
    tiles_dealt,
    unusual_scores,
    warning_message,
)
from scoring.rules.plausibility import average_hand, heaviest_hand
from tournaments.presets import PRESETS, engine_for_round, max_round_total


def tiles_of(domino_set: int) -> list[tuple[int, int]]:
    return [(high, low) for high in range(domino_set + 1) for low in range(high + 1)]


# Every set and tiles dealt of every preset: (set, tiles).
DEALS = sorted(
    {
        (s, k)
        for preset in PRESETS.values()
        for s, deal in preset.deals.items()
        for k in deal.values()
    }
)


def test_a_full_double_12_hand_of_12_is_144_on_average_and_250_at_most():
    """docs/DESIGN.md's numbers: 12 x the mean tile of 12, and the 12 heaviest tiles."""
    assert average_hand(12, 12) == 144
    assert heaviest_hand(12, 12) == 250
    pips = [high + low for high, low in tiles_of(12)]
    assert sum(pips) / len(pips) == 12  # the mean tile of a double-12 set


@pytest.mark.parametrize(("domino_set", "tiles"), DEALS)
def test_the_docstring_states_the_line_of_every_deal_the_presets_have(domino_set, tiles):
    """The rule's numbers are written in its docstring: they are the function's, for every deal."""
    doc = " ".join(plausibility.__doc__.split())
    row = re.search(rf"- double-{domino_set}: (.*?)(?= - double-|$)", doc)
    assert row, f"no line for double-{domino_set}"
    said = dict(
        (int(k), (int(avg), int(line)))
        for k, avg, line in re.findall(r"(\d+): (\d+) / (\d+)", row[1])
    )
    assert said[tiles] == (average_hand(domino_set, tiles), heaviest_hand(domino_set, tiles))


@given(data=st.data(), deal=st.sampled_from(DEALS))
def test_a_dealt_hand_warns_only_when_it_is_the_heaviest_hand(data, deal):
    """Any hand of k tiles of the set (the engine double is on the table, not in a hand): it
    reaches the line only when it holds the k heaviest tiles, which never happens by chance."""
    domino_set, tiles = deal
    engine = data.draw(st.integers(0, domino_set), label="engine")
    box = [t for t in tiles_of(domino_set) if t != (engine, engine)]
    hand = data.draw(st.lists(st.sampled_from(box), min_size=tiles, max_size=tiles, unique=True))
    pips = sum(high + low for high, low in hand)
    warned = unusual_scores([ScoreLine(1, pips)], domino_set=domino_set, tiles=tiles)
    heaviest = sorted((h + low for h, low in tiles_of(domino_set)), reverse=True)[:tiles]
    assert bool(warned) == (sorted((h + low for h, low in hand), reverse=True) == heaviest)


@given(deal=st.sampled_from(DEALS), data=st.data())
def test_a_score_typed_with_an_extra_0_warns_and_the_score_itself_does_not(deal, data):
    """A typo: an ordinary score (at most an average hand, and at least a tenth of the line) with
    a 0 too many. The score warns with the 0, never without it."""
    domino_set, tiles = deal
    line = heaviest_hand(domino_set, tiles)
    score = data.draw(st.integers(-(-line // 10), average_hand(domino_set, tiles)))
    lines = [ScoreLine(1, score), ScoreLine(2, score * 10), ScoreLine(3, 0, went_out=True)]
    warned = unusual_scores(lines, domino_set=domino_set, tiles=tiles)
    assert [w.player for w in warned] == [2]
    assert warned[0] == PipsWarning(2, score * 10, line, tiles, average_hand(domino_set, tiles))


@pytest.mark.parametrize("round_no", range(1, 14))
def test_a_double_12_round_of_four_asks_about_250_and_520_and_not_about_ordinary_hands(round_no):
    """Samboree, 4 players, 12 tiles each: whatever the engine, hands up to 200 pass; 250 and 520
    (legal: under the hard limit) are asked about."""
    tiles = tiles_dealt("samboree", 12, 4)
    assert tiles == 12
    assert max_round_total(12, engine_for_round(12, round_no)) >= 520
    ordinary = [ScoreLine(i, pips) for i, pips in enumerate([0, 37, 144, 180, 200, 249])]
    assert unusual_scores(ordinary, domino_set=12, tiles=tiles) == []
    typos = [ScoreLine(1, 250), ScoreLine(2, "520"), ScoreLine(3, 12)]
    assert [(w.player, w.pips) for w in unusual_scores(typos, domino_set=12, tiles=tiles)] == [
        (1, 250),
        (2, 520),
    ]


def test_the_line_follows_the_deal_not_the_set_alone():
    """Eight tiles each at a table of 8 (Samboree): 180 is more than any 8-tile hand holds; the
    15 tiles of a two-player Parsons deal hold 250 without drawing."""
    assert tiles_dealt("samboree", 12, 8) == 8
    assert unusual_scores([ScoreLine(1, 180)], domino_set=12, tiles=8)[0].limit == 173
    assert tiles_dealt("parsons", 12, 2) == 16
    assert unusual_scores([ScoreLine(1, 250)], domino_set=12, tiles=16) == []


def test_a_deal_the_preset_lacks_takes_the_nearest_table_size_then_any_presets_deal():
    assert tiles_dealt("parsons", 12, 9) == 9  # its biggest table, 8, is dealt 9
    assert tiles_dealt("pagat", 6, 8) == 6  # double-6 is dealt at 2 to 4 players
    assert tiles_dealt("samboree", 15, 4) == 15  # Samboree deals double-12 only: pagat's
    assert tiles_dealt("samboree", 9, 3) == 10  # pagat 9 or online 10: the most
    assert tiles_dealt("samboree", 18, 4) is None  # no preset deals double-18: no line
    assert unusual_scores([ScoreLine(1, 900)], domino_set=18, tiles=None) == []


def test_bad_pips_and_checked_scores():
    """Pips that are not a number are validation's to refuse, not warned about; a score the
    official checked keeps its warning, marked checked."""
    lines = [ScoreLine(1, "25O"), ScoreLine(2, True), ScoreLine(3, 300, checked=True)]
    assert unusual_scores(lines, domino_set=12, tiles=12) == [
        PipsWarning(3, 300, 250, 12, 144, checked=True)
    ]


def test_the_warning_in_english_and_spanish():
    warning = PipsWarning(1, 1250, 394, 15, 225)
    with translation.override("en"):
        assert warning_message("Ann", warning) == (
            "Ann: 1,250 pips is more than a hand of 15 tiles usually holds (225 on average, at "
            "most 394 without drawing)."
        )
    with translation.override("es"):
        assert warning_message("Ann", warning) == (
            "Ann: 1\u00a0250 puntos son más de lo que suele tener una mano de 15 fichas (225 en "
            "promedio, 394 como máximo sin robar)."
        )
