"""The snapshot's rounds_played now counts only the rounds a player played, not the rounds a
late entry missed that the stage's rule fills: the stages with a late entry are marked stale,
so that the sweeper rebuilds their standings (recomputed, never incremented)."""

from django.db import migrations
from django.db.models import F
from django.utils import timezone


def mark_late_stages_stale(apps, schema_editor):
    Seat = apps.get_model("tables", "Seat")
    StageStandings = apps.get_model("scoring", "StageStandings")
    stages = Seat.objects.filter(from_round__gt=1).values("stage_id")
    StageStandings.objects.filter(stage_id__in=stages).update(
        change_seq=F("change_seq") + 1, changed_at=timezone.now()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0005_standing_row_digest"),
        ("tables", "0003_playoffs"),
    ]

    operations = [migrations.RunPython(mark_late_stages_stale, migrations.RunPython.noop)]
