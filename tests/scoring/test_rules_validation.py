"""The set's pips (total_pips, max_round_total), parse_pips, and validate_round's checks of a
round's scores."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import (
    BLOCKED_WENT_OUT,
    MISSING_PIPS,
    NOBODY_WENT_OUT,
    PIPS_MESSAGE,
    WENT_OUT_MESSAGE,
    WENT_OUT_SCORES_ZERO,
    ScoreLine,
    parse_pips,
    validate_round,
)
from tournaments.presets import max_round_total, total_pips

# --------------------------------------------------------------------------------------------
# total_pips, max_round_total, parse_pips


@pytest.mark.parametrize(
    ("domino_set", "pips"), [(6, 168), (9, 495), (12, 1092), (15, 2040), (18, 3420)]
)
def test_total_pips_of_each_set(domino_set: int, pips: int) -> None:
    assert total_pips(domino_set) == pips


@given(st.integers(0, 30))
def test_total_pips_counts_every_tile(domino_set: int) -> None:
    tiles = [(a, b) for a in range(domino_set + 1) for b in range(a, domino_set + 1)]
    assert total_pips(domino_set) == sum(a + b for a, b in tiles)


@pytest.mark.parametrize(
    ("domino_set", "engine", "limit"), [(12, 12, 1068), (12, 0, 1092), (6, 6, 156), (9, 5, 485)]
)
def test_max_round_total_leaves_out_the_engine(domino_set: int, engine: int, limit: int) -> None:
    assert max_round_total(domino_set, engine) == limit


@pytest.mark.parametrize(("domino_set", "engine"), [(12, 13), (12, -1), (-1, -1)])
def test_max_round_total_rejects_an_engine_not_in_the_set(domino_set: int, engine: int) -> None:
    with pytest.raises(ValueError, match=r"[Nn]o "):
        max_round_total(domino_set, engine)


@pytest.mark.parametrize(
    ("raw", "pips"),
    [(0, 0), (42, 42), ("42", 42), (" 7 ", 7), ("007", 7), (12.0, 12), (Decimal("9"), 9)],
)
def test_parse_pips_accepts_whole_numbers(raw: object, pips: int) -> None:
    assert parse_pips(raw) == pips


INVALID_PIPS = [
    True,
    False,
    None,
    "",
    "   ",
    -1,
    "-3",
    "+3",
    1.5,
    "1.5",
    "12.0",
    "abc",
    "1,000",
    "٣",  # an Arabic-Indic digit: not something a keypad sends
    float("nan"),
    float("inf"),
    Decimal("2.5"),
    [3],
]


@pytest.mark.parametrize("raw", INVALID_PIPS)
def test_parse_pips_rejects_anything_but_a_whole_number(raw: object) -> None:
    assert parse_pips(raw) is None


@given(st.integers(min_value=0))
def test_parse_pips_round_trips_digit_strings(n: int) -> None:
    assert parse_pips(n) == n and parse_pips(str(n)) == n


@given(st.integers(max_value=-1))
def test_parse_pips_rejects_negative_numbers(n: int) -> None:
    assert parse_pips(n) is None and parse_pips(str(n)) is None


# --------------------------------------------------------------------------------------------
# validate_round

SEATED = {1: "Ann Smith", 2: "Bob Jones", 3: "Cy Young"}


def check(
    lines: list[ScoreLine], *, blocked: bool = False, engine: int = 12
) -> dict[str, list[str]]:
    return validate_round(seated=SEATED, lines=lines, blocked=blocked, domino_set=12, engine=engine)


def good_lines() -> list[ScoreLine]:
    return [ScoreLine(1, 0, went_out=True), ScoreLine(2, "42"), ScoreLine(3, 17)]


def test_validate_round_accepts_a_valid_round() -> None:
    assert check(good_lines()) == {}


def test_validate_round_accepts_a_blocked_round_with_a_zero_score() -> None:
    lines = [ScoreLine(1, 0), ScoreLine(2, 5), ScoreLine(3, 9)]
    assert check(lines, blocked=True) == {}


def test_validate_round_names_an_unknown_player() -> None:
    errors = check([*good_lines(), ScoreLine(99, 4)])
    assert errors == {"scores.99": ["Player 99 is not seated at this table"]}


def test_validate_round_names_a_player_listed_twice() -> None:
    errors = check([*good_lines(), ScoreLine(2, 42)])
    assert errors == {"scores.2": ["Bob Jones is listed twice"]}


def test_validate_round_counts_a_player_listed_three_times() -> None:
    errors = check([*good_lines(), ScoreLine(3, 17), ScoreLine(3, 17)])
    assert errors == {"scores.3": ["Cy Young is listed three times"]}


def test_validate_round_names_a_missing_player() -> None:
    errors = check([ScoreLine(1, 0, went_out=True), ScoreLine(3, 17)])
    assert errors == {"scores.2": ["No score for Bob Jones"]}


def test_validate_round_reports_every_missing_player() -> None:
    errors = check([])
    assert errors["scores.1"] == ["No score for Ann Smith"]
    assert errors["scores.2"] == ["No score for Bob Jones"]
    assert errors["scores.3"] == ["No score for Cy Young"]


BLANK_PIPS = [None, "", "   "]  # nothing entered: said to be missing, not mistyped


def message_for(raw: object) -> str:
    blank = any(raw is b or raw == b for b in BLANK_PIPS)
    return MISSING_PIPS if blank else PIPS_MESSAGE


@pytest.mark.parametrize("raw", [raw for raw in INVALID_PIPS if raw not in BLANK_PIPS])
def test_validate_round_rejects_pips_that_are_not_a_whole_number(raw: object) -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, raw), ScoreLine(3, 17)]
    assert check(lines) == {"scores.2": [PIPS_MESSAGE]}


@pytest.mark.parametrize("raw", BLANK_PIPS)
def test_validate_round_says_a_blank_score_is_missing(raw: object) -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, raw), ScoreLine(3, 17)]
    assert check(lines) == {"scores.2": [MISSING_PIPS]}


def test_validate_round_pips_message_wording() -> None:
    assert PIPS_MESSAGE == "Enter a whole number of pips, 0 or more"
    assert MISSING_PIPS == "Enter this player's pips (0 if they went out)"


@pytest.mark.parametrize(
    ("went_out", "message"),
    [
        ({1, 2}, "Two players are marked as went out: only one player can go out in a round"),
        ({1, 2, 3}, "Three players are marked as went out: only one player can go out in a round"),
    ],
)
def test_validate_round_only_one_player_goes_out(went_out: set[int], message: str) -> None:
    lines = [ScoreLine(pid, 0, went_out=pid in went_out) for pid in SEATED]
    assert check(lines) == {"scores": [message]}


def test_validate_round_counts_went_out_in_words_up_to_twelve() -> None:
    seated = {pid: f"Player {pid}" for pid in range(1, 13)}
    lines = [ScoreLine(pid, 0, went_out=True) for pid in seated]
    errors = validate_round(seated=seated, lines=lines, blocked=False, domino_set=12, engine=3)
    assert errors == {
        "scores": ["Twelve players are marked as went out: only one player can go out in a round"]
    }


def test_validate_round_needs_someone_to_go_out_unless_blocked() -> None:
    lines = [ScoreLine(1, 3), ScoreLine(2, 42), ScoreLine(3, 17)]
    assert check(lines) == {
        "non_field_errors": [
            "Nobody is marked as went out: mark the player who went out, or mark the round as "
            "blocked"
        ]
    }
    assert check(lines)["non_field_errors"][0] == NOBODY_WENT_OUT


def test_validate_round_player_who_went_out_scores_zero() -> None:
    lines = [ScoreLine(1, 5, went_out=True), ScoreLine(2, 42), ScoreLine(3, 17)]
    assert check(lines) == {"scores.1": ["A player who went out scores 0"]}
    assert WENT_OUT_SCORES_ZERO == "A player who went out scores 0"


def test_validate_round_blocked_round_has_nobody_out() -> None:
    assert check(good_lines(), blocked=True) == {
        "blocked": ["The round was blocked, so nobody can be marked as went out"]
    }
    assert BLOCKED_WENT_OUT == "The round was blocked, so nobody can be marked as went out"


def test_validate_round_went_out_must_be_yes_or_no() -> None:
    lines = [ScoreLine(1, 0, went_out="yes"), ScoreLine(2, 42), ScoreLine(3, 17)]  # type: ignore[arg-type]
    errors = check(lines)
    assert errors["scores.1"] == [WENT_OUT_MESSAGE]


def test_validate_round_total_over_what_the_set_holds() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 600), ScoreLine(3, 500)]
    assert check(lines) == {
        "scores": [
            "Total 1,100 is more than a double-12 set holds in a round with the 12 engine (1,068)"
        ]
    }


def test_validate_round_total_at_the_limit_is_accepted() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 568), ScoreLine(3, 500)]
    assert check(lines) == {}
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 569), ScoreLine(3, 500)]
    assert "scores" in check(lines)


def test_validate_round_limit_depends_on_the_engine() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 590), ScoreLine(3, 500)]
    assert check(lines, engine=0) == {}
    assert check(lines, engine=11) == {
        "scores": [
            "Total 1,090 is more than a double-12 set holds in a round with the 11 engine (1,070)"
        ]
    }


def test_validate_round_one_score_over_what_the_set_holds() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 1100), ScoreLine(3, 5)]
    assert check(lines) == {
        "scores.2": [
            "Bob Jones's 1,100 is more than a double-12 set holds in a round with the 12 engine "
            "(1,068)"
        ]
    }


def test_validate_round_reports_several_problems_at_once() -> None:
    lines = [ScoreLine(1, "x"), ScoreLine(99, 3), ScoreLine(3, 4, went_out=True)]
    assert check(lines, blocked=True) == {
        "scores.99": ["Player 99 is not seated at this table"],
        "scores.2": ["No score for Bob Jones"],
        "scores.1": [PIPS_MESSAGE],
        "blocked": [BLOCKED_WENT_OUT],
    }


@st.composite
def valid_rounds(draw: st.DrawFn) -> tuple[dict[int, str], list[ScoreLine], bool, int, int]:
    domino_set = draw(st.sampled_from((6, 9, 12, 15, 18)))
    engine = draw(st.integers(0, domino_set))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=2, max_size=8, unique=True))
    seated = {pid: f"Player {pid}" for pid in ids}
    limit = max_round_total(domino_set, engine)
    budget = draw(st.integers(0, limit))
    pips = [draw(st.integers(0, budget // len(ids))) for _ in ids]
    blocked = draw(st.booleans())
    out = None if blocked else draw(st.integers(0, len(ids) - 1))
    if out is not None:
        pips[out] = 0
    lines = [
        ScoreLine(pid, draw(st.sampled_from((n, str(n)))), went_out=i == out)
        for i, (pid, n) in enumerate(zip(ids, pips, strict=True))
    ]
    draw(st.randoms(use_true_random=False)).shuffle(lines)
    return seated, lines, blocked, domino_set, engine


@given(valid_rounds())
def test_validate_round_accepts_every_valid_round(
    case: tuple[dict[int, str], list[ScoreLine], bool, int, int],
) -> None:
    seated, lines, blocked, domino_set, engine = case
    errors = validate_round(
        seated=seated, lines=lines, blocked=blocked, domino_set=domino_set, engine=engine
    )
    assert errors == {}


@given(valid_rounds(), st.sampled_from(INVALID_PIPS), st.data())
def test_validate_round_pins_bad_pips_on_that_player(
    case: tuple[dict[int, str], list[ScoreLine], bool, int, int], raw: object, data: st.DataObject
) -> None:
    seated, lines, blocked, domino_set, engine = case
    i = data.draw(st.integers(0, len(lines) - 1))
    bad = lines[i]
    lines[i] = ScoreLine(bad.player_id, raw, bad.went_out)
    errors = validate_round(
        seated=seated, lines=lines, blocked=blocked, domino_set=domino_set, engine=engine
    )
    assert errors == {f"scores.{bad.player_id}": [message_for(raw)]}
