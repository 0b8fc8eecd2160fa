"""A club's ratings kept in the database: rated by the Celery task (eager here) when scoring's
results change or a player is linked, from that event on, and always equal, float for float, to
rating the whole stored history again; shown on the roster and on the member's public page."""

import datetime
import re
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clubs import rating_store, services
from clubs.models import ClubTournament, Member, RatingPoint
from clubs.rating import PROVISIONAL_ROUNDS, rate
from clubs.tasks import sweep_clubs
from scoring.models import RoundResult
from scoring.services import confirm_round_result, submit_round_result
from tables.models import Table
from tests import factories
from tournaments.models import Player

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 7)


@dataclass
class Event:
    """A club tournament of one seated stage: each table's players, in seat order."""

    tournament: object
    stage: object
    tables: list[list[Player]]


def club_event(club, day, tables: list[list[Member | None]], rounds: int = 2) -> Event:
    """A tournament of the club on `day`, seated; a seat's player is linked to its member
    (through the service), or to nobody for None."""
    tournament = factories.TournamentFactory(starts_on=day)
    ClubTournament.objects.create(club=club, tournament=tournament)
    stage = factories.StageFactory(
        tournament=tournament, order=1, rounds=rounds, status="seated", table_size_min=2
    )
    seated, number = [], 1
    for table_no, members in enumerate(tables, start=1):
        table = factories.TableFactory(stage=stage, number=table_no)
        row = []
        for position, member in enumerate(members, start=1):
            name = member.name if member else f"Guest {number}"
            player = factories.PlayerFactory(tournament=tournament, number=number, name=name)
            factories.SeatFactory(table=table, player=player, position=position)
            if member is not None:
                services.link(player=player, member=member, by=None)
            row.append(player)
            number += 1
        seated.append(row)
    return Event(tournament, stage, seated)


def body(players, pips, reason=""):
    """A blocked round: everyone scores pips, nobody went out (any pips are valid)."""
    scores = [
        {"player": p.pk, "pips": n, "went_out": False} for p, n in zip(players, pips, strict=True)
    ]
    return {"blocked": True, "scores": scores, **({"reason": reason} if reason else {})}


def play(event: Event, table_no: int, round_no: int, pips) -> RoundResult:
    """Enter and confirm the round through scoring's services (two officials)."""
    enterer, confirmer = factories.UserFactory(), factories.UserFactory()
    table = Table.objects.get(stage=event.stage, number=table_no)
    outcome = submit_round_result(
        table=table, round_no=round_no, data=body(event.tables[table_no - 1], pips), by=enterer
    )
    return confirm_round_result(result=outcome.result, by=confirmer)


def correct(event: Event, table_no: int, round_no: int, pips) -> RoundResult:
    """Correct a confirmed round (scoring's correction: a new version, with a reason), and
    confirm the correction."""
    enterer, confirmer = factories.UserFactory(), factories.UserFactory()
    table = Table.objects.get(stage=event.stage, number=table_no)
    result = RoundResult.objects.get(table=table, round_no=round_no)
    outcome = submit_round_result(
        table=table,
        round_no=round_no,
        data=body(event.tables[table_no - 1], pips, reason="Added up again"),
        by=enterer,
        if_match=result.etag,
    )
    return confirm_round_result(result=outcome.result, by=confirmer)


def stored(club):
    return rating_store.load_state(club.pk)


def full(club):
    """Every rating again from the stored history, as a full recompute makes it."""
    return rate(rating_store.load_history(club.pk, rating_store.club_events(club.pk)))


# ---- recompute equal to the incremental runs ----------------------------------------------------

PIPS = st.sampled_from([0, 3, 8, 8, 15, 27, 40])


