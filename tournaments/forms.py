from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from tournaments.models import Division, Player, Stage, Tournament, available_time_zones
from tournaments.presets import PRESETS, get_preset
from tournaments.services import check_days, further_level
from tournaments.text import free_slug

# A number field that brings up the numeric keypad on the tablets and phones.
NUMERIC = forms.NumberInput(attrs={"inputmode": "numeric"})


class PlayerForm(forms.ModelForm):
    # Said next to the field, not as the database constraint's name.
    number = forms.IntegerField(
        label=Player._meta.get_field("number").verbose_name,
        min_value=1,
        max_value=Player.MAX_NUMBER,
        help_text=Player._meta.get_field("number").help_text,
        widget=NUMERIC,
    )

    class Meta:  # the other labels and help are the model's
        model = Player
        fields = ["number", "name", "household", "club", "division"]

    def __init__(self, *args, tournament: Tournament | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        tournament = tournament or (self.instance.tournament if self.instance.pk else None)
        divisions = tournament.divisions.order_by("order", "name") if tournament else None
        if not divisions:  # a tournament without divisions asks nothing of them
            del self.fields["division"]
            return
        field = self.fields["division"]
        field.queryset = divisions
        field.empty_label = _("None")
        field.help_text = _("Placed and given medals among the players of their division.")


class ImportPlayersForm(forms.Form):
    file = forms.FileField(label=_("CSV file with a header row"))


class ImportOrUpdatePlayersForm(ImportPlayersForm):
    """The console's players import: new players only, or a corrected list that also updates
    the players it names by number (shown first, then applied)."""

    ADD, UPDATE = "add", "update"
    mode = forms.ChoiceField(
        label=_("What the file does"),
        choices=[
            (ADD, _("Add new players only")),
            (UPDATE, _("Add new and update existing (by number)")),
        ],
        initial=ADD,
        required=False,  # left out (a form of before, a script): new players only
        widget=forms.RadioSelect,
    )

    def clean_mode(self) -> str:
        return self.cleaned_data["mode"] or self.ADD


class TimeZoneInput(forms.TextInput):
    """A time zone typed, every IANA zone offered as it is typed (searchable, where a list of
    600 names starting at Africa/Abidjan was not), the device's own zone offered first
    (time-zone.js); `fill`: a new tournament's field takes the device's zone at once."""

    template_name = "tournaments/widgets/time_zone.html"

    def __init__(self, *, fill: bool = False) -> None:
        attrs = {"list": "time-zones", "autocomplete": "off", "spellcheck": "false"}
        if fill:
            attrs["data-fill-device-zone"] = ""
        super().__init__(attrs=attrs)
        self.fill = fill

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["zones"] = sorted(available_time_zones())
        context["widget"]["fill"] = self.fill
        return context


def time_zone_field(*, fill: bool = False, required: bool = True) -> forms.CharField:
    """A tournament's time zone: a known IANA name (Tournament's validator says which are)."""
    model_field = Tournament._meta.get_field("time_zone")
    return forms.CharField(
        max_length=64,
        required=required,
        label=model_field.verbose_name,
        help_text=_("Type a city of the zone, e.g. Chicago or Madrid, and choose it."),
        validators=model_field.validators,
        widget=TimeZoneInput(fill=fill),
    )


# The set a preset deals with unless the organiser chooses another (the 11-3 rule: double-15).
PRESET_SET = ""


class NewTournamentForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Name"))
    slug = forms.SlugField(
        max_length=60,
        required=False,
        label=_("Web address (letters, numbers and dashes)"),
        help_text=_("Left empty, it is made from the name."),
        error_messages={
            "invalid": _(
                "Use only letters, numbers and dashes in the web address, with no spaces or "
                "accents: lakeside-rally-2026, say."
            )
        },
    )
    preset = forms.ChoiceField(choices=Tournament.Preset.choices, label=_("Preset"))
    # The sets some preset deals for (a set no preset deals for is never offered); each preset's
    # own are listed below the form, and a set its preset does not deal for is refused.
    domino_set = forms.TypedChoiceField(
        choices=[
            (PRESET_SET, _("The preset's own set")),
            *(
                (value, label)
                for value, label in Tournament.DominoSet.choices
                if any(value in preset.sets() for preset in PRESETS.values())
            ),
        ],
        coerce=int,
        empty_value=None,
        required=False,
        initial=PRESET_SET,
        label=_("Domino set"),
        help_text=_("Each preset's own set is named with it below."),
    )
    starts_on = forms.DateField(
        required=False,
        label=Tournament._meta.get_field("starts_on").verbose_name,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    ends_on = forms.DateField(
        required=False,
        label=Tournament._meta.get_field("ends_on").verbose_name,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    venue = forms.CharField(
        max_length=200, required=False, label=Tournament._meta.get_field("venue").verbose_name
    )
    practice = forms.BooleanField(
        required=False,
        label=_("Practice tournament (a rehearsal)"),
        help_text=_(
            "Never listed and marked Practice everywhere; reset it after the rehearsal, then "
            "turn it into the real event."
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The page always sends it (filled from the device); a script's post without it gets
        # the site's default zone, as the API does.
        self.fields["time_zone"] = time_zone_field(fill=True, required=False)
        self.fields["time_zone"].initial = Tournament._meta.get_field("time_zone").get_default()
        self.order_fields(
            ["name", "slug", "preset", "domino_set", "starts_on", "ends_on", "venue", "time_zone"]
        )

    def clean(self):
        data = super().clean()
        if not data.get("time_zone"):
            data.pop("time_zone", None)
        if data.get("domino_set") is None and data.get("preset") in PRESETS:
            data["domino_set"] = PRESETS[data["preset"]].default_set
        try:
            check_days(data.get("starts_on"), data.get("ends_on"))
        except ValidationError as error:
            self.add_error(None, error)
        if not data.get("slug") and data.get("name") and "slug" not in self.errors:
            tournaments = Tournament.objects.all()
            data["slug"] = free_slug(data["name"], tournaments, fallback="tournament", length=54)
        return data


class DayOfPlayForm(forms.Form):
    """A playoff's starting double and rounds, announced on the day."""

    starting_double = forms.IntegerField(
        min_value=0, max_value=18, label=_("Starting double"), widget=NUMERIC
    )
    rounds = forms.IntegerField(min_value=1, max_value=19, label=_("Rounds"), widget=NUMERIC)


class TableSizesForm(forms.Form):
    """The smallest and largest tables of a stage not seated yet (the preset's deal decides
    what is allowed: tournaments.services.validate_stage)."""

    table_size_min = forms.IntegerField(
        min_value=1, max_value=19, label=_("Smallest table"), widget=NUMERIC
    )
    table_size_max = forms.IntegerField(
        min_value=1, max_value=19, label=_("Largest table"), widget=NUMERIC
    )


def _help(field: str) -> str:
    return Stage._meta.get_field(field).help_text


class MovementForm(forms.Form):
    """How a game after the first is seated from the game before (Stage.movement), and how
    many of each table move each way (tournaments.services.validate_stage checks them)."""

    movement = forms.ChoiceField(
        choices=Stage.Movement.choices,
        required=False,
        label=Stage._meta.get_field("movement").verbose_name,
        help_text=_help("movement"),
    )
    move_count = forms.IntegerField(
        min_value=0,
        max_value=99,  # at most half the smallest table: the service says so, with the numbers
        required=False,
        initial=0,
        label=Stage._meta.get_field("move_count").verbose_name,
        help_text=_help("move_count"),
        widget=NUMERIC,
    )

    def clean_move_count(self) -> int:
        return self.cleaned_data.get("move_count") or 0


class ReportingForm(forms.Form):
    """Who enters a stage's rounds (Stage.reporting), and how long a round the players entered
    may wait for a second player before the officials' board lists it. Both change at any time
    until the close (tournaments.services.stage_changes.ANY_TIME_FIELDS)."""

    # Each choice with its one-line hint (the field's template shows the hint under its label).
    HINTS = {
        Stage.Reporting.OFFICIALS: _(
            "An official enters and confirms each table's rounds, on a tablet or a phone."
        ),
        Stage.Reporting.PLAYERS: _(
            "One player enters each round on a phone, another player at the table confirms "
            "it; an official settles a round they dispute."
        ),
    }

    reporting = forms.ChoiceField(
        choices=[
            (Stage.Reporting.OFFICIALS, _("The officials")),
            (Stage.Reporting.PLAYERS, _("The players at each table")),
        ],
        initial=Stage.Reporting.OFFICIALS,
        label=_("Who enters the rounds"),
        error_messages={
            "required": _("Choose who enters the rounds: the officials or the players."),
            "invalid_choice": _("Choose who enters the rounds: the officials or the players."),
        },
        widget=forms.RadioSelect,
        template_name="tournaments/widgets/reporting_field.html",
    )
    confirm_within_minutes = forms.IntegerField(
        min_value=1,
        max_value=240,
        initial=10,
        label=_("List a round not confirmed after this many minutes"),
        error_messages={
            key: _("Type a number of minutes from 1 to 240.")
            for key in ("required", "invalid", "min_value", "max_value")
        },
        help_text=_(
            "A round the players entered and no other player confirmed for this long is listed "
            "on the officials' board, for an official to settle."
        ),
        widget=NUMERIC,
        template_name="tournaments/widgets/for_players_field.html",
    )

    def hints(self) -> list[tuple[str, str, str]]:
        """(value, label, hint) of each choice, for the field's template."""
        choices = self.fields["reporting"].choices
        return [(value, label, self.HINTS[value]) for value, label in choices]


class NewStageForm(DayOfPlayForm, TableSizesForm, MovementForm, ReportingForm):
    """A stage added in the console, last in order: its settings as create_stage takes them,
    which checks them against the tournament's set and preset."""

    name = forms.CharField(max_length=120, label=_("Name"))
    kind = forms.ChoiceField(choices=Stage.Kind.choices, label=_("Kind"))
    advance_per_table = forms.IntegerField(
        min_value=1, max_value=11, label=_("Players who advance from each table")
    )
    wildcards = forms.IntegerField(
        min_value=0, max_value=1000, label=_("Wildcards"), help_text=_help("wildcards")
    )
    late_entry_rule = forms.ChoiceField(
        choices=Stage.LateEntryRule.choices, label=_("A late entry's missed rounds")
    )
    requires_second_person = forms.BooleanField(
        required=False, label=_("Second confirmation"), help_text=_help("requires_second_person")
    )
    carry_forward = forms.BooleanField(
        required=False, label=_("Carry totals forward"), help_text=_help("carry_forward")
    )
    time_limit_minutes = forms.IntegerField(
        required=False,
        max_value=1440,  # at least a minute: the service says so
        label=Stage._meta.get_field("time_limit_minutes").verbose_name,
        help_text=_help("time_limit_minutes"),
        widget=NUMERIC,
    )
    time_rule = forms.ChoiceField(
        choices=Stage.TimeRule.choices,
        required=False,
        label=Stage._meta.get_field("time_rule").verbose_name,
    )

    field_order = [
        "name",
        "kind",
        "starting_double",
        "rounds",
        "table_size_min",
        "table_size_max",
        "advance_per_table",
        "wildcards",
        "late_entry_rule",
        "requires_second_person",
        "carry_forward",
        "movement",
        "move_count",
        "time_limit_minutes",
        "time_rule",
        "reporting",
        "confirm_within_minutes",
    ]

    def clean_time_rule(self) -> str:
        return self.cleaned_data.get("time_rule") or Stage.TimeRule.FINISH_ROUND

    # Left out (a form of before, a script): a stage its officials report, as always.
    def clean_reporting(self) -> str:
        return self.cleaned_data.get("reporting") or Stage.Reporting.OFFICIALS

    def clean_confirm_within_minutes(self) -> int:
        minutes = self.cleaned_data.get("confirm_within_minutes")
        return minutes if minutes is not None else self.fields["confirm_within_minutes"].initial

    def __init__(self, *args, **kwargs) -> None:
        # On the console beside the player form, whose fields share names: ids of its own.
        kwargs.setdefault("auto_id", "stage-%s")
        super().__init__(*args, **kwargs)
        self.fields["reporting"].required = False
        self.fields["confirm_within_minutes"].required = False

    @classmethod
    def following(cls, tournament: Tournament) -> "NewStageForm":
        """An empty form with what the stage to add most often is: a further playoff level, as
        the worker would make it (services.further_level), or, first of all, a qualifying stage
        dealt as the preset deals."""
        stages = tournament.stages.order_by("-order")
        like = stages.filter(kind=Stage.Kind.PLAYOFF).first() or stages.first()
        if like is not None:  # a level after players who reported report theirs too
            reporting = {
                "reporting": like.reporting,
                "confirm_within_minutes": like.confirm_within_minutes,
            }
            return cls(initial={**further_level(like), **reporting})
        low, high = get_preset(tournament.preset).table_bounds(tournament.domino_set)
        first = {
            "kind": Stage.Kind.QUALIFYING,
            "starting_double": tournament.domino_set,
            "rounds": tournament.domino_set + 1,
            "table_size_min": low,
            "table_size_max": high,
            "advance_per_table": 1,
            "wildcards": 0,
            "late_entry_rule": Stage.LateEntryRule.TABLE_HIGH,
        }
        return cls(initial=first)


class TournamentDetailsForm(forms.ModelForm):
    """Dates, venue, description and time zone (services.update_details checks them)."""

    time_zone = time_zone_field()

    class Meta:
        model = Tournament
        fields = [
            "starts_on", "ends_on", "venue", "description", "time_zone", "division_playoffs",
            "listed", "practice",
        ]  # fmt: skip
        widgets = {
            "starts_on": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "ends_on": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "description": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["division_playoffs"].required = False  # left out: left as it is
        if self.instance.practice:  # turned off by "Turn into the real event", which asks first
            del self.fields["practice"]

    def clean_division_playoffs(self) -> str | None:
        return self.cleaned_data.get("division_playoffs") or None

    def clean(self) -> dict:
        data = super().clean()
        try:
            check_days(data.get("starts_on"), data.get("ends_on"))
        except ValidationError as error:
            self.add_error(None, error)
        return data


def _age_field(name: str) -> forms.IntegerField:
    """A division's age bound: optional, a whole number of years, on the numeric keypad."""
    model_field = Division._meta.get_field(name)
    return forms.IntegerField(
        required=False,
        min_value=0,
        max_value=130,
        label=model_field.verbose_name,
        help_text=model_field.help_text,
        widget=NUMERIC,
    )


class DivisionForm(forms.ModelForm):
    """A division's name, ages and description (services.create_division and update_division
    check them against the tournament's other divisions)."""

    age_min = _age_field("age_min")
    age_max = _age_field("age_max")

    class Meta:
        model = Division
        fields = ["name", "age_min", "age_max", "description", "entry_fee"]

    def _post_clean(self) -> None:
        """The service checks the division against the others: no model check here (it would
        say the same in other words)."""


class DivisionPlayoffsForm(forms.Form):
    division_playoffs = forms.ChoiceField(
        choices=Tournament.DivisionPlayoffs.choices,
        label=Tournament._meta.get_field("division_playoffs").verbose_name,
    )


class FlightSplitForm(forms.Form):
    """Split the players into flights by rating (scoring.services.flights)."""

    count = forms.IntegerField(
        label=_("Number of flights"),
        min_value=2,
        max_value=26,
        initial=2,
        help_text=_(
            "Flight A has the strongest players; the flights differ in size by one at most."
        ),
    )
    confirm = forms.BooleanField(
        required=False,
        label=_("Yes, move players already in a flight, although rounds have been entered"),
    )


class FlightListForm(forms.Form):
    """The organiser's list: each player's flight by name (empty: none), one field a player."""

    confirm = forms.BooleanField(
        required=False,
        label=_("Yes, move players already in a flight, although rounds have been entered"),
    )

    def __init__(self, *args, players: list[Player], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.players = players
        for player in players:
            self.fields[f"flight_{player.pk}"] = forms.CharField(
                required=False,
                strip=True,
                label=player.name,
                initial=player.division.name if player.division else "",
            )

    def rows(self) -> list[tuple[Player, forms.BoundField]]:
        return [(player, self[f"flight_{player.pk}"]) for player in self.players]

    def assignment(self) -> dict[int, str | None]:
        """{player id: flight name, or None for none} of the cleaned form."""
        return {
            player.pk: self.cleaned_data[f"flight_{player.pk}"] or None for player in self.players
        }
