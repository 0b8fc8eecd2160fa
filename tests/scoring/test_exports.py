"""CSV exports: BOM, RFC 4180 quoting, formula cells neutralised, organisers only."""

import csv
import io

import pytest

from tests import factories

pytestmark = pytest.mark.django_db


def read_csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content)
    assert body.startswith("\ufeff".encode())
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))


def test_seating_csv_lists_every_seat_in_order(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament, name="Qualifying")
    table = factories.TableFactory(stage=stage, number=1)
    for number, name in enumerate(["Ramírez, José", "Ann"], start=1):
        player = factories.PlayerFactory(tournament=tournament, number=number, name=name)
        factories.SeatFactory(table=table, player=player, position=number)
    response = as_organiser.get(
        f"/api/v1/tournaments/{tournament.slug}/exports/seating.csv", HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = read_csv(response)
    assert rows == [
        ["stage", "table", "seat", "number", "name"],
        ["Qualifying", "1", "1", "1", "Ramírez, José"],
        ["Qualifying", "1", "2", "2", "Ann"],
    ]


def test_players_csv_neutralises_formula_cells(as_organiser, tournament):
    for number, name in enumerate(['=HYPERLINK("x")', "+1 Ann", "-Bob", "@SUM(A1)", "\tTab"], 1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name, club="Lake")
    rows = read_csv(as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/players.csv"))
    assert rows[0] == ["number", "name", "household", "club", "status"]
    assert [row[1] for row in rows[1:]] == [
        "'=HYPERLINK(\"x\")", "'+1 Ann", "'-Bob", "'@SUM(A1)", "'\tTab",
    ]  # fmt: skip
    assert rows[1][3:] == ["Lake", "registered"]


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_exports_are_for_organisers_of_this_tournament(request, tournament, client, status):
    response = request.getfixturevalue(client).get(
        f"/api/v1/tournaments/{tournament.slug}/exports/players.csv"
    )
    assert response.status_code == status


def test_unknown_export_is_404(as_organiser, tournament):
    assert (
        as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/x.csv").status_code == 404
    )
