"""An idempotency record says whether its request made the result or replaced one, instead of the
HTTP status the API answered (201 or 200): the API derives the status from it."""

from django.db import migrations, models


def created_from_status(apps, schema_editor):
    record = apps.get_model("scoring", "IdempotencyRecord")
    record.objects.filter(response_status=201).update(created=True)


def status_from_created(apps, schema_editor):
    record = apps.get_model("scoring", "IdempotencyRecord")
    record.objects.filter(created=True).update(response_status=201)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0006_late_entries_rounds_played")]

    operations = [
        migrations.AddField(
            model_name="idempotencyrecord",
            name="created",
            field=models.BooleanField(default=False),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="response_status",
            field=models.PositiveSmallIntegerField(default=200),
        ),
        migrations.RunPython(created_from_status, status_from_created),
        migrations.RemoveField(model_name="idempotencyrecord", name="response_status"),
    ]
