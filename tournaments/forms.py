from django import forms

from tournaments.models import Player


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ["number", "name", "household", "club"]
        widgets = {"number": forms.NumberInput(attrs={"inputmode": "numeric", "min": 1})}


class ImportPlayersForm(forms.Form):
    file = forms.FileField(label="CSV file with a header row")
