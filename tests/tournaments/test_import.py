"""Players CSV import through the API: all or nothing, every bad row reported by line number."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests import factories

pytestmark = pytest.mark.django_db


def upload(client, tournament, content: bytes | str, name: str = "players.csv"):
    if isinstance(content, str):
        content = content.encode("utf-8")
    return client.post(
        f"/api/v1/tournaments/{tournament.slug}/players/import/",
        {"file": SimpleUploadedFile(name, content, content_type="text/csv")},
        format="multipart",
    )


def test_import_creates_every_player(as_organiser, tournament):
    response = upload(
        as_organiser,
        tournament,
        'number,name,household,club\n1,Ann Smith,Smith,Lakeside\n2,"O\'Connor, Bill",,\n'
        "3,José Ramírez,Ramírez,Good Sam\n",
    )
    assert response.status_code == 201, response.json()
    assert response.json() == {"created": 3}
    players = {p.number: p for p in tournament.players.all()}
    assert players[2].name == "O'Connor, Bill"
    assert players[3].household == "Ramírez"
    assert players[1].status == "registered"


def test_import_reads_excel_files_with_bom_semicolons_and_windows_encoding(
    as_organiser, tournament
):
    excel_utf8 = "\ufeffNumber;Name;Status\r\n1;Zoë Lindqvist;checked in\r\n".encode()
    assert upload(as_organiser, tournament, excel_utf8).status_code == 201
    windows = "number,name\r\n2,Françoise Dubois\r\n".encode("cp1252")
    assert upload(as_organiser, tournament, windows).status_code == 201
    names = dict(tournament.players.values_list("number", "name"))
    assert names == {1: "Zoë Lindqvist", 2: "Françoise Dubois"}
    assert tournament.players.get(number=1).status == "checked_in"


def test_import_reports_every_bad_row_by_line_and_creates_nothing(as_organiser, tournament):
    factories.PlayerFactory(tournament=tournament, number=9, name="Already Here")
    content = (
        "number,name,status\n"  # line 1
        "1,Ann,\n"  # line 2: fine
        ",No Number,\n"  # line 3
        "1,Ann Again,\n"  # line 4: duplicate of line 2
        "4,,\n"  # line 5: empty name
        "9,Clash,\n"  # line 6: already in the tournament
        "x7,Letters,\n"  # line 7
        "8,Sleepy,asleep\n"  # line 8
        "\n"  # line 9: blank, skipped
        "10,Too,many,cells\n"  # line 10
    )
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    rows = {row["line"]: row["message"] for row in response.json()["rows"]}
    assert sorted(rows) == [3, 4, 5, 6, 7, 8, 10]
    assert "number is missing" in rows[3]
    assert "used twice (also on line 2)" in rows[4]
    assert "name is empty" in rows[5]
    assert "already in the tournament" in rows[6]
    assert "'x7' is not a whole number" in rows[7]
    assert "status 'asleep' is unknown" in rows[8]
    assert "line has 4 cells but the header has 3" in rows[10]
    assert "Line 3: " in response.json()["file"][0]
    assert "no player was imported" in response.json()["detail"]
    assert tournament.players.count() == 1


def test_import_reports_numbers_no_database_column_holds_and_digits_of_other_scripts(
    as_organiser, tournament
):
    content = "number,name\n9999999999999999999999,Huge\n²,Squared\n2000000001,Just Over\n5,Fine\n"
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400  # not a server error
    rows = {row["line"]: row["message"] for row in response.json()["rows"]}
    assert sorted(rows) == [2, 3, 4]
    assert "'9999999999999999999999' is not a whole number from 1 to 2,000,000,000" in rows[2]
    assert "'²' is not a whole number" in rows[3]
    assert "'2000000001' is not a whole number" in rows[4]
    assert not tournament.players.exists()


def test_import_reads_excel_unicode_text_utf16(as_organiser, tournament):
    unicode_text = "number\tname\r\n1\tZoë Lindqvist\r\n".encode("utf-16")  # with its BOM
    response = upload(as_organiser, tournament, unicode_text, name="players.txt")
    assert response.status_code == 201, response.json()
    assert tournament.players.get().name == "Zoë Lindqvist"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name,club\nAnn,Lakeside\n", "Missing column 'number'"),
        ("number,name,name\n1,Ann,Ann\n", "Column 'name' appears twice"),
        ("", "The file is empty"),
        ("number,name\n", "no players"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x81\x81", "not text"),
    ],
)
def test_import_bad_files_are_400_with_a_reason(as_organiser, tournament, content, message):
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    assert message in " ".join(response.json()["file"])
    assert not tournament.players.exists()


def test_a_quote_left_open_is_reported_on_its_line_not_read_into_a_name(as_organiser, tournament):
    content = 'number,name\n1,Ann\n2,"Bob Ortiz\n3,Cy\n4,Di\n'
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    (error,) = response.json()["file"]
    assert error.startswith("Line 3: A value runs over more than one line")
    assert 'is a quote (") opened on this line left open?' in error
    assert not tournament.players.exists()


def test_a_quote_left_open_in_a_long_file_is_a_line_error_not_a_crash(as_organiser, tournament):
    # The open quote swallows the rest of the file into one cell, past the csv module's limit.
    rest = "".join(f"{n},Player {n}\n" for n in range(3, 12_000))
    content = 'number,name\n1,Ann\n2,"Bob\n' + rest
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    (error,) = response.json()["file"]
    assert error.startswith("Line 3: This line cannot be read as CSV: a cell is longer than")
    assert 'is a quote (") left open above it?' in error
    assert not tournament.players.exists()


def test_a_quoted_line_break_in_a_column_left_out_is_no_error(as_organiser, tournament):
    content = 'number,name,notes\n1,Ann,"arrives late,\nneeds a ride"\n2,Bob,\n'
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 201, response.json()
    assert list(tournament.players.order_by("number").values_list("name", flat=True)) == [
        "Ann",
        "Bob",
    ]


def test_a_name_with_a_character_that_does_not_print_is_a_line_error(as_organiser, tournament):
    content = "number,name,club\n1,Ann,Elks\n2,\u200bBob,\n3,Cy,Lake\x07\n"
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    assert response.json()["file"] == [
        "Line 3: The name contains a character that does not print (U+200B).",
        "Line 4: The club contains a character that does not print (U+0007).",
    ]
    assert not tournament.players.exists()


def test_excels_sep_line_and_a_doubled_byte_order_mark_are_read(as_organiser, tournament):
    content = "\ufeff\ufeffsep=;\nnumber;name\n1;Ann\n2;Bob;\n"
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    # Line numbers are the file's, the sep= line counted: Bob's line is line 4.
    assert response.json()["file"] == ["Line 4: The line has 3 cells but the header has 2."]
    fixed = upload(as_organiser, tournament, "\ufeff\ufeffsep=;\nnumber;name\n1;Ann\n2;Bob\n")
    assert fixed.status_code == 201
    assert tournament.players.count() == 2


def test_a_sep_line_naming_a_tab_and_header_errors_on_the_headers_own_line(
    as_organiser, tournament
):
    tabbed = upload(as_organiser, tournament, "sep=\t\nnumber\tname\n1\tAnn\n")
    assert tabbed.status_code == 201, tabbed.json()
    missing = upload(as_organiser, tournament, "sep=;\nname;club\nBob;Elks\n")
    assert missing.json()["file"] == ["Line 2: Missing column 'number'."]


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(as_organiser, tournament):
    content = "number,name\n" + "".join(f"{n},Player number {n:07}\n" for n in range(1, 90_000))
    assert len(content) > 2_000_000
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 400
    assert response.json()["file"] == [
        "Line 1: The file is 2.5 MB: an import takes at most 2 MB. Import it in parts."
    ]
    assert not tournament.players.exists()


def test_import_leaves_out_columns_it_does_not_keep_and_names_them(as_organiser, tournament):
    # docs/API.md ("Players"): a header row naming at least number,name (a registration export
    # has more).
    content = "number,Name,Email,household\n1,Ann,ann@example.com,Smith\n"
    response = upload(as_organiser, tournament, content)
    assert response.status_code == 201
    assert response.json() == {"created": 1, "ignored_columns": ["Email"]}
    ann = tournament.players.get()
    assert (ann.name, ann.household) == ("Ann", "Smith")
    plain = upload(as_organiser, tournament, "number,name\n2,Bob\n").json()
    assert plain == {"created": 1}  # nothing left out, nothing said


def test_import_without_a_file_is_400(as_organiser, tournament):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/import/", {}, format="multipart"
    )
    assert response.status_code == 400
    assert "Attach the CSV file" in response.json()["file"][0]


def test_import_too_long_name_is_reported(as_organiser, tournament):
    response = upload(as_organiser, tournament, f"number,name\n1,{'x' * 121}\n")
    assert response.status_code == 400
    assert "longer than 120 characters" in response.json()["rows"][0]["message"]


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_import_needs_an_organiser_of_this_tournament(request, tournament, client, status):
    response = upload(request.getfixturevalue(client), tournament, "number,name\n1,Ann\n")
    assert response.status_code == status
    assert not tournament.players.exists()


def test_last_events_players_csv_imports_with_the_names_it_was_written_from(
    as_organiser, organiser, tournament
):
    """players.csv guards a name a spreadsheet would run as a formula with an apostrophe; the
    import reads that file back with the names as they were ("O'Neil" keeps its apostrophe)."""
    last_year = factories.TournamentFactory(slug="last-year")
    factories.StaffFactory(tournament=last_year, user=organiser, role="organiser")
    names = [
        "=Eq Ann",
        "-Dash Bob",
        "+Plus Cy",
        "@At Di",
        "'Quoted Ed",
        "O'Neil",
        "'-Fay",
        "''=Gus",
    ]
    for number, name in enumerate(names, start=1):
        factories.PlayerFactory(tournament=last_year, number=number, name=name)
    exported = b"".join(
        as_organiser.get("/api/v1/tournaments/last-year/exports/players.csv").streaming_content
    )
    assert b"'-Dash Bob" in exported
    response = upload(as_organiser, tournament, exported)
    assert response.status_code == 201, response.json()
    assert list(tournament.players.order_by("number").values_list("name", flat=True)) == names
