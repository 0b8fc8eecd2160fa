from django import forms
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player, Staff, Tournament


class PlayerForm(forms.ModelForm):
    # Said next to the field, not as the database constraint's name.
    number = forms.IntegerField(
        label=Player._meta.get_field("number").verbose_name,
        min_value=1,
        help_text=Player._meta.get_field("number").help_text,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    class Meta:  # the other labels and help are the model's
        model = Player
        fields = ["number", "name", "household", "club"]


class ImportPlayersForm(forms.Form):
    file = forms.FileField(label=_("CSV file with a header row"))


class NewTournamentForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Name"))
    slug = forms.SlugField(max_length=60, label=_("Web address (letters, numbers and dashes)"))
    preset = forms.ChoiceField(choices=Tournament.Preset.choices, label=_("Preset"))
    domino_set = forms.TypedChoiceField(
        choices=Tournament.DominoSet.choices, coerce=int, initial=12, label=_("Domino set")
    )


class StaffForm(forms.Form):
    username = forms.CharField(max_length=150, label=_("Username"))
    role = forms.ChoiceField(choices=Staff.Role.choices, label=_("Role"))
    password = forms.CharField(
        required=False,
        widget=forms.PasswordInput,
        max_length=128,
        label=_("Password"),
        help_text=_("Needed for a new user only."),
    )


class DayOfPlayForm(forms.Form):
    """A playoff's starting double and rounds, announced on the day."""

    starting_double = forms.IntegerField(min_value=0, max_value=18, label=_("Starting double"))
    rounds = forms.IntegerField(min_value=1, max_value=19, label=_("Rounds"))


class TableSizesForm(forms.Form):
    """The smallest and largest tables of a stage not seated yet (the preset's deal decides
    what is allowed: tournaments.services.validate_stage)."""

    table_size_min = forms.IntegerField(min_value=1, max_value=19, label=_("Smallest table"))
    table_size_max = forms.IntegerField(min_value=1, max_value=19, label=_("Largest table"))
