"""prizes.csv, the treasurer's list: each prize won, of every table (announced or not: the
`announced` column says which), once the placings are decided; written as the other exports are
(scoring.exports.csv_lines). Before the placings are decided, the header alone."""

from collections.abc import Iterator
from decimal import Decimal

from prizes import selectors
from scoring.results import final_results
from tournaments.models import Tournament

HEADER = (
    "scope", "place", "number", "name", "amount", "currency", "items", "shared_by", "booby",
    "announced",
)  # fmt: skip


def rows(tournament: Tournament) -> Iterator[tuple]:
    results = final_results(tournament)
    players = {p.player.pk: p.player for p in results.placings}
    tables = selectors.tables_of(tournament)
    ordered = sorted(
        tables.values(),
        key=lambda t: (t.division is not None, t.division.order if t.division else 0, t.pk),
    )
    for table in ordered:
        for award in selectors.awards_of(selectors.worked_out(table), results):
            player = players[award.player]
            yield (
                selectors.scope_name(table.division),
                award.place,
                player.number,
                player.name,
                (award.cash or Decimal(0)).quantize(Decimal("0.01")),
                tournament.currency,
                "; ".join(award.items),
                award.shared_by,
                "yes" if award.booby else "no",
                "yes" if table.announced else "no",
            )
