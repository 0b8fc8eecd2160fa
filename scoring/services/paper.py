"""Scores from paper: the back office's CSV upload (the export's columns), all or none."""

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from scoring import rules
from scoring.exports import SCORES_HEADER
from scoring.models import RoundResult
from scoring.services.results import (
    RequestMeta,
    confirm_round_result,
    needs_another_confirmer,
    seated_for_round,
    submit_round_result,
)
from tables.models import Table
from tournaments.csvfiles import ImportRejected, read_csv, whole_number
from tournaments.models import Stage
from tournaments.services.stage_changes import closed_message, names_read
from tournaments.text import folded

FROM_PAPER = RequestMeta("csv")  # where the history says these results came from
# The export's columns, and optionally blocked, and checked: an unusual score the official
# checked on the sheet (yes), stored with its warning marked checked.
SCORE_COLUMNS = (*SCORES_HEADER, "blocked", "checked")
SCORE_REQUIRED = ("stage", "table", "round", "number", "pips", "went_out")
YES = {"yes", "y", "true", "1", "x"}
NO = {"no", "n", "false", "0", ""}


@dataclass
class _Group:
    """The lines of one table's round in an uploaded file."""

    stage: Stage
    table: Table
    round_no: int
    lines: list = field(default_factory=list)  # (CsvRecord, Player, went_out)
    checked: dict = field(default_factory=dict)  # player id -> the checked column said yes
    confirm: bool = False
    blocked: bool | None = None


def _flag(value: str, column: str, problems: list[str]) -> bool | None:
    text = value.strip().lower()
    if text in YES:
        return True
    if text in NO:
        return False
    problems.append(
        _("%(column)s %(value)s is not yes or no") % {"column": column, "value": repr(value)}
    )
    return None


def _scores_groups(tournament, records) -> tuple[dict[tuple, _Group], list]:
    stages = list(tournament.stages.all())
    by_name: dict[str, list[Stage]] = {}
    for stage in stages:  # by any name it is read as (the files name it in English)
        for name in {name.lower() for name in names_read(stage.name, stage.name_key)}:
            by_name.setdefault(name, []).append(stage)
    by_order = {str(stage.order): stage for stage in stages}
    tables = {(t.stage_id, t.number): t for t in Table.objects.filter(stage__in=stages)}
    players = {p.number: p for p in tournament.players.all()}
    groups: dict[tuple, _Group] = {}
    errors: list[tuple[int, str]] = []
    for record in records:
        values, problems = record.values, record.problems
        named = by_name.get(values["stage"].lower(), [])
        stage = by_order.get(values["stage"]) or (named[0] if len(named) == 1 else None)
        if stage is None:
            problems.append(
                _("stage %(stage)s is ambiguous: use its order number")
                % {"stage": repr(values["stage"])}
                if len(named) > 1
                else _("there is no stage %(stage)s") % {"stage": repr(values["stage"])}
            )
        table = round_no = player = None
        if stage is not None:
            table = tables.get((stage.pk, whole_number(values["table"])))
            if table is None:
                problems.append(
                    _("%(stage)s has no table %(table)s")
                    % {"stage": stage.display_name, "table": repr(values["table"])}
                )
            if not 1 <= (whole_number(values["round"]) or 0) <= stage.rounds:
                problems.append(
                    _("%(stage)s has rounds 1 to %(rounds)s, not %(round)s")
                    % {
                        "stage": stage.display_name,
                        "rounds": stage.rounds,
                        "round": repr(values["round"]),
                    }
                )
            else:
                round_no = int(values["round"])
                engine = values["engine"]
                if engine and engine != str(stage.engine(round_no)):
                    problems.append(
                        _("round %(round)s is played with the %(engine)s engine, not %(given)s")
                        % {"round": round_no, "engine": stage.engine(round_no), "given": engine}
                    )
        player = players.get(whole_number(values["number"]))
        if player is None:
            problems.append(
                _("there is no player number %(number)s") % {"number": repr(values["number"])}
            )
        else:
            name = values["name"]
            if name and folded(name) != folded(player.name):  # "Martinez" is Martínez
                problems.append(
                    _("number %(number)s is %(name)s, not %(given)s")
                    % {"number": player.number, "name": player.name, "given": repr(name)}
                )
        went_out = _flag(values["went_out"], "went_out", problems)
        blocked = _flag(values["blocked"], "blocked", problems) if values["blocked"] else None
        checked = _flag(values["checked"], "checked", problems) if values["checked"] else False
        status = values["status"].lower() or RoundResult.Status.SUBMITTED
        # A paper sheet is entered or confirmed; a dispute is raised at the table, not uploaded.
        if status not in (RoundResult.Status.SUBMITTED, RoundResult.Status.CONFIRMED):
            problems.append(
                _("status %(status)s is not submitted or confirmed")
                % {"status": repr(values["status"])}
            )
        if problems:
            errors.append((record.line, record.message()))
            if table is None or round_no is None or player is None:
                continue
            # The line still names its table, round and player: its round is checked with it, so
            # every problem is reported in one upload, and its player is not called missing.
        group = groups.setdefault((table.pk, round_no), _Group(stage, table, round_no))
        group.lines.append((record, player, went_out))
        group.checked[player.pk] = bool(checked)
        group.confirm = group.confirm or status == RoundResult.Status.CONFIRMED
        if blocked is not None:
            group.blocked = blocked
    return groups, errors


