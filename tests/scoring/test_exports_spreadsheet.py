"""Every CSV export opened by a real spreadsheet program (LibreOffice, headless) and read back."""

import csv
import io
import shutil
import subprocess

import openpyxl
import pytest

from tests import factories
from tests.conftest import services_missing
from tests.scoring.helpers import play_stage, seat_tables
from tournaments.models import Player, Stage

pytestmark = pytest.mark.django_db(transaction=True)

SOFFICE = "soffice"
NAMES = [
    "Ramírez, José",
    "Françoise Dubois",
    '=HYPERLINK("http://x")',
    "Zoë O'Brien",
    "Ñuñez; Peña",
    "+1 Bill",
    'Chuck "Wagon" Lee',
    "Ann Smith",
    "Bob Ortiz",
]


def open_in_libreoffice(paths: list, workdir) -> dict[str, list[list]]:
    """Convert the CSV files to .xlsx with LibreOffice, as a user opening them would (UTF-8,
    comma, double quote), and read the cells back."""
    if not shutil.which(SOFFICE):
        services_missing("LibreOffice is not installed (apt-get install libreoffice-calc-nogui)")
    subprocess.run(
        [
            SOFFICE,
            f"-env:UserInstallation=file://{workdir}/profile",
            "--headless",
            "--infilter=CSV:44,34,76,1",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(workdir),
            *map(str, paths),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    sheets = {}
    for path in paths:
        book = openpyxl.load_workbook(path.with_suffix(".xlsx"))
        sheets[path.stem] = [[cell.value for cell in row] for row in book.active.iter_rows()]
    return sheets


def test_every_export_opens_right_in_a_spreadsheet(as_organiser, tournament, tmp_path):
    qualifying = factories.StageFactory(
        tournament=tournament,
        order=1,
        rounds=2,
        status="seated",
        table_size_min=3,
        table_size_max=3,
    )
    factories.StageFactory(
        tournament=tournament,
        order=2,
        name="Final",
        kind="playoff",
        rounds=2,
        table_size_min=3,
        table_size_max=3,
    )
    seat_tables(qualifying, [NAMES[0:3], NAMES[3:6], NAMES[6:9]])
    Player.objects.filter(tournament=tournament, number=1).update(club="Good Sam, Texas")
    play_stage(qualifying)
    assert as_organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    play_stage(Stage.objects.get(tournament=tournament, order=2))
    assert (
        as_organiser.post(
            f"/api/v1/stages/{Stage.objects.get(tournament=tournament, order=2).pk}/close/"
        ).status_code
        == 202
    )

    paths, originals = [], {}
    for name in ("players", "seating", "scores", "standings", "bracket", "placings"):
        response = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/{name}.csv")
        body = b"".join(response.streaming_content)
        path = tmp_path / f"{name}.csv"
        path.write_bytes(body)
        paths.append(path)
        originals[name] = list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))
    sheets = open_in_libreoffice(paths, tmp_path)

    for name, rows in originals.items():
        sheet = sheets[name]
        assert len(sheet) == len(rows), name
        for original, cells in zip(rows, sheet, strict=True):
            shown = ["" if c is None else str(c) for c in cells][: len(original)]
            assert shown == original, (name, original, cells)  # every cell as it was written
    players = {row[1]: row for row in sheets["players"][1:]}
    assert "Ramírez, José" in players and players["Ramírez, José"][3] == "Good Sam, Texas"
    assert "Ñuñez; Peña" in players and 'Chuck "Wagon" Lee' in players
    # formula-like names arrive as text, never as a formula that runs
    assert '\'=HYPERLINK("http://x")' in players and "'+1 Bill" in players
    assert sheets["bracket"][0][-1] == "place"
    assert {row[-1] for row in sheets["bracket"][1:] if row[0] == "Final"} == {1, 2, 3}
