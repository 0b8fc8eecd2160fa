"""Seating a game from the game before it (Stage.movement): the tables move
(tables.seating.movement), or everyone is reseated at random away from earlier tablemates, as
seating does."""

import random
import secrets

from tables import seating
from tables.models import Seat
from tables.seating import movement
from tables.services import SeatingReport, players_to_seat, seat_stage
from tournaments.exceptions import StateConflict
from tournaments.models import Stage


def seat_from_previous_game(
    *,
    stage: Stage,
    previous: Stage,
    orders: dict[int, list[int]],
    seed: int | None = None,
) -> SeatingReport:
    """Seat `stage` from the game before it, `previous`: `orders` holds each of its tables'
    players (by table number) best first, by that game's own scores. Each seat records the
    table its player came from; a late entry has none. Positions at a table are drawn from the
    seed, which the stage keeps."""
    came_from = dict(Seat.objects.filter(stage=previous).values_list("player_id", "table__number"))
    if stage.movement != Stage.Movement.MOVE:
        return seat_stage(stage=stage, by=None, seed=seed, from_tables=came_from)
    players = players_to_seat(stage).players
    present = {player.pk for player in players}
    joining = [p.pk for p in sorted(players, key=lambda p: p.number) if p.pk not in came_from]
    numbers = sorted(orders)
    try:
        moved = movement.move_tables(
            [orders[number] for number in numbers],
            k=stage.move_count,
            size_min=stage.table_size_min,
            size_max=stage.table_size_max,
            leaving={player for player in came_from if player not in present},
            joining=joining,
        )
    except movement.NoRoom as error:
        raise StateConflict(str(error)) from None
    seed = secrets.randbelow(2**31) if seed is None else seed
    rng = random.Random(seed)
    tables = []
    for table in moved.tables:
        table = list(table)
        rng.shuffle(table)
        tables.append(table)
    arranged = seating.Seating(tables, [], 0, [], seed)
    return seat_stage(
        stage=stage,
        by=None,
        entrants=[seating.Entrant(id=player) for table in tables for player in table],
        from_tables={p: number for p, number in moved.from_table.items() if number is not None},
        arranged=arranged,
    )
