"""The Django admin lists and opens every model for a superuser."""

import pytest
from django.contrib import admin
from django.urls import reverse

from tests import factories

pytestmark = pytest.mark.django_db


def test_every_model_has_an_admin_page_that_opens(client):
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    factories.ScoreFactory()  # a result, its table, stage, tournament and player
    ours = [
        m for m in admin.site._registry if m._meta.app_label in {"tournaments", "tables", "scoring"}
    ]
    labels = {m._meta.label for m in ours}
    assert labels >= {
        "tournaments.Tournament", "tournaments.Staff", "tournaments.Player", "tournaments.Stage",
        "tables.Table", "tables.Seat", "scoring.RoundResult", "scoring.Score",
        "scoring.RoundResultVersion", "scoring.IdempotencyRecord",
    }  # fmt: skip
    for model in ours:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url
        first = model.objects.first()
        if first is not None:
            change = reverse(
                f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[first.pk]
            )
            assert client.get(change).status_code == 200, change