@st.composite
def club_histories(draw: st.DrawFn):
    """A few events (dates drawn, so a later event may be dated earlier than one played before),
    tables of two to four seats, some seats not linked to a member; then maybe a correction of
    an earlier round."""
    events = []
    for _ in range(draw(st.integers(1, 3))):
        day = DAY + datetime.timedelta(days=draw(st.integers(0, 3)))
        sizes = draw(st.lists(st.integers(2, 4), min_size=1, max_size=2))
        seats = draw(st.permutations(range(8)))  # a member sits once per event
        seats = iter(seats)
        tables = [
            [next(seats) if draw(st.integers(0, 5)) else None for _ in range(size)]
            for size in sizes
        ]
        rounds = draw(st.integers(1, 2))
        pips = [[[draw(PIPS) for _ in range(size)] for size in sizes] for _ in range(rounds)]
        events.append((day, tables, rounds, pips))
    fix = None
    if draw(st.booleans()):
        index = draw(st.integers(0, len(events) - 1))
        _day, tables, rounds, _pips = events[index]
        table_no = draw(st.integers(1, len(tables)))
        round_no = draw(st.integers(1, rounds))
        fix = (index, table_no, round_no, [draw(PIPS) for _ in tables[table_no - 1]])
    return events, fix


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=club_histories())
def test_task_runs_after_each_event_equal_a_full_recompute(
    history, django_capture_on_commit_callbacks
):
    events, fix = history
    club = factories.ClubFactory()
    members = [factories.MemberFactory(club=club, name=f"Member {i}") for i in range(8)]
    played = []
    for day, tables, rounds, pips in events:
        with django_capture_on_commit_callbacks(execute=True):
            seats = [[members[i] if i is not None else None for i in row] for row in tables]
            event = club_event(club, day, seats, rounds=rounds)
            for round_no in range(1, rounds + 1):
                for table_no in range(1, len(tables) + 1):
                    play(event, table_no, round_no, pips[round_no - 1][table_no - 1])
        played.append(event)
        assert stored(club) == full(club)  # after each event, float for float
    if fix is not None:
        index, table_no, round_no, pips = fix
        with django_capture_on_commit_callbacks(execute=True):
            correct(played[index], table_no, round_no, pips)
        assert stored(club) == full(club)
    # And what the task stores from the start is what it stored run by run.
    before = stored(club)
    rating_store.rate_club(club_id=club.pk)
    assert stored(club) == before


@pytest.fixture
def club():
    return factories.ClubFactory()


@pytest.fixture
def members(club):
    return [factories.MemberFactory(club=club, name=name) for name in ("Ann", "Bob", "Cy", "Di")]


def test_a_corrected_round_recomputes_from_its_event_and_equals_a_full_recompute(
    club, members, django_capture_on_commit_callbacks
):
    ann, bob, cy, di = members
    with django_capture_on_commit_callbacks(execute=True):
        first = club_event(club, DAY, [[ann, bob, cy, di]])
        second = club_event(club, DAY + datetime.timedelta(days=7), [[ann, bob, cy, di]])
        third = club_event(club, DAY + datetime.timedelta(days=14), [[ann, bob, cy, di]])
        for event in (first, second, third):
            play(event, 1, 1, [0, 10, 20, 30])
            play(event, 1, 2, [5, 0, 25, 12])
    kept = set(RatingPoint.objects.filter(tournament=first.tournament).values_list("pk", "mu"))
    later = dict(
        RatingPoint.objects.filter(member=ann, tournament=third.tournament).values_list(
            "member_id", "mu"
        )
    )
    with django_capture_on_commit_callbacks(execute=True):
        correct(second, 1, 1, [40, 10, 20, 30])  # Ann's first place was a last one
    # The event before the correction is untouched (its very rows); from it on, all again.
    assert (
        set(RatingPoint.objects.filter(tournament=first.tournament).values_list("pk", "mu")) == kept
    )
    assert RatingPoint.objects.get(member=ann, tournament=third.tournament).mu < later[ann.pk]
    assert stored(club) == full(club)
    run = rating_store.rate_club(club_id=club.pk, tournament_id=second.tournament.pk)
    assert run.since == (second.tournament.starts_on, second.tournament.pk)
    assert run.points == 8  # four members, two events from the corrected one
    assert stored(club) == full(club)


