"""Stages named by the product before names had keys get their key: a name exactly as a preset or
the playoff worker wrote it, in English or Spanish ("Qualifying", "Eliminatoria, nivel 2",
"Final (2)"), is read in the reader's language from now on. Any other name was typed by an
organiser and stays as it is.

The names are written out here, not read from the catalogue: a later translation must not change
what this migration recognised."""

import re

from django.db import migrations

WORDS = {
    "qualifying": ("Qualifying", "Clasificatoria"),
    "playoff": ("Playoff", "Eliminatoria"),
    "game": ("Game", "Partida"),
    "final": ("Final",),
}
LEVEL = re.compile(r"^(?:Playoff level |Eliminatoria, nivel )([1-9][0-9]*)$")
COPY = re.compile(r"^(.*) \(([2-9]|[1-9][0-9]+)\)$")  # a worker's second "Final": "Final (2)"


def key_of(name: str) -> str:
    """The key of a name the product wrote, or "" for a typed one."""
    copy = ""
    if match := COPY.match(name):
        name, copy = match.group(1), f"#{match.group(2)}"
    for kind, words in WORDS.items():
        if name in words:
            return kind + copy
    if match := LEVEL.match(name):
        return f"playoff_level:{match.group(1)}{copy}"
    return ""


def fill(apps, schema_editor) -> None:
    stage_model = apps.get_model("tournaments", "Stage")
    for stage in stage_model.objects.filter(name_key="").only("name").iterator():
        if key := key_of(stage.name):
            stage_model.objects.filter(pk=stage.pk).update(name_key=key)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0011_stage_name_key")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