def _check_group(group: _Group, by: AbstractBaseUser) -> list[tuple[int, str]]:
    first = group.lines[0][0].line
    where = {
        "table": group.table.number,
        "round": group.round_no,
        "stage": group.stage.display_name,
    }
    if RoundResult.objects.filter(table=group.table, round_no=group.round_no).exists():
        message = _(
            "table %(table)s, round %(round)s already has a result: correct it on its page, "
            "with a reason."
        )
        return [(first, message % where)]
    if group.stage.status == Stage.Status.CLOSED:
        return [(first, closed_message(group.stage, "results"))]
    # The uploader enters the result, and would confirm it too.
    if group.confirm and needs_another_confirmer(group.stage, entered_by=by.pk, by=by.pk):
        message = _(
            "table %(table)s, round %(round)s: in %(stage)s another official must confirm; "
            "import it as submitted."
        )
        return [(first, message % where)]
    blocked = group.blocked if group.blocked is not None else not any(w for _, _, w in group.lines)
    lines = [rules.ScoreLine(p.pk, record.values["pips"], bool(w)) for record, p, w in group.lines]
    problems = rules.validate_round(
        seated=seated_for_round(group.table, group.round_no),
        lines=lines,
        blocked=blocked,
        domino_set=group.stage.domino_set,
        engine=group.stage.engine(group.round_no),
    )
    line_of = {p.pk: record.line for record, p, _ in group.lines}
    errors = []
    for key, messages in problems.items():
        player_id = int(key.split(".")[1]) if key.startswith("scores.") else None
        line = line_of.get(player_id, first)
        errors.extend(
            (line, _("table %(table)s, round %(round)s: %(message)s.") % {**where, "message": m})
            for m in messages
        )
    group.blocked = blocked
    return errors


@dataclass
class Imported:
    """What an upload entered: the results made, and the unusual scores among them, each as
    (line, message) in the reader's language: stored with their warnings, and said."""

    created: int
    warnings: list[tuple[int, str]] = field(default_factory=list)


@transaction.atomic
def import_scores(
    *, tournament, content: bytes, by: AbstractBaseUser, meta: RequestMeta = FROM_PAPER
) -> Imported:
    """Enter round results from a scores.csv (the export's columns), all or none.

    Every line is checked as if entered on the tablet; ImportRejected lists every bad line.
    Rows marked confirmed are confirmed by the uploader. A score the deal makes unusual is
    entered with its warning (checked when its line says so in `checked`), and said.
    """
    warned: list[tuple[int, str]] = []
    records = read_csv(content, columns=SCORE_COLUMNS, required=SCORE_REQUIRED, what="scores")
    groups, errors = _scores_groups(tournament, records)
    for group in groups.values():
        errors.extend(_check_group(group, by))
    if errors:
        raise ImportRejected(sorted(errors))
    for group in groups.values():
        data = {
            "blocked": group.blocked,
            "scores": [
                {
                    "player": p.pk,
                    "pips": record.values["pips"],
                    "went_out": bool(w),
                    "checked": group.checked[p.pk],
                }
                for record, p, w in group.lines
            ],
        }
        outcome = submit_round_result(
            table=group.table, round_no=group.round_no, data=data, by=by, meta=meta
        )
        line_of = {p.pk: record.line for record, p, _ in group.lines}
        where = {"table": group.table.number, "round": group.round_no}
        for warning in outcome.body["warnings"]:
            said = _("table %(table)s, round %(round)s: %(message)s") % {
                **where,
                "message": warning["message"],
            }
            warned.append((line_of[warning["player"]], said))
        if group.confirm:
            confirm_round_result(result=outcome.result, by=by, meta=meta)
    return Imported(len(groups), sorted(warned))
