"""Accounts whose usernames share a normal form (tournaments.usernames) are reported, never
merged or changed: sign-in takes only their exact spelling, and sign-up refuses new clashes."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import migrations

from tournaments.usernames import clash_report, clashing_usernames


def report_clashing_usernames(apps, schema_editor) -> list[str]:
    """Print each group of clashing usernames and what an admin should do; the lines printed."""
    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    user_model = apps.get_model(app_label, model_name)
    field = get_user_model().USERNAME_FIELD  # a historical model has no USERNAME_FIELD
    names = user_model._default_manager.values_list(field, flat=True)
    lines = clash_report(clashing_usernames(names.iterator()))
    for line in lines:
        print(f"\n  {line}")
    return lines


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0015_stage_rating_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(report_clashing_usernames, migrations.RunPython.noop, elidable=True),
    ]
