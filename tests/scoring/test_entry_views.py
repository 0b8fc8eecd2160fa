"""The tablet pages without JavaScript: the same services, the same rules, errors by the field."""

import re

import pytest

from scoring.models import RoundResult, RoundResultVersion
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def official_client(client, official):
    client.force_login(official)
    return client


def stored_pips() -> list[int]:
    """The round's stored pips, in badge-number order."""
    return [s.pips for s in RoundResult.objects.get().scores.order_by("player__number")]


def entry_url(table, round_no=1, suffix=""):
    return f"/t/{table.stage.tournament.slug}/enter/{table.pk}/{round_no}/{suffix}"


def form(players, pips=("0", "12", "30", "7"), went_out=0, key="form-key-1", **extra):
    data = {f"pips-{p.pk}": pip for p, pip in zip(players, pips, strict=True)}
    data["went_out"] = "blocked" if went_out == "blocked" else str(players[went_out].pk)
    data["idempotency_key"] = key
    return {**data, **extra}


def test_table_list_shows_each_rounds_status(official_client, table, players):
    factories.RoundResultFactory(table=table, stage=table.stage, round_no=1)
    page = official_client.get(f"/t/{table.stage.tournament.slug}/enter/").content.decode()
    assert "Table 1" in page
    assert "R1: • to check" in page and "R2: ○ missing" in page


def test_qr_code_landing_goes_to_the_first_round_to_report(official_client, table, players):
    response = official_client.get(f"/t/{table.stage.tournament.slug}/enter/{table.pk}/")
    assert response["Location"] == entry_url(table, 1)


def test_entry_form_shows_engine_players_in_seat_order_and_totals(official_client, table, players):
    page = official_client.get(entry_url(table)).content.decode()
    assert "Engine: <strong>double-12</strong>" in page
    # Each name as the form labels it: a bare "Di" could also turn up in the random CSRF token.
    positions = [
        page.index(f'{name}</span> <span class="muted">#') for name in ("Ann", "Bob", "Cy", "Di")
    ]
    assert positions == sorted(positions)
    assert 'inputmode="numeric"' in page
    assert "Total before: <strong>0</strong>" in page


def test_submit_then_check_then_confirm(official_client, table, players):
    response = official_client.post(entry_url(table), form(players))
    assert response["Location"] == entry_url(table, 1, "check/")
    check = official_client.get(entry_url(table, 1, "check/")).content.decode()
    assert "Players, please check" in check and "went out" in check
    result = RoundResult.objects.get()
    confirmed = official_client.post(entry_url(table, 1, "check/"), {"if_match": result.etag})
    assert confirmed.status_code == 302
    result.refresh_from_db()
    assert result.status == "confirmed"
    assert RoundResultVersion.objects.filter(result=result, source="web").count() == 2
    round_two = official_client.get(entry_url(table, 2)).content.decode()
    assert "Total before: <strong>12</strong>" in round_two  # Bob's running total


def test_bad_entry_shows_the_error_next_to_the_field_and_keeps_what_was_typed(
    official_client, table, players
):
    response = official_client.post(entry_url(table), form(players, pips=("0", "1x", "30", "7")))
    assert response.status_code == 400
    page = response.content.decode()
    assert f'id="error-{players[1].pk}"' in page
    assert "Enter a whole number of pips, 0 or more" in page
    wrong = re.search(rf'<input[^>]*id="pips-{players[1].pk}"[^>]*>', page)[0]
    assert "autofocus" in wrong and 'aria-invalid="true"' in wrong
    assert 'value="1x"' in page and 'value="30"' in page
    assert not RoundResult.objects.exists()


