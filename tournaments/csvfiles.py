"""Reading the CSV files organisers upload: whatever Excel or LibreOffice saved, line numbers kept.

Every upload is all or nothing: ImportRejected carries every bad line with its reason.
"""

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy, ngettext


class ImportRejected(ValidationError):
    """A file with bad lines: every line's errors, nothing imported."""

    def __init__(self, errors: list[tuple[int, str]]):
        self.rows = errors
        super().__init__(
            {
                "file": [
                    gettext("Line %(line)s: %(message)s") % {"line": line, "message": message}
                    for line, message in errors
                ]
            }
        )


@dataclass
class CsvRecord:
    line: int  # the line of the file, counting the header as line 1
    values: dict[str, str]
    problems: list[str] = field(default_factory=list)

    def message(self) -> str:
        text = "; ".join(self.problems)
        return text[:1].upper() + text[1:] + "."


# A cell starting with one of these is read by Excel, LibreOffice or Sheets as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """Prefix a formula-like text cell with an apostrophe, so it shows as text and never runs
    (the exports). So is a text that already looks neutralised ("'-Ann"), so that restored
    gives back exactly what was written."""
    if isinstance(value, str) and _formula_like(value):
        return "'" + value
    return value


def _formula_like(text: str) -> bool:
    """Starts like a formula, after any apostrophes."""
    return text.lstrip("'").startswith(FORMULA_STARTS)


def restored(text: str) -> str:
    """A cell as it was before neutralise: an export read back (scores.csv as the paper-scores
    import, players.csv as next year's entry list) has the names it was written from."""
    return text[1:] if text.startswith("'") and _formula_like(text[1:]) else text


# "The file has a header row but no players", by what the rows are.
NO_ROWS = {
    "players": gettext_lazy("The file has a header row but no players."),
    "scores": gettext_lazy("The file has a header row but no scores."),
}


# Far more than any event's players or scores (a line is about 30 bytes), and a request that a
# worker thread answers in seconds.
MAX_UPLOAD_BYTES = 2_000_000


def whole_number(text: str) -> int | None:
    """A cell's whole number (0 or more), or None: digits only, as ASCII ("²" is no number)."""
    text = text.strip()
    if text.isascii() and text.isdigit() and len(text) <= 18:
        return int(text)
    return None


def _decode(content: bytes) -> str:
    if content.startswith((b"\xff\xfe", b"\xfe\xff")):
        # Excel's "Unicode text" (and some other programs' CSV): UTF-16 with its byte order mark.
        text = content.decode("utf-16")
    else:
        try:
            text = content.decode("utf-8-sig")
        except UnicodeDecodeError:
            # Excel on Windows saves "CSV" in the Windows code page, not UTF-8.
            text = content.decode("cp1252", errors="strict")
    return text.lstrip("\ufeff")  # a file saved twice over may start with two marks


def _reader(text: str) -> tuple[Any, int]:
    """A CSV reader of the text, and how many lines before its first it left out: Excel's
    "sep=;" line, whose delimiter it then uses. Otherwise the delimiter is a comma, or the
    semicolon or tab a spreadsheet in another locale writes."""
    first, _, rest = text.partition("\n")
    declared = first.rstrip("\r\n").strip(" ")  # "sep=\t" names a tab: keep it
    if declared.lower().startswith("sep=") and len(declared) == 5:
        return csv.reader(io.StringIO(rest, newline=""), delimiter=declared[4]), 1
    try:
        delimiter = csv.Sniffer().sniff(first, delimiters=",;\t").delimiter
    except csv.Error:
        delimiter = ","
    return csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), 0


def _why(error: Exception) -> str:
    """Python's reason in the reader's words: a cell over the csv module's limit is most often
    a quote left open that swallowed the rest of the file."""
    if isinstance(error, StopIteration):
        return gettext("the file has no lines")
    if "field larger than field limit" in str(error):
        return gettext(
            'a cell is longer than %(limit)s characters: is a quote (") left open above it?'
        ) % {"limit": f"{csv.field_size_limit():,}"}
    return str(error)


def unknown_columns(content: bytes, *, columns: Sequence[str]) -> list[str]:
    """The header's columns that are not among `columns` (which read_csv with ignore_unknown
    leaves out), for saying so; [] for a file read_csv would refuse anyway."""
    try:
        header = next(_reader(_decode(content))[0])
    except (UnicodeDecodeError, csv.Error, StopIteration):
        return []
    return [column.strip() for column in header if column.strip().lower() not in columns]


