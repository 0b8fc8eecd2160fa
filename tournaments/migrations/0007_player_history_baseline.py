"""Each player entered before the history began gets one entry holding their entry as it stood,
so that the first change after it still shows what it was before."""

from django.db import migrations
from django.utils import timezone

FIELDS = ("id", "tournament_id", "number", "name", "household", "club", "status")


def baseline(apps, schema_editor) -> None:
    player_model = apps.get_model("tournaments", "Player")
    history_model = apps.get_model("tournaments", "HistoricalPlayer")
    recorded = set(history_model.objects.values_list("id", flat=True).distinct())
    now = timezone.now()
    history_model.objects.bulk_create(
        (
            history_model(
                **dict(zip(FIELDS, values, strict=True)),
                history_date=now,
                history_type="+",
                history_change_reason="baseline",
            )
            for values in player_model.objects.values_list(*FIELDS).iterator()
            if values[0] not in recorded
        ),
        batch_size=1000,
    )


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0006_player_history")]

    operations = [migrations.RunPython(baseline, migrations.RunPython.noop)]
