"""The playoffs on the pages: the bracket, closing from the console, the progress board and
the history."""

import re

import pytest

from scoring.models import Placing
from tables.models import Seat, Table
from tests.conftest import client_for
from tests.scoring.helpers import close, play, play_stage, playoff, qualifying_with_tables
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def names(count: int, prefix: str = "P") -> list[str]:
    return [f"{prefix}{n}" for n in range(1, count + 1)]


def test_bracket_page_shows_levels_tables_origins_and_placings(client, as_organiser, tournament):
    stage = qualifying_with_tables(tournament, [3] * 6)
    level1 = playoff(tournament, size_min=3, size_max=3)
    play_stage(stage)
    assert (
        "have not started yet" in client.get(f"/en/t/{tournament.slug}/bracket/").content.decode()
    )
    close(as_organiser, stage)
    page = client.get(f"/en/t/{tournament.slug}/bracket/").content.decode()
    assert "Playoff 2" in page and "Players came from the tables of" in page
    assert "table 6" in page  # the winner of table 6 is seated, and where they came from shows

    def level_of(page: str, stage: Stage) -> str:
        return page.split(f'id="level-{stage.pk}"', 1)[1].split("</section>", 1)[0]

    # Before any round is in, nobody has a place (not "1, 1, 1"); while a level is played, its
    # places and who goes on are the score so far; with every round in, they are decided.
    seated = level_of(client.get(f"/en/t/{tournament.slug}/bracket/").content.decode(), level1)
    assert '<td class="num">1</td>' not in seated and "would advance" not in seated
    at_tables = [
        [seat.player for seat in table.seats.order_by("position")]
        for table in Table.objects.filter(stage=level1).order_by("number")
    ]

    def play_round(round_no: int, tables: list) -> None:
        for players in tables:
            play(level1, players, round_no, [5 * k for k in range(len(players))])

    play_round(1, at_tables)
    play_round(2, at_tables[:1])
    playing = level_of(client.get(f"/en/t/{tournament.slug}/bracket/").content.decode(), level1)
    assert "Place so far" in playing and "✓ would advance<" in playing
    assert "Ranked on round 1, which every table has reported." in playing
    assert ">advances<" not in playing and ">Place<" not in playing
    assert "would advance: as the standings stand now." in playing  # the legend
    play_round(2, at_tables[1:])
    close(as_organiser, level1)
    played = level_of(client.get(f"/en/t/{tournament.slug}/bracket/").content.decode(), level1)
    assert ">Place<" in played and "✓ advances<" in played and "so far" not in played
    final = Stage.objects.get(source_stage=level1)
    # The last seat goes out every round: the final's places run against its seat order.
    play_stage(final, score_of=lambda seat, round_no: 5 * (3 - seat.position))
    close(as_organiser, final)
    page = client.get(f"/en/t/{tournament.slug}/bracket/").content.decode()
    assert "Final placings" in page and "final table" in page
    winner = Placing.objects.get(tournament=tournament, place=1).player
    assert f'<span class="place">1</span> {winner.name}' in page
    # The final table lists its players best placed first, not by seat.
    final_table = page[page.index("final table") :]
    finalists = final.seats.values_list("player", flat=True)
    places = Placing.objects.filter(tournament=tournament, player__in=finalists).order_by("place")
    names = [p.player.name for p in places]
    assert len(names) >= 2
    assert [final_table.index(name) for name in names] == sorted(
        final_table.index(name) for name in names
    )


def test_the_console_asks_before_closing_and_says_what_is_missing_and_what_follows(
    client, organiser, tournament
):
    stage = qualifying_with_tables(tournament, [3, 3], wildcards=1)
    semis = playoff(tournament, starting_double=9)
    semis.rounds = 3
    semis.save()
    client.force_login(organiser)
    console = client.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    ask = f"/t/{tournament.slug}/manage/stages/1/close/"
    assert f'href="{ask}"' in console  # a link to the question, not a form that closes
    page = client.get(ask).content.decode()
    assert "It cannot close yet" in page and "Table 1 round 1 is missing" in page
    assert '<form method="post"' not in page.split("What closing does", 1)[1]
    # Table 2's players score a pip more than table 1's: no tie for the wildcard.
    play_stage(stage, score_of=lambda seat, _: 5 * (seat.position - 1) + seat.table.number)
    page = client.get(ask).content.decode()
    assert "It cannot close yet" not in page
    assert "only an organiser can correct its results: a correction reopens the stage" in page
    assert "Each table's winner goes on to the next playoff level" in page
    assert "So does 1 more player, the best of the rest overall (a wildcard)." in page
    assert f"{semis.name} starts from double-9 and plays 3 rounds." in page
    stage.refresh_from_db()
    assert stage.status == "seated"  # asking changed nothing
    client.post(ask)
    stage.refresh_from_db()
    assert stage.status == "closed"
    assert client.get(ask)["Location"] == f"/t/{tournament.slug}/manage/"  # nothing to ask


