from django import forms

from tournaments.models import Player, Staff, Tournament


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ["number", "name", "household", "club"]
        widgets = {"number": forms.NumberInput(attrs={"inputmode": "numeric", "min": 1})}


class ImportPlayersForm(forms.Form):
    file = forms.FileField(label="CSV file with a header row")


class NewTournamentForm(forms.Form):
    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=60, label="Web address (letters, numbers and dashes)")
    preset = forms.ChoiceField(choices=Tournament.Preset.choices)
    domino_set = forms.TypedChoiceField(
        choices=Tournament.DominoSet.choices, coerce=int, initial=12
    )


class StaffForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Staff.Role.choices)
    password = forms.CharField(
        required=False,
        widget=forms.PasswordInput,
        max_length=128,
        help_text="Needed for a new user only.",
    )


class DayOfPlayForm(forms.Form):
    """A playoff's starting double and rounds, announced on the day."""

    starting_double = forms.IntegerField(min_value=0, max_value=18)
    rounds = forms.IntegerField(min_value=1, max_value=19)