def test_nobody_marked_as_went_out_is_said_beside_the_went_out_choices(
    official_client, table, players
):
    data = form(players, pips=("4", "12", "30", "7"))
    del data["went_out"]
    response = official_client.post(entry_url(table), data)
    assert response.status_code == 400
    page = response.content.decode()
    blocked_row = page.split('class="player-row blocked-row"', 1)[1].split("</div>", 1)[0]
    assert "Nobody is marked as went out" in blocked_row
    errors_at_the_top = page.split('id="form-errors"', 1)[1].split("</div>", 1)[0]
    assert "Nobody is marked" not in errors_at_the_top
    assert "Not saved: correct what is marked below." in errors_at_the_top
    # The first "Went out" takes the focus as the page loads, described by the message.
    first = re.search(r'<input type="radio" name="went_out"[^>]*>', page)[0]
    assert f'value="{players[0].pk}"' in first and "autofocus" in first
    assert 'aria-describedby="blocked-errors"' in first and 'id="blocked-errors"' in page
    assert page.count("autofocus") == 1
    assert not RoundResult.objects.exists()


def test_double_tap_on_save_counts_once(official_client, table, players):
    official_client.post(entry_url(table), form(players, key="same-form"))
    again = official_client.post(entry_url(table), form(players, key="same-form"))
    assert again.status_code == 302
    assert RoundResult.objects.count() == 1
    assert RoundResultVersion.objects.count() == 1


def test_blocked_round_from_the_form(official_client, table, players):
    official_client.post(
        entry_url(table), form(players, pips=("3", "12", "30", "7"), went_out="blocked")
    )
    assert RoundResult.objects.get().blocked


def test_editing_a_submitted_round_needs_the_version_it_was_read_at(
    official_client, table, players
):
    official_client.post(entry_url(table), form(players, key="a"))
    result = RoundResult.objects.get()
    stale = official_client.post(
        entry_url(table), form(players, pips=("0", "1", "2", "3"), key="b", if_match='"0-0"')
    )
    # Refused, and nothing changes: the form shows the scores as they are now, and what the
    # official typed is said beside them, so it is not lost.
    assert stale.status_code == 412
    page = stale.content.decode()
    assert "Someone saved scores for this round on another device after you opened it" in page
    names = [p.name for p in players]
    typed = f"{names[0]} 0 (went out), {names[1]} 1, {names[2]} 2, {names[3]} 3"
    assert f"You typed: {typed}" in page
    assert 'value="12"' in page  # the stored 12, not the 1 typed
    assert "If-Match" not in page and "ETag" not in page
    result.refresh_from_db()
    assert result.version == 1
    official_client.post(
        entry_url(table), form(players, pips=("0", "1", "2", "3"), key="c", if_match=result.etag)
    )
    result.refresh_from_db()
    assert result.version == 2


def test_a_new_round_saved_on_another_device_meanwhile_is_not_overwritten(
    official_client, table, players
):
    official_client.post(entry_url(table), form(players, key="first"))
    # A second tablet had opened the empty round before: it sends no version.
    second = official_client.post(
        entry_url(table), form(players, pips=("0", "5", "5", "5"), key="x")
    )
    assert second.status_code == 428  # it sent no version: there was none
    assert "You typed:" in second.content.decode()
    assert stored_pips() == [0, 12, 30, 7]  # as first saved


def test_an_old_copy_of_the_form_sent_again_with_other_scores_changes_nothing(
    official_client, table, players
):
    official_client.post(entry_url(table), form(players, key="once"))
    # Back in the browser brings the old form (and its key) back; the official changes a score.
    again = official_client.post(
        entry_url(table), form(players, pips=("0", "9", "9", "9"), key="once")
    )
    assert again.status_code == 422
    page = again.content.decode()
    assert "This form was already sent, with other scores" in page
    assert "You typed:" in page and "Idempotency" not in page
    assert RoundResultVersion.objects.count() == 1
    assert stored_pips() == [0, 12, 30, 7]  # as first saved


def test_confirming_scores_changed_since_they_were_shown_marks_what_changed(
    official_client, table, players
):
    official_client.post(entry_url(table), form(players, key="a"))
    shown = RoundResult.objects.get()
    # Meanwhile another device changes Bob's 12 to 21.
    official_client.post(
        entry_url(table),
        form(players, pips=("0", "21", "30", "7"), key="b", if_match=shown.etag),
    )
    refused = official_client.post(entry_url(table, 1, "check/"), {"if_match": shown.etag})
    assert refused["Location"] == entry_url(table, 1, "check/") + "?since=1"
    page = official_client.get(refused["Location"]).content.decode()
    assert "after you opened this page" in page
    assert page.count("(changed: was") == 1 and "(changed: was 12)" in page
    assert RoundResult.objects.get().status == "submitted"  # not confirmed
    # A version that is not an earlier one marks nothing.
    for since in ("2", "9", "x", "-1"):
        marked = official_client.get(entry_url(table, 1, "check/") + f"?since={since}")
        assert "(changed: was" not in marked.content.decode()


