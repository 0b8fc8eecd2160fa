"""Players entered before the history began get one entry holding their entry as it stood."""

import pytest

from tests.migrating import migrated

BEFORE = [("tournaments", "0006_player_history")]
AFTER = [("tournaments", "0007_player_history_baseline")]


def old_players(apps):
    tournament = apps.get_model("tournaments", "Tournament").objects.create(
        name="Old event", slug="old-event", domino_set=12
    )
    player_model = apps.get_model("tournaments", "Player")
    ann = player_model.objects.create(
        tournament=tournament, number=7, name="Ann Smiht", status="withdrawn"
    )
    bob = player_model.objects.create(tournament=tournament, number=8, name="Bob Ortiz")
    history = apps.get_model("tournaments", "HistoricalPlayer")
    history.objects.create(  # a player with a history already keeps it as it is
        id=bob.pk, tournament_id=tournament.pk, number=8, name="Bob Ortiz", household="",
        club="", status="registered", history_type="+", history_change_reason="added",
        history_date="2026-11-01T10:00:00Z",
    )  # fmt: skip
    return ann, bob


@pytest.mark.django_db(transaction=True)
def test_players_entered_before_the_history_get_a_baseline_entry():
    ann, bob = migrated(BEFORE, AFTER, old_players)

    from tournaments.models import Player
    from tournaments.selectors import player_history

    (entry,) = Player.objects.get(pk=ann.pk).history.all()
    assert (entry.name, entry.status, entry.history_change_reason) == (
        "Ann Smiht",
        "withdrawn",
        "baseline",
    )
    assert [e.history_change_reason for e in Player.objects.get(pk=bob.pk).history.all()] == [
        "added"
    ]
    # The first change after it shows what the entry was before.
    corrected = Player.objects.get(pk=ann.pk)
    corrected.name = "Ann Smith"
    corrected._change_reason = "corrected"
    corrected.save()
    newest, oldest = player_history(corrected)
    assert [(c.field, c.old, c.new) for c in newest.changes] == [("Name", "Ann Smiht", "Ann Smith")]
    assert oldest.what == "Entry as first recorded"
