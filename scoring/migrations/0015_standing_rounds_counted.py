"""A standings line says the rounds its total counts (rounds_counted) beside every round played
(rounds_played). The lines stored before counted rounds_played to the stage's ranked_through,
which is what rounds_counted now says: copied so; rounds_played is every round again from the
stage's next rebuild."""

from django.db import migrations, models
from django.db.models import F


def counted_as_before(apps, schema_editor) -> None:
    apps.get_model("scoring", "StandingRow").objects.update(rounds_counted=F("rounds_played"))


class Migration(migrations.Migration):
    dependencies = [("scoring", "0014_every_page_seq")]

    operations = [
        migrations.AddField(
            model_name="standingrow",
            name="rounds_counted",
            field=models.PositiveSmallIntegerField(db_default=0, default=0),
        ),
        migrations.RunPython(counted_as_before, migrations.RunPython.noop, elidable=True),
    ]
