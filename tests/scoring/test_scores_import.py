"""Scores from paper sheets: a scores.csv upload, every line checked, all lines or none."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import RoundResult, RoundResultVersion
from tests import factories

pytestmark = pytest.mark.django_db

HEADER = "stage,table,round,engine,number,name,pips,went_out,status\n"


def upload(client, tournament, text: str):
    return client.post(
        f"/api/v1/tournaments/{tournament.slug}/scores/import/",
        {"file": SimpleUploadedFile("scores.csv", text.encode("utf-8"))},
        format="multipart",
    )


GOOD = (
    HEADER + "Qualifying,1,1,12,1,Ann,0,yes,confirmed\n"
    "Qualifying,1,1,12,2,Bob,12,no,confirmed\n"
    "Qualifying,1,1,12,3,Cy,30,no,confirmed\n"
    "Qualifying,1,1,12,4,Di,7,no,confirmed\n"
    "Qualifying,1,2,11,1,Ann,3,no,\n"
    "Qualifying,1,2,11,2,Bob,9,no,\n"
    "Qualifying,1,2,11,3,Cy,4,no,\n"
    "Qualifying,1,2,11,4,Di,0,no,\n"
)


def test_import_enters_and_confirms_rounds(as_organiser, tournament, table, players):
    response = upload(as_organiser, tournament, GOOD)
    assert response.status_code == 201, response.json()
    assert response.json() == {"created": 2}
    first, second = RoundResult.objects.order_by("round_no")
    assert (first.status, first.blocked, first.engine) == ("confirmed", False, 12)
    assert (second.status, second.blocked) == ("submitted", True)  # nobody went out
    assert [s.pips for s in first.scores.order_by("player__number")] == [0, 12, 30, 7]
    assert set(RoundResultVersion.objects.values_list("source", flat=True)) == {"csv"}


def test_export_then_import_round_trips(as_organiser, tournament, table, players):
    upload(as_organiser, tournament, GOOD)
    exported = b"".join(
        as_organiser.get(
            f"/api/v1/tournaments/{tournament.slug}/exports/scores.csv"
        ).streaming_content
    ).decode("utf-8-sig")
    line = exported.splitlines()[1]
    assert re.fullmatch(
        r"Qualifying,1,1,12,1,Ann,0,yes,confirmed,\d{4}-\d\d-\d\dT[\d:]{8}\+00:00", line
    )
    RoundResult.objects.all().delete()
    assert upload(as_organiser, tournament, exported).status_code == 201
    assert RoundResult.objects.count() == 2


def test_names_the_export_guarded_against_formulas_import_as_the_players(
    as_organiser, tournament, table, players
):
    """scores.csv writes a name like =SUM(A1) as '=SUM(A1), so that a spreadsheet shows it
    as text: read back, it is the player's name again, not a different name."""
    names = ['=HYPERLINK("x")', "-Minus Person", "+1 Cy", "@Di"]
    for player, name in zip(players, names, strict=True):
        player.name = name
        player.save(update_fields=["name"])
    unnamed = GOOD
    for name in ("Ann", "Bob", "Cy", "Di"):
        unnamed = unnamed.replace(f",{name},", ",,")
    assert upload(as_organiser, tournament, unnamed).status_code == 201
    exported = b"".join(
        as_organiser.get(
            f"/api/v1/tournaments/{tournament.slug}/exports/scores.csv"
        ).streaming_content
    ).decode("utf-8-sig")
    assert "'-Minus Person" in exported
    RoundResult.objects.all().delete()
    response = upload(as_organiser, tournament, exported)
    assert response.status_code == 201, response.json()
    assert RoundResult.objects.count() == 2
    # A guarded name that is not the player's is still refused, the name shown as written.
    wrong = exported.replace("'-Minus Person", "'-Plus Person", 1)
    refused = upload(as_organiser, tournament, wrong)
    assert refused.status_code == 400
    assert "Number 2 is -Minus Person, not '-Plus Person'" in str(refused.json()["rows"])