def test_a_correction_of_a_confirmed_round_shows_the_players_what_changed(
    official_client, table, players
):
    official_client.post(entry_url(table), form(players, key="a"))
    official_client.post(entry_url(table, 1, "check/"))
    assert RoundResult.objects.get().status == "confirmed"
    approved = official_client.get(entry_url(table, 1, "check/")).content.decode()
    assert "(changed: was" not in approved
    # The official changes Bob's 12 to 21, with the reason a correction needs.
    confirmed = RoundResult.objects.get()
    corrected = official_client.post(
        entry_url(table),
        form(
            players,
            pips=("0", "21", "30", "7"),
            key="b",
            reason="Misread a 2 as a 1",
            if_match=confirmed.etag,
        ),
    )
    assert corrected["Location"] == entry_url(table, 1, "check/")
    page = official_client.get(corrected["Location"]).content.decode()
    # The players are asked again: the check page marks what differs from what they approved.
    assert page.count("(changed: was") == 1 and "(changed: was 12)" in page
    official_client.post(entry_url(table, 1, "check/"))
    assert RoundResult.objects.get().status == "confirmed"
    again = official_client.get(entry_url(table, 1, "check/")).content.decode()
    assert "(changed: was" not in again  # once confirmed, nothing is waiting for them


def test_second_person_rule_on_the_check_screen(official_client, table, players):
    table.stage.requires_second_person = True
    table.stage.save()
    official_client.post(entry_url(table), form(players))
    response = official_client.post(entry_url(table, 1, "check/"), follow=True)
    assert "Another official must confirm this result" in response.content.decode()
    assert RoundResult.objects.get().status == "submitted"


def test_closed_stage_shows_no_form(official_client, table, players):
    table.stage.status = "closed"
    table.stage.save()
    page = official_client.get(entry_url(table)).content.decode()
    assert "is closed" in page and "round-form" not in page
    response = official_client.post(entry_url(table), form(players), follow=True)
    assert "is closed" in response.content.decode()
    assert not RoundResult.objects.exists()


def test_entry_pages_need_staff_of_this_tournament(client, table, players, other_organiser):
    assert client.get(entry_url(table))["Location"].startswith("/accounts/login/")
    client.force_login(other_organiser)
    assert client.get(entry_url(table)).status_code == 403
    assert client.post(entry_url(table), form(players)).status_code == 403
    assert not RoundResult.objects.exists()


@pytest.mark.parametrize("key", ["k" * 201, "key\x00with a NUL", "key\nwith a line break"])
def test_a_form_whose_key_was_altered_is_refused_and_says_to_reload(
    official_client, table, players, key
):
    response = official_client.post(entry_url(table), form(players, key=key))
    assert response.status_code == 400
    page = response.content.decode()
    errors_at_the_top = page.split('id="form-errors"', 1)[1].split("</div>", 1)[0]
    assert "reload the page and enter the round again" in errors_at_the_top
    assert 'value="12"' in page  # what was typed is still in the form
    assert not RoundResult.objects.exists()
    fresh = page.split('name="idempotency_key" value="', 1)[1].split('"', 1)[0]
    assert fresh != key and len(fresh) == 32  # sent again, the form is taken
    again = official_client.post(entry_url(table), form(players, key=fresh))
    assert again.status_code == 302 and RoundResult.objects.count() == 1


