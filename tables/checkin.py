"""Check-in at the desk: a player found by a typed badge number or name, checked in, and the
answer shown where it was asked (HTMX: beside the search box and in the player's row, with no
reload); without script, the console again with the answer at its top."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.refusals import PageRefusal
from tables import services
from tournaments.console import organised_tournament, said
from tournaments.exceptions import StateConflict
from tournaments.models import Player, Stage, Tournament
from tournaments.selectors import players_matching
from tournaments.text import folded


class NotFound(Exception):
    """What was typed names no one player: the message says why; `matches`, who it could be."""

    def __init__(self, message: str, matches: list[Player] | None = None):
        super().__init__(message)
        self.matches = matches or []


def find_player(tournament: Tournament, typed: str) -> Player:
    """The player a desk volunteer means: a badge number ("12" or "#12") is that player; a name
    is the player whose name is exactly it, else the only one whose name holds every word typed
    (any case, with or without accents).
    More than one, or none, is refused with who matched: checking in a guess is worse than
    asking."""
    typed = " ".join(typed.split())
    if not typed:
        raise NotFound(_("Type a name or a badge number."))
    players = tournament.players.order_by("number")
    number = typed.removeprefix("#").strip()
    if number.isdigit():
        found = players.filter(number=int(number)).first()
        if found is None:
            raise NotFound(_("No player has badge number %(number)s.") % {"number": number})
        return found
    # By the public search's rule: "garcia" finds García, "nunez peña" Peña Núñez.
    matches = list(players.filter(pk__in=players_matching(tournament, typed)))
    exact = [player for player in matches if folded(player.name) == folded(typed)]
    matches = exact or matches
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFound(_("No player's name contains “%(typed)s”.") % {"typed": typed})
    text = _("%(count)s players match “%(typed)s”: %(who)s. Choose one, or type the badge number.")
    who = ", ".join(f"#{player.number} {player.name}" for player in matches[:10])
    raise NotFound(text % {"count": len(matches), "typed": typed, "who": who}, matches[:10])


def check_in(player: Player, by) -> str:
    """Check the player in; what to tell the desk. A player already in is told so, and nothing
    changes (the service would do nothing either); a withdrawn player is refused."""
    if player.status == Player.Status.CHECKED_IN:
        raise StateConflict(said(_("#%(number)s %(name)s is already checked in."), player))
    services.check_in_player(player=player, by=by)
    return said(_("#%(number)s %(name)s is checked in."), player)


@login_required
@require_POST
def check_in_found(request: HttpRequest, slug: str) -> HttpResponse:
    """The desk's box: a name or a badge number, checked in, the answer beside the box."""
    tournament = organised_tournament(request, slug)
    player, matches = None, []
    with PageRefusal(NotFound, StateConflict) as refusal:
        player = find_player(tournament, request.POST.get("find", ""))
        text, level = check_in(player, request.user), "success"
    if refusal:
        text, level = refusal.text, "error"
        matches = getattr(refusal.error, "matches", [])
    if player is not None:
        player.refresh_from_db()
    if not request.htmx:
        (messages.success if level == "success" else messages.error)(request, text)
        if level == "success" and (stage := late_stage(player)) is not None:
            messages.info(request, late_text(player, stage))
        return redirect("manage", slug=slug)
    context = _answer(tournament, player, text, level) | {"matches": matches}
    return render(request, "tournaments/console/_check_in_answer.html", context)


def row_answer(
    request: HttpRequest, tournament: Tournament, player: Player, text: str, level: str
) -> HttpResponse:
    """A row's Check in button, with script: the row again, saying what happened, and the
    counts above the table."""
    player.refresh_from_db()
    context = _answer(tournament, player, text, level)
    return render(request, "tournaments/console/_check_in_row.html", context)


def late_stage(player: Player | None) -> Stage | None:
    """The stage in play that a player just checked in has no seat in (they came late): the
    desk's answer points to its "Add a late player"."""
    if player is None or player.status != Player.Status.CHECKED_IN:
        return None
    seated = Stage.objects.filter(
        tournament_id=player.tournament_id,
        status=Stage.Status.SEATED,
        kind=Stage.Kind.QUALIFYING,
    ).order_by("order")
    return seated.exclude(seats__player=player).first()


def late_text(player: Player, stage: Stage) -> str:
    return _(
        "%(stage)s is being played: seat #%(number)s %(name)s as a late player on its page."
    ) % {"stage": stage.display_name, "number": player.number, "name": player.name}


def _answer(tournament: Tournament, player: Player | None, text: str, level: str) -> dict:
    players = list(tournament.players.all())
    return {
        "late_stage": late_stage(player) if level == "success" else None,
        "tournament": tournament,
        "player": player,
        "said": text,
        "said_level": level,
        "final": Stage.objects.final_of(tournament),
        "players": players,
        "counts": {
            status: sum(1 for p in players if p.status == status) for status in Player.Status.values
        },
    }