def test_closing_the_final_says_it_decides_the_placings(client, organiser, tournament):
    stage = qualifying_with_tables(tournament, [4])
    client.force_login(organiser)
    play_stage(stage)
    page = client.get(f"/t/{tournament.slug}/manage/stages/1/close/").content.decode()
    assert "Its ranking decides the placings" in page


def test_close_from_the_console(client, organiser, tournament):
    stage = qualifying_with_tables(tournament, [3, 3])
    client.force_login(organiser)
    refused = client.post(f"/t/{tournament.slug}/manage/stages/1/close/", follow=True)
    assert "cannot close yet: table 1 round 1 is missing" in refused.content.decode()
    play_stage(stage)
    done = client.post(f"/t/{tournament.slug}/manage/stages/1/close/", follow=True)
    assert "is closed" in done.content.decode()
    stage.refresh_from_db()
    assert stage.status == "closed"


def test_progress_board_and_a_tie_decided_from_it(client, organiser, tournament):
    stage = qualifying_with_tables(tournament, [3, 3])
    first = [
        s.player for s in Seat.objects.filter(stage=stage, table__number=1).order_by("position")
    ]
    play(stage, first, 1, [0, 0, 9], blocked=True)
    play(stage, first, 2, [0, 0, 9], blocked=True)
    client.force_login(organiser)
    page = client.get(f"/t/{tournament.slug}/manage/stages/1/progress/").content.decode()
    assert "2 confirmed, 0 to check, 2 missing." in page
    assert "⚑ tie to decide" in page and "Record the decision" in page
    twice = client.post(
        f"/t/{tournament.slug}/manage/stages/1/tiebreak/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [first[1].pk, first[1].pk],  # the same player picked for both places
            "method": "coin",
        },
        follow=True,
    ).content.decode()
    assert "The decision was not recorded. Table 1: " in twice
    assert "A player is chosen for two places" in twice
    assert "a tie-break round (tiebreak_round) or drawing lots (draw)" in twice
    assert "tie to decide" in twice
    response = client.post(
        f"/t/{tournament.slug}/manage/stages/1/tiebreak/",
        {
            "table": Table.objects.get(stage=stage, number=1).pk,
            "order": [first[1].pk, first[0].pk],
            "method": "draw",
            "note": "cards drawn",
        },
        follow=True,
    )
    assert "decision is recorded" in response.content.decode()
    assert "tie to decide" not in response.content.decode()


def test_history_page_lists_every_version(client, organiser, official, tournament):
    stage = qualifying_with_tables(tournament, [3])
    players = [s.player for s in Seat.objects.filter(stage=stage).order_by("position")]
    result = play(stage, players, 1, [0, 4, 9])
    client.force_login(official)
    page = client.get(f"/t/{tournament.slug}/enter/{result.table_id}/1/history/").content.decode()
    assert "Its scores are confirmed." in page
    # A correction through the API: its version says where it came from, in words.
    body = {
        "reason": "Bob had 5",
        "scores": [
            {"player": p.pk, "pips": v, "went_out": v == 0}
            for p, v in zip(players, [0, 5, 9], strict=True)
        ],
    }
    api = client_for(official)
    url = f"/api/v1/tables/{result.table_id}/rounds/1/"
    assert api.put(url, body, format="json", HTTP_IF_MATCH=result.etag).status_code == 200
    page = client.get(f"/t/{tournament.slug}/enter/{result.table_id}/1/history/").content.decode()
    assert f"by {official.username}" in page and "from the API" in page and "Why: Bob had 5" in page
    assert f"Corrected by {official.username} at " in page
    assert "Its scores are still to be checked." in page
    # Each version's time as the rest of the site writes it ("Nov. 27, 2026, 3:54 AM"), with
    # no space before the comma or full stop that follows it.
    said = re.search(r"<p>([^<]*?) Its scores", page).group(1)
    assert re.search(r" at [A-Z][a-z]+\.? \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M\.$", said), said
    assert " ," not in said and " ." not in said and ".." not in said
