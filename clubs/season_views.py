"""A club's seasons, for its organisers: the list, a season's rule and the club's tournaments it
counts (clubs.ladder_services.save_season), and building its ladder now."""

import re
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from clubs import ladder, ladder_services
from clubs.models import Club, ClubTournament, Season
from clubs.views import organised_club, post_only
from config.refusals import PageRefusal


def parse_points(text: str) -> list[int]:
    """ "10, 8, 6" as [10, 8, 6]; refused (ValidationError) for anything but whole numbers of 0
    or more, saying which."""
    items = [item.strip() for item in text.replace(";", ",").split(",")]
    if items == [""]:
        return []
    points = []
    for item in items:
        if not re.fullmatch(r"-?[0-9]{1,6}", item):
            raise ValidationError(
                _(
                    "“%(item)s” is not a whole number: give the points for each place as whole "
                    "numbers separated by commas, e.g. 10, 8, 6, 5, 4, 3, 2, 1."
                )
                % {"item": item or _("(empty)")}
            )
        if int(item) < 0:
            raise ValidationError(_("Points cannot be negative: %(item)s.") % {"item": item})
        points.append(int(item))
    return points


class SeasonForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=120)
    slug = forms.SlugField(
        label=gettext_lazy("Web address"),
        max_length=60,
        required=False,
        help_text=gettext_lazy("Optional: made from the name when left empty."),
    )
    rule = forms.ChoiceField(
        label=gettext_lazy("Ladder rule"), choices=Season.Rule.choices, widget=forms.RadioSelect
    )
    points_table = forms.CharField(
        label=gettext_lazy("Points by place"),
        required=False,
        max_length=400,
        help_text=gettext_lazy(
            "Points rules: the points for 1st, 2nd, 3rd… place, separated by commas, e.g. "
            "10, 8, 6, 5, 4, 3, 2, 1. A place beyond them scores 0."
        ),
    )
    places = forms.ChoiceField(
        label=gettext_lazy("Places counted"),
        choices=Season.Places.choices,
        widget=forms.RadioSelect,
        help_text=gettext_lazy(
            "Whom each event's places are counted among: among the members, the club's best "
            "member of the night is 1st even when a guest won."
        ),
    )
    best_n = forms.IntegerField(
        label=gettext_lazy("Best N events"),
        required=False,
        min_value=1,
        max_value=999,
        help_text=gettext_lazy("Best N events: how many of each member's events count."),
    )
    min_rounds = forms.IntegerField(
        label=gettext_lazy("Minimum rounds"),
        min_value=0,
        max_value=99999,
        initial=0,
        help_text=gettext_lazy(
            "Lowest average: members with fewer rounds are listed below the ranked ones."
        ),
    )
    events = forms.TypedMultipleChoiceField(
        label=gettext_lazy("The club's tournaments the season counts"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, club: Club, season: Season | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # The club's tournaments no other season counts.
        owned = (
            ClubTournament.objects.filter(club=club)
            .select_related("tournament", "season")
            .order_by("-tournament__starts_on", "-tournament__created_at")
        )
        self.fields["events"].choices = [
            (own.tournament_id, own.tournament.name)
            for own in owned
            if own.season_id is None or (season is not None and own.season_id == season.pk)
        ]
        self.taken = [own for own in owned if own.season_id and own.season != season]
        # The seasons counting them, once each: where one is taken out to count it here.
        self.taken_seasons = list({own.season_id: own.season for own in self.taken}.values())

    # The fields of only some rules, and which (the page shows only the chosen rule's: CSS).
    RULE_FIELDS = {
        "points_table": (ladder.POINTS, ladder.BEST_N),
        "best_n": (ladder.BEST_N,),
        "min_rounds": (ladder.AVERAGE,),
    }
    UNUSED = {"points_table": [], "best_n": None, "min_rounds": 0}

    def clean_points_table(self) -> list[int]:
        return parse_points(self.cleaned_data.get("points_table", ""))

    def clean(self) -> dict[str, Any]:
        """A field the chosen rule does not use (hidden on the page) is not refused: a value it
        cannot read is dropped, one it can is kept for when the rule changes back."""
        cleaned = super().clean()
        rule = cleaned.get("rule")
        for name, rules in self.RULE_FIELDS.items():
            if rule and rule not in rules and name in self.errors:
                del self.errors[name]
                cleaned[name] = self.UNUSED[name]
        return cleaned

    def groups(self) -> list[tuple[forms.BoundField, str]]:
        """Each field, with the classes of the rules it belongs to ("" for every rule)."""
        classes = {ladder.POINTS: "for-points", ladder.BEST_N: "for-best-n",
                   ladder.AVERAGE: "for-average"}  # fmt: skip
        return [
            (field, " ".join(classes[rule] for rule in self.RULE_FIELDS.get(field.name, ())))
            for field in self
        ]


def points_text(points: Iterable[int]) -> str:
    return ", ".join(str(value) for value in points)


# A new season's form: the usual points by place, places among the members.
NEW_SEASON = {
    "rule": Season.Rule.POINTS,
    "points_table": points_text(ladder.DEFAULT_POINTS),
    "places": Season.Places.MEMBERS,
    "min_rounds": 0,
}


def _initial(season: Season) -> dict[str, Any]:
    return {
        "name": season.name,
        "slug": season.slug,
        "rule": season.rule,
        # A season by the average has no points: offered the usual ones, if it changes rule.
        "points_table": points_text(season.points_table or ladder.DEFAULT_POINTS),
        "best_n": season.best_n,
        "min_rounds": season.min_rounds,
        "places": season.places,
        "events": list(season.events.values_list("tournament_id", flat=True)),
    }


@login_required
def seasons(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's seasons, each with its ladder's state and its public page."""
    club = organised_club(request, slug)
    listed = club.seasons.order_by("-pk")
    return render(request, "clubs/seasons.html", {"club": club, "seasons": listed})


def _save(request: HttpRequest, club: Club, season: Season | None) -> HttpResponse:
    """GET shows the form; POST saves it (nothing saved when refused, each error by its field)."""
    if request.method == "POST":
        form = SeasonForm(request.POST, club=club, season=season)
        if form.is_valid():
            with PageRefusal(ValidationError) as refusal:
                saved = ladder_services.save_season(club=club, season=season, **form.cleaned_data)
            refusal.onto(form)
            if not refusal:
                messages.success(
                    request,
                    _("Saved %(season)s: its ladder is being rebuilt.") % {"season": saved.name},
                )
                return redirect("club-season", slug=club.slug, season_slug=saved.slug)
        status = 400
    else:
        initial = _initial(season) if season else NEW_SEASON
        form, status = SeasonForm(initial=initial, club=club, season=season), 200
    context = {
        "club": club,
        "season": season,
        "form": form,
        "problem": ladder_services.ladder_problem(season) if season else "",
        "rows": season.ladder.count() if season else 0,
    }
    return render(request, "clubs/season.html", context, status=status)


@login_required
def new_season(request: HttpRequest, slug: str) -> HttpResponse:
    return _save(request, organised_club(request, slug), None)


@login_required
def season_page(request: HttpRequest, slug: str, season_slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    return _save(request, club, get_object_or_404(Season, club=club, slug=season_slug))


@login_required
@post_only
def build_ladder(request: HttpRequest, slug: str, season_slug: str) -> HttpResponse:
    """Build the season's ladder now; refused, changing nothing, when its rule cannot be built
    by (no events, best N above them)."""
    club = organised_club(request, slug)
    season = get_object_or_404(Season, club=club, slug=season_slug)
    with PageRefusal(ValidationError) as refusal:
        rows = ladder_services.build_ladder(season=season)
    for text in refusal.lines:
        messages.error(request, _("The ladder was not built: %(why)s") % {"why": text})
    if not refusal:
        built = ngettext(
            "Built the ladder: %(count)s member.", "Built the ladder: %(count)s members.", len(rows)
        )
        messages.success(request, built % {"count": len(rows)})
    return redirect("club-season", slug=slug, season_slug=season.slug)
