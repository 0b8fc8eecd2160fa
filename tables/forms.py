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

    def __init__(self, *args, stage: Stage, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        seated = Seat.objects.filter(stage=stage).values("player_id")
        self.fields["player"].queryset = (
            stage.tournament.players.exclude(status=Player.Status.WITHDRAWN)
            .exclude(pk__in=seated)
            .order_by("number")
        )