def test_a_result_entered_but_not_confirmed_is_not_rated(
    club, members, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        event = club_event(club, DAY, [members])
        table = Table.objects.get(stage=event.stage, number=1)
        submit_round_result(
            table=table,
            round_no=1,
            data=body(event.tables[0], [0, 1, 2, 3]),
            by=factories.UserFactory(),
        )
        services.link(
            player=factories.PlayerFactory(tournament=event.tournament),
            member=factories.MemberFactory(club=club),
            by=None,
        )
    assert not RatingPoint.objects.exists()


def test_unlinked_players_are_skipped_and_a_table_needs_two_members(
    club, members, django_capture_on_commit_callbacks
):
    ann, bob, cy, _di = members
    with django_capture_on_commit_callbacks(execute=True):
        # Table 1: Ann, a guest and Bob (two members: rated between them); table 2: Cy and two
        # guests (one member: no game between members, Cy is not rated).
        event = club_event(club, DAY, [[ann, None, bob], [cy, None, None]], rounds=1)
        play(event, 1, 1, [20, 0, 10])
        play(event, 2, 1, [0, 10, 20])
    ratings = rating_store.current_ratings(club.pk)
    assert set(ratings) == {ann.pk, bob.pk}
    assert (
        ratings[bob.pk].mu > ratings[ann.pk].mu
    )  # Bob had fewer pips than Ann; the guest is no one
    assert ratings[ann.pk].rounds == ratings[bob.pk].rounds == 1
    history = rating_store.load_history(club.pk, rating_store.club_events(club.pk))
    assert [table_round.results for table_round in history] == [((bob.pk, 10), (ann.pk, 20))]


def test_linking_and_unlinking_a_player_rates_again_from_that_event(
    club, members, django_capture_on_commit_callbacks
):
    ann, bob, cy, _di = members
    with django_capture_on_commit_callbacks(execute=True):
        event = club_event(club, DAY, [[ann, bob, None]], rounds=1)
        play(event, 1, 1, [10, 20, 0])
    assert set(rating_store.current_ratings(club.pk)) == {ann.pk, bob.pk}
    guest = event.tables[0][2]
    with django_capture_on_commit_callbacks(execute=True):
        services.link(player=guest, member=cy, by=None)
    ratings = rating_store.current_ratings(club.pk)
    assert set(ratings) == {ann.pk, bob.pk, cy.pk}
    assert ratings[cy.pk].mu > ratings[ann.pk].mu > ratings[bob.pk].mu
    assert stored(club) == full(club)
    with django_capture_on_commit_callbacks(execute=True):
        services.unlink(player=event.tables[0][0])  # Ann was not this player after all
    assert set(rating_store.current_ratings(club.pk)) == {bob.pk, cy.pk}
    assert not RatingPoint.objects.filter(member=ann).exists()
    assert stored(club) == full(club)


def test_results_of_a_tournament_no_club_owns_rate_nothing(django_capture_on_commit_callbacks):
    tournament = factories.TournamentFactory()
    stage = factories.StageFactory(tournament=tournament, order=1, rounds=1, status="seated")
    table = factories.TableFactory(stage=stage, number=1)
    players = [factories.SeatFactory(table=table, position=i).player for i in (1, 2, 3)]
    with django_capture_on_commit_callbacks(execute=True):
        play(Event(tournament, stage, [players]), 1, 1, [0, 5, 9])
    assert not RatingPoint.objects.exists()


def early_and_late(club, members, capture) -> tuple[Event, Event]:
    """Two rated events a week apart: Ann and Bob in the early one, everyone in the late one."""
    ann, bob, cy, di = members
    with capture(execute=True):
        early = club_event(club, DAY, [[ann, bob]], rounds=1)
        late = club_event(club, DAY + datetime.timedelta(days=7), [[ann, bob], [cy, di]], rounds=1)
        play(early, 1, 1, [0, 10])
        play(late, 1, 1, [10, 0])
        play(late, 2, 1, [0, 10])
    return early, late


def test_a_changed_event_date_makes_the_next_run_a_full_recompute(
    club, members, django_capture_on_commit_callbacks
):
    ann = members[0]
    early, late = early_and_late(club, members, django_capture_on_commit_callbacks)
    # The early event turns out to have been played after the late one.
    type(early.tournament).objects.filter(pk=early.tournament.pk).update(
        starts_on=DAY + datetime.timedelta(days=14)
    )
    run = rating_store.rate_club(club_id=club.pk, tournament_id=late.tournament.pk)
    assert run.since is None  # the stored points were for events as they were: all again
    assert stored(club) == full(club)
    assert rating_store.current_ratings(club.pk)[ann.pk].last_key.event_id == early.tournament.pk


def test_a_tournament_removed_from_the_club_takes_its_rounds_out_of_the_ratings(
    club, members, django_capture_on_commit_callbacks
):
    ann, bob, cy, di = members
    with django_capture_on_commit_callbacks(execute=True):
        kept = club_event(club, DAY, [[ann, bob], [cy, di]], rounds=1)
        gone = club_event(club, DAY + datetime.timedelta(days=7), [[ann, bob]], rounds=1)
        play(kept, 1, 1, [0, 10])
        play(kept, 2, 1, [0, 10])
        play(gone, 1, 1, [10, 0])
    with django_capture_on_commit_callbacks(execute=True):
        services.remove_tournament(club=club, tournament=gone.tournament)
    assert not RatingPoint.objects.filter(tournament=gone.tournament).exists()
    assert rating_store.current_ratings(club.pk)[ann.pk].rounds == 1
    assert stored(club) == full(club)


def test_a_date_moved_in_the_tournaments_details_rates_the_club_again_in_the_new_order(
    club, members, django_capture_on_commit_callbacks
):
    ann = members[0]
    early, _late = early_and_late(club, members, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):  # as the details form saves it
        early.tournament.starts_on = DAY + datetime.timedelta(days=14)
        early.tournament.save()
    assert stored(club) == full(club)
    assert rating_store.current_ratings(club.pk)[ann.pk].last_key.event_id == early.tournament.pk


def test_the_sweep_puts_right_what_a_lost_run_left_behind(
    club, members, django_capture_on_commit_callbacks
):
    ann, bob, cy, di = members
    with django_capture_on_commit_callbacks(execute=True):
        event = club_event(club, DAY, [[ann, bob, cy, di]], rounds=2)
        play(event, 1, 1, [0, 10, 20, 30])
    # Round 2 confirmed while the broker was down: its run was never sent.
    play(event, 1, 2, [30, 20, 10, 0])
    assert stored(club) != full(club)
    assert sweep_clubs.delay().get() >= 1
    assert stored(club) == full(club)


# ---- the pages ----------------------------------------------------------------------------------


def rated_club(club, members, capture, events: int = 1):
    ann, bob, cy, di = members
    with capture(execute=True):
        for n in range(events):
            event = club_event(
                club, DAY + datetime.timedelta(days=7 * n), [[ann, bob, cy, di]], rounds=2
            )
            play(event, 1, 1, [0, 10, 20, 30])
            play(event, 1, 2, [0, 12, 25, 30])
    return event


def test_member_page_is_public_with_the_rating_chart_and_no_private_data(
    client, club, members, django_capture_on_commit_callbacks
):
    ann = members[0]
    Member.objects.filter(pk=ann.pk).update(
        household="Rose Cottage", email="ann@example.org", phone="555-0199"
    )
    event = rated_club(club, members, django_capture_on_commit_callbacks, events=2)
    response = client.get(f"/en/c/{club.slug}/members/{ann.pk}/")
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers
    assert "public" in response["Cache-Control"]
    page = response.content.decode()
    for private in ("Rose Cottage", "ann@example.org", "555-0199", "csrfmiddlewaretoken"):
        assert private not in page
    assert "<svg" in page and 'role="img"' in page and "<desc" in page
    rating = rating_store.current_ratings(club.pk)[ann.pk]
    assert rating.rounds == 4 < PROVISIONAL_ROUNDS
    assert f"<strong>{round(rating.ordinal)}</strong>" in page
    assert "provisional" in page
    assert f'href="/en/t/{event.tournament.slug}/"' in page
    assert page.count("<circle") == 2  # one point per event
    spanish = client.get(f"/es/c/{club.slug}/members/{ann.pk}/").content.decode()
    assert f'href="/es/t/{event.tournament.slug}/"' in spanish
    # The chart's numbers are the SVG's, not written the Spanish way ("45,5").
    assert not re.search(r' (?:x|y|cx|cy|y1|y2)="[-\d.]*,', spanish)
    assert re.search(r' cy="\d+\.\d"', spanish)


def test_member_page_of_a_member_with_no_rounds_says_no_rating_yet_and_changes_nothing(
    client, club
):
    member = factories.MemberFactory(club=club, name="Newcomer")
    club_event(club, DAY, [[member, None]])  # entered, no round played yet
    response = client.get(f"/en/c/{club.slug}/members/{member.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "No rating yet" in page and "<svg" not in page
    assert not RatingPoint.objects.exists()


def test_member_page_of_an_erased_member_shows_the_anonymised_name(
    client, club, members, django_capture_on_commit_callbacks
):
    rated_club(club, members, django_capture_on_commit_callbacks)
    ann = services.erase_member(member=members[0], by=None)
    page = client.get(f"/en/c/{club.slug}/members/{ann.pk}/").content.decode()
    assert ann.name in page and "Ann" not in page.replace(ann.name, "")


def test_member_page_is_not_found_for_another_clubs_member(client, club):
    other = factories.MemberFactory()
    assert client.get(f"/en/c/{club.slug}/members/{other.pk}/").status_code == 404
    # Nor for a member of the roster who never played: who is a member is the organisers'.
    on_the_roster = factories.MemberFactory(club=club)
    assert client.get(f"/en/c/{club.slug}/members/{on_the_roster.pk}/").status_code == 404
    assert client.get(f"/en/c/{club.slug}/members/999999/").status_code == 404


def test_roster_shows_the_rating_rounds_and_provisional(
    client, club, members, django_capture_on_commit_callbacks
):
    rated_club(club, members, django_capture_on_commit_callbacks)
    newcomer = factories.MemberFactory(club=club, name="Zed Newcomer")
    client.force_login(factories.ClubOrganiserFactory(club=club).user)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    rating = rating_store.current_ratings(club.pk)[members[0].pk]
    assert f'{round(rating.ordinal)} <span class="muted">(2 rounds)</span>' in page
    assert "provisional" in page
    row = page.split(f'id="member-{newcomer.pk}"')[1].split("</tr>")[0]
    assert "no rating yet" in row
    member_page = client.get(f"/clubs/{club.slug}/members/{members[0].pk}/").content.decode()
    assert f"/en/c/{club.slug}/members/{members[0].pk}/" in member_page


def test_a_run_and_the_pages_take_as_many_queries_for_a_long_history_as_for_a_short_one(
    client, django_capture_on_commit_callbacks
):
    counts = []
    for events in (1, 4):
        club = factories.ClubFactory()
        members = [factories.MemberFactory(club=club) for _ in range(4)]
        last = rated_club(club, members, django_capture_on_commit_callbacks, events=events)
        client.logout()
        with CaptureQueriesContext(connection) as run:
            rating_store.rate_club(club_id=club.pk, tournament_id=last.tournament.pk)
        with CaptureQueriesContext(connection) as full_run:
            rating_store.rate_club(club_id=club.pk)
        with CaptureQueriesContext(connection) as page:
            client.get(f"/en/c/{club.slug}/members/{members[0].pk}/")
        client.force_login(factories.ClubOrganiserFactory(club=club).user)
        with CaptureQueriesContext(connection) as roster:
            client.get(f"/clubs/{club.slug}/")
        counts.append((len(run), len(full_run), len(page), len(roster)))
    assert counts[0] == counts[1]