def columns_given(content: bytes, *, columns: Sequence[str]) -> list[str]:
    """The header's columns that are among `columns`, as read_csv reads them (capitals and
    spaces aside): what an update from the file changes. [] for a file read_csv refuses."""
    try:
        header = next(_reader(_decode(content))[0])
    except (UnicodeDecodeError, csv.Error, StopIteration):
        return []
    return [column.strip().lower() for column in header if column.strip().lower() in columns]


def read_csv(
    content: bytes,
    *,
    columns: Sequence[str],
    required: Sequence[str],
    what: str,
    ignore_unknown: bool = False,
) -> list[CsvRecord]:
    """The file's records (blank lines skipped), or ImportRejected for a file that cannot be read.

    `what` names the rows for messages ("players", "scores"). With `ignore_unknown`, columns
    other than `columns` are left out (see unknown_columns) instead of refused.
    """
    if len(content) > MAX_UPLOAD_BYTES:
        message = gettext(
            "The file is %(size)s MB: an import takes at most %(most)s MB. Import it in parts."
        )
        size = f"{len(content) / 1_000_000:.1f}"
        raise ImportRejected([(1, message % {"size": size, "most": MAX_UPLOAD_BYTES // 10**6})])
    try:
        text = _decode(content)
    except UnicodeDecodeError:
        raise ImportRejected(
            [(1, gettext("The file is not text: save it as CSV (UTF-8)."))]
        ) from None
    if not text.strip():
        example = ",".join(required)
        message = gettext("The file is empty: it needs a header row such as %(example)s.")
        raise ImportRejected([(1, message % {"example": example})])
    reader, skipped = _reader(text)
    try:
        header = [column.strip().lower() for column in next(reader)]
    except (csv.Error, StopIteration) as error:
        message = gettext("The header row cannot be read: %(error)s.") % {"error": _why(error)}
        raise ImportRejected([(1 + skipped, message)]) from None
    errors: list[tuple[int, str]] = []
    unknown = [column for column in header if column not in columns]
    missing = [column for column in required if column not in header]
    repeated = sorted({column for column in header if header.count(column) > 1})
    if unknown and not ignore_unknown:
        names = ", ".join(map(repr, unknown))
        message = gettext("Unknown column %(names)s: the columns are %(columns)s.")
        errors.append((1 + skipped, message % {"names": names, "columns": ", ".join(columns)}))
    if missing:
        message = gettext("Missing column %(names)s.")
        errors.append((1 + skipped, message % {"names": ", ".join(map(repr, missing))}))
    if repeated:
        message = gettext("Column %(names)s appears twice.")
        errors.append((1 + skipped, message % {"names": ", ".join(map(repr, repeated))}))
    if errors:
        raise ImportRejected(errors)

    records: list[CsvRecord] = []
    start = reader.line_num + 1  # where the next record begins: a quoted cell may span lines
    try:
        for cells in reader:
            line, start = start + skipped, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            values = {column: "" for column in columns}
            values.update(
                (column, restored(cells[i].strip()).strip() if i < len(cells) else "")
                for i, column in enumerate(header)
                if column in values
            )
            record = CsvRecord(line=line, values=values)
            if any("\x00" in cell for cell in cells):  # no database stores it in text
                record.problems.append(gettext("the line contains a NUL character"))
                record.values = {
                    column: value.replace("\x00", "") for column, value in values.items()
                }
            if any("\n" in value or "\r" in value for value in values.values()):
                # A quote left open: the lines after it were read into one cell.
                record.problems.append(
                    gettext(
                        "a value runs over more than one line: keep each value on its line (is "
                        'a quote (") opened on this line left open?)'
                    )
                )
            if len(cells) != len(header):
                record.problems.append(
                    ngettext(
                        "the line has %(cells)s cell but the header has %(columns)s",
                        "the line has %(cells)s cells but the header has %(columns)s",
                        len(cells),
                    )
                    % {"cells": len(cells), "columns": len(header)}
                )
            records.append(record)
    except csv.Error as error:
        problem = gettext("this line cannot be read as CSV: %(error)s") % {"error": _why(error)}
        records.append(CsvRecord(start + skipped, {column: "" for column in columns}, [problem]))
    if not records:
        message = NO_ROWS.get(what) or gettext("The file has a header row but no %(what)s.")
        raise ImportRejected([(1 + skipped, str(message) % {"what": what})])
    return records
