from django import forms
from django.utils.translation import gettext_lazy as _

from tables.models import Seat
from tournaments.models import Player, Stage


class SeatStageForm(forms.Form):
    seed = forms.IntegerField(
        required=False, min_value=0, max_value=2**62,
        label=_("Shuffle number (optional)"),
        help_text=_(
            "Leave it empty for a new random seating. The same number seats the players the "
            "same way again (it is shown on this page once the stage is seated)."
        ),
    )  # fmt: skip
    force = forms.BooleanField(
        required=False, label=_("Discard the results already entered and reseat"),
    )  # fmt: skip


class LatePlayerForm(forms.Form):
    player = forms.ModelChoiceField(queryset=Player.objects.none(), label=_("Late player"))
    allow_over_max = forms.BooleanField(required=False)

    def __init__(self, *args, stage: Stage, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = waiting_players(stage)


def waiting_players(stage: Stage):
    """The tournament's active players with no seat in the stage: the late players waiting."""
    seated = Seat.objects.filter(stage=stage).values("player_id")
    return (
        stage.tournament.players.exclude(status=Player.Status.WITHDRAWN)
        .exclude(pk__in=seated)
        .order_by("number")
    )


class LateTableForm(forms.Form):
    """Several waiting late players at a new table (services.add_late_table)."""

    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    from_round = forms.IntegerField(min_value=1, required=False, label=_("From round"))

    def __init__(self, *args, stage: Stage, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["players"].queryset = waiting_players(stage)


class RatingOptionsForm(forms.Form):
    """Seating by club rating (tables.by_rating): a stage seated at random may be balanced, a
    playoff seated from its advancers seeded; each stage is offered the one that applies."""

    balance_by_rating = forms.BooleanField(
        required=False,
        label=Stage._meta.get_field("balance_by_rating").verbose_name,
        help_text=Stage._meta.get_field("balance_by_rating").help_text,
    )
    seed_by_rating = forms.BooleanField(
        required=False,
        label=Stage._meta.get_field("seed_by_rating").verbose_name,
        help_text=Stage._meta.get_field("seed_by_rating").help_text,
    )

    def __init__(self, *args, seeded: bool, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["balance_by_rating" if seeded else "seed_by_rating"]