def test_import_reports_every_bad_line_and_enters_nothing(as_organiser, tournament, table, players):
    text = (
        HEADER + "Finals,1,1,12,1,Ann,0,yes,\n"  # line 2
        "Qualifying,9,1,12,1,Ann,0,yes,\n"  # line 3
        "Qualifying,1,7,12,1,Ann,0,yes,\n"  # line 4
        "Qualifying,1,1,10,1,Ann,0,yes,\n"  # line 5
        "Qualifying,1,1,12,99,Zed,0,yes,\n"  # line 6
        "Qualifying,1,1,12,2,Robert,12,no,\n"  # line 7
        "Qualifying,1,1,12,3,Cy,30,maybe,\n"  # line 8
        "Qualifying,1,1,12,4,Di,7,no,final\n"  # line 9
        "Qualifying,1,2,11,4,Di,7,no,disputed\n"  # line 10: raised at the table, not uploaded
    )
    response = upload(as_organiser, tournament, text)
    assert response.status_code == 400
    rows = {row["line"]: row["message"] for row in response.json()["rows"]}
    assert "There is no stage 'Finals'" in rows[2]
    assert "Qualifying has no table '9'" in rows[3]
    assert "rounds 1 to 4, not '7'" in rows[4]
    assert "played with the 12 engine, not 10" in rows[5]
    assert "no player number '99'" in rows[6]
    assert "Number 2 is Bob, not 'Robert'" in rows[7]
    assert "Went_out 'maybe' is not yes or no" in rows[8]
    assert "Status 'final' is not submitted or confirmed" in rows[9]
    line_10 = [row["message"].lower() for row in response.json()["rows"] if row["line"] == 10]
    assert any("status 'disputed' is not submitted or confirmed" in m for m in line_10)
    assert "no result was imported" in response.json()["detail"]
    assert not RoundResult.objects.exists()


def test_import_reports_digits_of_other_scripts_as_bad_lines(
    as_organiser, tournament, table, players
):
    text = HEADER + "Qualifying,¹,1,12,1,Ann,0,yes,\nQualifying,1,²,12,1,Ann,0,yes,\n"
    text += "Qualifying,1,1,12,³,Ann,0,yes,\nQualifying,1,1,12,99999999999999999999,Ann,0,yes,\n"
    response = upload(as_organiser, tournament, text)
    assert response.status_code == 400  # not a server error
    rows = {row["line"]: row["message"] for row in response.json()["rows"]}
    assert "Qualifying has no table '¹'" in rows[2]
    assert "rounds 1 to 4, not '²'" in rows[3]
    assert "no player number '³'" in rows[4]
    assert "no player number '99999999999999999999'" in rows[5]
    assert not RoundResult.objects.exists()


def test_a_line_with_a_wrong_name_is_still_checked_with_its_round_in_one_upload(
    as_organiser, tournament, table, players
):
    text = (
        HEADER + "Qualifying,1,1,12,1,Ann,0,yes,\n"  # line 2
        "Qualifying,1,1,12,2,Robert,14,yes,\n"  # line 3: wrong name, and a second went out
        "Qualifying,1,1,12,3,Cy,30,no,\n"  # line 4
        "Qualifying,1,1,12,4,Di,7,no,\n"  # line 5
    )
    response = upload(as_organiser, tournament, text)
    assert response.status_code == 400
    rows = [(row["line"], row["message"]) for row in response.json()["rows"]]
    messages = " ".join(message for _, message in rows)
    assert any(line == 3 and "Number 2 is Bob, not 'Robert'" in m for line, m in rows)
    assert "Two players are marked as went out" in messages  # found in the same upload
    assert any(line == 3 and "A player who went out scores 0" in m for line, m in rows)
    assert "No score for Bob" not in messages  # his line is there, with a wrong name
    lines = {line for line, _ in rows}
    assert len(rows) > len(lines)  # line 3 has two problems: still one line with errors
    assert response.json()["detail"].startswith(f"{len(lines)} lines have errors")
    assert not RoundResult.objects.exists()