def test_a_reason_too_long_for_a_new_round_is_said_at_the_top(official_client, table, players):
    # The reason field is shown for corrections only: a hand-made form's error has to show too.
    response = official_client.post(entry_url(table), form(players, reason="x" * 1001))
    assert response.status_code == 400
    errors_at_the_top = response.content.decode().split('id="form-errors"', 1)[1]
    assert "Keep the reason under 1,000 characters." in errors_at_the_top.split("</div>", 1)[0]
    assert not RoundResult.objects.exists()


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Enter this player&#x27;s pips (0 if they went out)"),
        ("  ", "Enter this player&#x27;s pips (0 if they went out)"),
        ("abc", "Enter a whole number of pips, 0 or more"),
        ("-5", "Enter a whole number of pips, 0 or more"),
        ("2.5", "Enter a whole number of pips, 0 or more"),
    ],
    ids=["blank", "spaces", "letters", "negative", "fraction"],
)
def test_each_bad_score_gets_its_own_message_and_nothing_is_saved(
    official_client, table, players, typed, message
):
    response = official_client.post(entry_url(table), form(players, pips=("0", typed, "30", "7")))
    assert response.status_code == 400
    page = response.content.decode()
    assert re.search(rf'id="error-{players[1].pk}">{re.escape(message)}<', page)
    assert page.count('class="error field-error" id="error-') == 1  # Bob's only
    assert not RoundResult.objects.exists()


def test_a_draft_is_checked_as_if_sent_and_nothing_is_stored(official_client, table, players):
    """entry.js sends a draft it puts back with check_only: the API's 400 body, stored nothing."""
    draft = form(players, pips=("0", "250", "abc", ""), check_only="1")
    response = official_client.post(entry_url(table), draft)
    assert response.status_code == 200
    body = response.json()
    assert body[f"scores.{players[2].pk}"] == ["Enter a whole number of pips, 0 or more"]
    assert body[f"scores.{players[3].pk}"] == ["Enter this player's pips (0 if they went out)"]
    assert [(w["player"], w["pips"]) for w in body["warnings"]] == [(players[1].pk, 250)]
    assert body["warnings"][0]["message"].startswith("Bob")
    assert not RoundResult.objects.exists()
    # A draft that would be saved: nothing to say, and still nothing stored.
    good = official_client.post(entry_url(table), form(players, check_only="1"))
    assert good.json() == {}
    assert not RoundResult.objects.exists()
    assert not RoundResultVersion.objects.exists()


def test_confirming_a_round_goes_on_to_the_next_one_but_a_correction_to_its_history(
    official_client, table, players
):
    """Confirming a round moves on, even one confirmed after a later round is in (a second
    official's check); confirming a correction of round 1 comes back to round 1's history (what
    was changed, by whom), not to round 3's empty form."""
    official_client.post(entry_url(table), form(players, key="a"))
    official_client.post(entry_url(table, 2), form(players, key="b"))
    confirmed = official_client.post(entry_url(table, 1, "check/"))
    assert confirmed["Location"] == f"/t/{table.stage.tournament.slug}/enter/{table.pk}/"
    official_client.post(entry_url(table, 2, "check/"))
    first = RoundResult.objects.get(round_no=1)
    official_client.post(
        entry_url(table),
        form(players, pips=("0", "21", "30", "7"), key="c", reason="Misread", if_match=first.etag),
    )
    again = official_client.post(entry_url(table, 1, "check/"), follow=True)
    assert again.redirect_chain[-1][0] == entry_url(table, 1, "history/")
    page = again.content.decode()
    assert "Round 1 at table" in page and "is confirmed." in page and "Why: Misread" in page


def test_score_entry_with_no_stage_in_play_says_whether_the_event_is_over(
    official_client, table, players
):
    home = f"/t/{table.stage.tournament.slug}/enter/"
    table.stage.status = "closed"
    table.stage.save()
    other = factories.TableFactory(stage=table.stage, number=2)  # two tables: a playoff follows
    factories.StageFactory(tournament=table.stage.tournament, order=2, kind="playoff")
    page = official_client.get(home).content.decode()
    assert "No stage is in play right now: the next one has not been seated yet." in page
    assert "No stage is seated yet" not in page
    other.delete()  # a closed stage of one table decides the places
    page = official_client.get(home).content.decode()
    assert "The tournament is finished: every round is in and the places are decided." in page
    assert f'href="/en/t/{table.stage.tournament.slug}/results/"' in page
    assert "No stage is seated yet" not in page
