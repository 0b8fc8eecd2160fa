"""Build seated stages and play their rounds straight into the database, for the tests that are
about what comes after entry (standings, playoffs, exports), and close them through the API; and
players' records for the tests of the rules, which need no database."""

from hypothesis import strategies as st

from scoring import standings
from scoring.models import RoundResult, Score
from scoring.rules import PlayerRecord, Ranked
from tables.models import Seat, Table
from tests import factories
from tournaments.models import Player, Stage


def seat_tables(stage, tables: list[list[str]], first_number: int = 1) -> list[list[Player]]:
    """Seat the named players, one list per table; badge numbers follow the order given."""
    seated, number = [], first_number
    for table_no, names in enumerate(tables, start=1):
        table = factories.TableFactory(stage=stage, number=table_no)
        row = []
        for position, name in enumerate(names, start=1):
            player = factories.PlayerFactory(tournament=stage.tournament, number=number, name=name)
            factories.SeatFactory(table=table, player=player, position=position)
            row.append(player)
            number += 1
        seated.append(row)
    return seated


def play(stage, players, round_no, pips, *, status="confirmed", blocked=False) -> RoundResult:
    """Store one table's round (validation is tested elsewhere) and owe a standings rebuild."""
    table = Seat.objects.get(stage=stage, player=players[0]).table
    official = factories.UserFactory()
    result = RoundResult.objects.create(
        stage=stage,
        table=table,
        round_no=round_no,
        engine=stage.engine(round_no),
        blocked=blocked,
        status=status,
        submitted_by=official,
        confirmed_by=official if status == "confirmed" else None,
    )
    Score.objects.bulk_create(
        Score(result=result, player=player, pips=value, went_out=value == 0 and not blocked)
        for player, value in zip(players, pips, strict=True)
    )
    standings.request_rebuild(stage, results=True)
    return result


def play_stage(stage, score_of=lambda seat, round_no: 5 * (seat.position - 1)) -> None:
    """Confirm every round of every table: seat 1 goes out, seat k scores score_of(seat, round)."""
    for table in Table.objects.filter(stage=stage).order_by("number"):
        seats = list(table.seats.order_by("position").select_related("player"))
        for round_no in range(1, stage.rounds + 1):
            play(stage, [s.player for s in seats], round_no, [score_of(s, round_no) for s in seats])


# ---- playoffs: a qualifying stage at tables, the next levels, closing a stage --------------------


def qualifying_with_tables(tournament, sizes: list[int], **fields) -> Stage:
    stage = factories.StageFactory(
        tournament=tournament,
        order=1,
        rounds=2,
        status="seated",
        table_size_min=min(sizes),
        table_size_max=max(sizes),
        **fields,
    )
    counter = iter(range(1, sum(sizes) + 1))
    seat_tables(stage, [[f"Q{next(counter)}" for _ in range(size)] for size in sizes])
    return stage


def playoff(tournament, order=2, size_min=3, size_max=4, **fields) -> Stage:
    return factories.StageFactory(
        tournament=tournament,
        order=order,
        name=f"Playoff {order}",
        kind="playoff",
        rounds=2,
        table_size_min=size_min,
        table_size_max=size_max,
        **fields,
    )


def close(client, stage):
    return client.post(f"/api/v1/stages/{stage.pk}/close/")


# ---- players' records for the rules (no database) ------------------------------------------------


def record(
    player_id: int,
    scores: dict[int, int],
    *,
    table: int | None = 1,
    won: tuple[int, ...] = (),
    carried: int = 0,
) -> PlayerRecord:
    return PlayerRecord(player_id, table, scores, frozenset(won), carried)


def by_id(ranked: list[Ranked]) -> dict[int, Ranked]:
    return {row.player_id: row for row in ranked}


def ranks(ranked: list[Ranked]) -> dict[int, int]:
    return {row.player_id: row.rank for row in ranked}


ROUNDS = (1, 2, 3, 4)


@st.composite
def player_records(draw: st.DrawFn, *, same_rounds: bool = False) -> list[PlayerRecord]:
    # Small pips and few rounds so that ties, and ties that survive the tie-breaks, are common.
    ids = draw(st.lists(st.integers(1, 80), unique=True, max_size=14))
    played_by_all = draw(st.sets(st.sampled_from(ROUNDS))) if same_rounds else None
    records = []
    for player_id in ids:
        played = played_by_all if same_rounds else draw(st.sets(st.sampled_from(ROUNDS)))
        scores = {round_no: draw(st.integers(0, 3)) for round_no in sorted(played)}
        won = draw(st.sets(st.sampled_from(ROUNDS)))
        table = draw(st.one_of(st.none(), st.integers(1, 3)))
        carried = draw(st.sampled_from((0, 0, 0, 1, 2)))
        records.append(PlayerRecord(player_id, table, scores, frozenset(won), carried))
    return records


# ---- a finished event: for the final results, their PDF and the certificates --------------------

FINISHED_TABLES = [["José Ibáñez", "Ana Peña", "Bob Ortiz"], ["Núria Muñoz", "Ed Hughes", "Flo Ng"]]


def qualifying_of_six(tournament) -> Stage:
    """The qualifying stage "Clasificación": two tables of three, seated, two rounds."""
    stage = factories.StageFactory(
        tournament=tournament, order=1, name="Clasificación", rounds=2, status="seated",
        table_size_min=3, table_size_max=3,
    )  # fmt: skip
    seat_tables(stage, FINISHED_TABLES)
    return stage


def final_of_two(tournament) -> Stage:
    """The table winners' final, "Gran final", not seated yet."""
    return factories.StageFactory(
        tournament=tournament, order=2, name="Gran final", kind="playoff", rounds=2,
        table_size_min=2, table_size_max=4,
    )  # fmt: skip


def finished_event(tournament, organiser_client) -> None:
    """Qualifying and the final played and closed, everyone placed: seat 1 goes out every
    round, seat k scores 5 (k - 1) a round (play_stage)."""
    first, final = qualifying_of_six(tournament), final_of_two(tournament)
    play_stage(first)
    assert close(organiser_client, first).status_code == 202
    final.refresh_from_db()
    assert final.status == "seated"
    play_stage(final)
    assert close(organiser_client, final).status_code == 202