def test_a_name_typed_without_its_accents_or_in_capitals_is_the_same_name(
    as_organiser, tournament, table, players
):
    players[3].name = "Dí Peña"
    players[3].save()
    text = GOOD.splitlines()[0] + "\n" + "\n".join(GOOD.splitlines()[1:5]) + "\n"
    text = text.replace(",4,Di,", ",4,DI  PENA,")
    response = upload(as_organiser, tournament, text)
    assert response.status_code == 201, response.json()
    wrong = text.replace(",4,DI  PENA,", ",4,Di Perez,")
    RoundResult.objects.all().delete()
    refused = upload(as_organiser, tournament, wrong)
    assert refused.status_code == 400
    assert "Number 4 is Dí Peña, not 'Di Perez'" in refused.json()["rows"][0]["message"]


def test_import_checks_each_round_like_the_tablet(as_organiser, tournament, table, players):
    text = (
        HEADER + "Qualifying,1,1,12,1,Ann,0,yes,\n"
        "Qualifying,1,1,12,2,Bob,0,yes,\n"
        "Qualifying,1,1,12,3,Cy,30,no,\n"  # Di missing
    )
    response = upload(as_organiser, tournament, text)
    assert response.status_code == 400
    messages = " ".join(response.json()["file"])
    assert "table 1, round 1: Two players are marked as went out" in messages
    assert "table 1, round 1: No score for Di" in messages
    assert not RoundResult.objects.exists()


def test_import_will_not_overwrite_a_result(as_organiser, tournament, table, players):
    factories.RoundResultFactory(table=table, stage=table.stage, round_no=1)
    response = upload(as_organiser, tournament, GOOD)
    assert response.status_code == 400
    assert "table 1, round 1 already has a result" in response.json()["file"][0]
    assert RoundResult.objects.count() == 1


def test_import_respects_the_second_person_rule(as_organiser, tournament, table, players):
    table.stage.requires_second_person = True
    table.stage.save()
    response = upload(as_organiser, tournament, GOOD)
    assert response.status_code == 400
    assert "another official must confirm" in response.json()["file"][0]


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_import_is_for_organisers(request, tournament, table, players, client, status):
    assert upload(request.getfixturevalue(client), tournament, GOOD).status_code == status
    assert not RoundResult.objects.exists()


def test_import_page_shows_errors_by_line(client, organiser, tournament, table, players):
    client.force_login(organiser)
    bad = SimpleUploadedFile("s.csv", (HEADER + "Qualifying,1,1,12,1,Zed,0,yes,\n").encode())
    response = client.post(f"/t/{tournament.slug}/manage/scores/import/", {"file": bad})
    assert response.status_code == 400
    assert "Line 2: Number 1 is Ann, not &#x27;Zed&#x27;" in response.content.decode()
    good = SimpleUploadedFile("s.csv", GOOD.encode())
    response = client.post(
        f"/t/{tournament.slug}/manage/scores/import/", {"file": good}, follow=True
    )
    assert "Entered 2 round results from the file." in response.content.decode()


def test_a_quote_left_open_in_a_long_scores_file_is_a_line_error(
    as_organiser, tournament, table, players
):
    swallowed = "".join(f"Qualifying,1,1,12,{n},P{n},5,no,\n" for n in range(5, 9_000))
    text = HEADER + 'Qualifying,1,1,12,1,"Ann,0,yes,confirmed\n' + swallowed
    response = upload(as_organiser, tournament, text)
    assert response.status_code == 400
    assert any(
        line.startswith("Line 2: This line cannot be read as CSV: a cell is longer than")
        for line in response.json()["file"]
    )
    assert not RoundResult.objects.exists()
