"""The club organisers' pages: their clubs, a club's roster (add, import, correct, export and erase
a member), and a club tournament's players linked to the roster."""

import functools
import json
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs import selectors, services
from clubs.forms import ImportMembersForm, MemberForm
from clubs.member_views import with_ratings
from clubs.models import Club, Member, PlayerLink
from config.refusals import PageRefusal
from tournaments.csvfiles import ImportRejected
from tournaments.models import Player, Tournament


def may_manage(user: AbstractBaseUser | AnonymousUser, club: Club) -> bool:
    return user.is_authenticated and (
        user.is_superuser or club.organisers.filter(user=user).exists()
    )


def organised_club(request: HttpRequest, slug: str) -> Club:
    club = get_object_or_404(Club, slug=slug)
    if not may_manage(request.user, club):
        raise PermissionDenied(
            _("Only an organiser of %(club)s may open this page.") % {"club": club.name}
        )
    return club


def post_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A form's action: opened again (a GET), it goes back to the roster."""

    @functools.wraps(view)
    def action(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            return redirect("club", slug=slug)
        if request.method != "POST":
            return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
        return view(request, slug, **kwargs)

    return action


def _roster(request: HttpRequest, club: Club, status: int = 200, **forms: Any) -> HttpResponse:
    context = {
        "club": club,
        "members": with_ratings(list(club.members.order_by("erased_at", "name", "pk")), club),
        "tournaments": [own.tournament for own in club.owned.select_related("tournament")],
        "addable": selectors.addable_tournaments(club=club, user=request.user),
        "member_form": forms.get("member_form") or MemberForm(),
        "import_form": forms.get("import_form") or ImportMembersForm(),
        "import_errors": forms.get("import_errors", []),
    }
    return render(request, "clubs/roster.html", context, status=status)


@login_required
def roster(request: HttpRequest, slug: str) -> HttpResponse:
    return _roster(request, organised_club(request, slug))


@login_required
@post_only
def add_member(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    form = MemberForm(request.POST)
    if form.is_valid():
        with PageRefusal(ValidationError) as refusal:
            member = services.add_member(club=club, **form.cleaned_data)
        refusal.onto(form)
        if not refusal:
            messages.success(request, _("Added %(name)s.") % {"name": member.name})
            return redirect("club", slug=slug)
    return _roster(request, club, status=400, member_form=form)


@login_required
@post_only
def import_members(request: HttpRequest, slug: str) -> HttpResponse:
    club = organised_club(request, slug)
    form = ImportMembersForm(request.POST, request.FILES)
    if not form.is_valid():
        return _roster(request, club, status=400, import_form=form)
    try:
        members = services.import_members(club=club, content=form.cleaned_data["file"].read())
    except ImportRejected as rejected:
        return _roster(request, club, status=400, import_form=form, import_errors=rejected.rows)
    imported = ngettext("Imported %(count)s member.", "Imported %(count)s members.", len(members))
    messages.success(request, imported % {"count": len(members)})
    return redirect("club", slug=slug)


def _member(request: HttpRequest, slug: str, member_id: int) -> tuple[Club, Member]:
    club = organised_club(request, slug)
    return club, get_object_or_404(Member, club=club, pk=member_id)


@login_required
def member_page(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    """GET shows a member's entry to correct, and their tournaments; POST saves it."""
    club, member = _member(request, slug, member_id)
    form = MemberForm(request.POST or None, instance=Member(club=club))
    if request.method == "GET":
        form = MemberForm(instance=member)
    elif member.erased_at is None and form.is_valid():
        with PageRefusal(ValidationError) as refusal:
            services.update_member(member=member, **form.cleaned_data)
        refusal.onto(form)
        if not refusal:
            messages.success(request, _("Saved %(name)s.") % {"name": form.cleaned_data["name"]})
            return redirect("club", slug=slug)
    links = member.links.select_related("player__tournament").order_by("-linked_at")
    context = {"club": club, "member": member, "form": form, "links": links}
    return render(
        request, "clubs/member.html", context, status=200 if request.method == "GET" else 400
    )


@login_required
def export_member(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    """Everything held about the member, as a JSON file to hand them."""
    _club, member = _member(request, slug, member_id)
    data = services.export_member(member=member)
    response = HttpResponse(
        json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="member-{member.pk}.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
def erase_member(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    """GET asks to confirm; POST, with the box ticked, erases."""
    club, member = _member(request, slug, member_id)
    if request.method == "POST":
        if request.POST.get("confirm") == "on":
            member = services.erase_member(member=member, by=request.user)
            done = _("Erased the member's data: they are now %(name)s.")
            messages.success(request, done % {"name": member.name})
            return redirect("club", slug=slug)
        messages.error(request, _("Tick the box to erase this member's data."))
    context = {"club": club, "member": member, "links": member.links.select_related("player")}
    return render(request, "clubs/erase.html", context)


# ---- a club tournament's players and the roster -------------------------------------------------


def _club_tournament(request: HttpRequest, slug: str) -> tuple[Tournament, Club]:
    tournament = get_object_or_404(Tournament, slug=slug)
    club = services.owning_club(tournament)
    if club is None:
        raise Http404(_("%(tournament)s belongs to no club.") % {"tournament": tournament.name})
    organised_club(request, club.slug)
    return tournament, club


def _just_linked_key(tournament: Tournament) -> str:
    return f"clubs:same-names:{tournament.pk}"


@login_required
def tournament_members(request: HttpRequest, slug: str) -> HttpResponse:
    """The tournament's players: each linked member, or the members who may be them to pick;
    after "Link every exact match", the players it linked, to unlink in one step (once)."""
    tournament, club = _club_tournament(request, slug)
    found = services.name_candidates(tournament=tournament)
    players = list(tournament.players.select_related("member_link__member").order_by("number"))
    rows = [{"player": p, "candidates": found.get(p.pk, [])} for p in players]
    ids = request.session.pop(_just_linked_key(tournament), [])
    just_linked = [p for p in players if p.pk in ids and getattr(p, "member_link", None)]
    context = {
        "tournament": tournament,
        "club": club,
        "rows": rows,
        # Players a single member's name matches: what "Link every exact match" would link.
        "exact": sum(len(row["candidates"]) == 1 for row in rows),
        "just_linked": just_linked,
    }
    return render(request, "clubs/tournament_members.html", context)


@login_required
def link_same_names(request: HttpRequest, slug: str) -> HttpResponse:
    """Link every player whose name is exactly one member's (POST); say what was done and what
    is left, and offer to unlink them all."""
    if request.method != "POST":
        return redirect("tournament-members", slug=slug)
    tournament, _club = _club_tournament(request, slug)
    done = services.link_same_names(tournament=tournament, by=request.user)
    count = len(done.linked)
    parts = [
        ngettext("Linked %(count)s player.", "Linked %(count)s players.", count) % {"count": count}
        if count
        else _("No player's name is exactly one member's: nobody was linked.")
    ]
    if several := len(done.several_members):
        parts.append(
            ngettext(
                "%(count)s has more than one member of that name: choose below.",
                "%(count)s have more than one member of that name: choose below.",
                several,
            )
            % {"count": several}
        )
    if twins := len(done.several_players):
        parts.append(
            ngettext(
                "%(count)s shares a name with another player: choose below.",
                "%(count)s share a name with another player: choose below.",
                twins,
            )
            % {"count": twins}
        )
    (messages.success if count else messages.info)(request, " ".join(parts))
    if count:
        request.session[_just_linked_key(tournament)] = [player.pk for player in done.linked]
    return redirect("tournament-members", slug=slug)


@login_required
def unlink_players(request: HttpRequest, slug: str) -> HttpResponse:
    """Unlink the players listed (POST): "Link every exact match" undone in one step."""
    if request.method != "POST":
        return redirect("tournament-members", slug=slug)
    tournament, _club = _club_tournament(request, slug)
    ids = [
        int(value)
        for value in request.POST.getlist("player")
        if value.isascii() and value.isdigit()
    ]
    count = services.unlink_players(tournament=tournament, player_ids=ids)
    messages.success(
        request,
        ngettext("Unlinked %(count)s player.", "Unlinked %(count)s players.", count)
        % {"count": count},
    )
    return redirect("tournament-members", slug=slug)


@login_required
def link_player(request: HttpRequest, slug: str, player_id: int) -> HttpResponse:
    """GET shows the player's candidates (by name, and by a member number typed in); POST links
    the member picked."""
    tournament, club = _club_tournament(request, slug)
    player = get_object_or_404(Player, tournament=tournament, pk=player_id)
    error = None
    if request.method == "POST":
        action = request.POST.get("action", "link")
        if action == "unlink":
            services.unlink(player=player)
            messages.success(request, _("Unlinked #%(number)s %(name)s.") % {
                "number": player.number, "name": player.name})  # fmt: skip
            return redirect("tournament-members", slug=slug)
        member = Member.objects.filter(club=club, pk=request.POST.get("member") or 0).first()
        if member is None:
            error = _("Pick a member of %(club)s.") % {"club": club.name}
        else:
            # Found by the member number typed in, or picked among the names.
            typed = request.POST.get("member_number", "").strip()
            by_number = bool(typed) and typed == member.member_number
            how = PlayerLink.How.NUMBER if by_number else PlayerLink.How.NAME
            with PageRefusal(ValidationError) as refusal:
                services.link(player=player, member=member, by=request.user, how=how)
            error = refusal.text
            if not refusal:
                done = _("Linked #%(number)s %(player)s to %(member)s.")
                values = {"number": player.number, "player": player.name, "member": member.name}
                messages.success(request, done % values)
                return redirect("tournament-members", slug=slug)
    number = request.GET.get("member_number", "").strip()
    context = {
        "tournament": tournament,
        "club": club,
        "player": player,
        "link": PlayerLink.objects.filter(player=player).select_related("member").first(),
        "member_number": number,
        "candidates": services.candidates(player=player, member_number=number),
        "error": error,
    }
    return render(request, "clubs/link_player.html", context, status=400 if error else 200)
