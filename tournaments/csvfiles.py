"""Reading the CSV files organisers upload: whatever Excel or LibreOffice saved, line numbers kept.

Every upload is all or nothing: ImportRejected carries every bad line with its reason.
"""

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError


class ImportRejected(ValidationError):
    """A file with bad lines: every line's errors, nothing imported."""

    def __init__(self, errors: list[tuple[int, str]]):
        self.rows = errors
        super().__init__({"file": [f"Line {line}: {message}" for line, message in errors]})


@dataclass
class CsvRecord:
    line: int  # the line of the file, counting the header as line 1
    values: dict[str, str]
    problems: list[str] = field(default_factory=list)

    def message(self) -> str:
        text = "; ".join(self.problems)
        return text[:1].upper() + text[1:] + "."


def _decode(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Excel on Windows saves "CSV" in the Windows code page, not UTF-8.
        return content.decode("cp1252", errors="strict")


def _delimiter(text: str) -> str:
    """Comma, or the semicolon or tab a spreadsheet in another locale writes."""
    header = text.split("\n", 1)[0]
    try:
        return csv.Sniffer().sniff(header, delimiters=",;\t").delimiter
    except csv.Error:
        return ","


def read_csv(
    content: bytes, *, columns: Sequence[str], required: Sequence[str], what: str
) -> list[CsvRecord]:
    """The file's records (blank lines skipped), or ImportRejected for a file that cannot be read.

    `what` names the rows for messages ("players", "scores").
    """
    try:
        text = _decode(content)
    except UnicodeDecodeError:
        raise ImportRejected([(1, "The file is not text: save it as CSV (UTF-8).")]) from None
    if not text.strip():
        example = ",".join(required)
        raise ImportRejected([(1, f"The file is empty: it needs a header row such as {example}.")])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text))
    try:
        header = [column.strip().lower() for column in next(reader)]
    except csv.Error as error:
        raise ImportRejected([(1, f"The header row cannot be read: {error}.")]) from None
    errors: list[tuple[int, str]] = []
    unknown = [column for column in header if column not in columns]
    missing = [column for column in required if column not in header]
    repeated = sorted({column for column in header if header.count(column) > 1})
    if unknown:
        names = ", ".join(map(repr, unknown))
        errors.append((1, f"Unknown column {names}: the columns are {', '.join(columns)}."))
    if missing:
        errors.append((1, f"Missing column {', '.join(map(repr, missing))}."))
    if repeated:
        errors.append((1, f"Column {', '.join(map(repr, repeated))} appears twice."))
    if errors:
        raise ImportRejected(errors)

    records: list[CsvRecord] = []
    try:
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            values = {column: "" for column in columns}
            values.update(
                (column, cells[i].strip() if i < len(cells) else "")
                for i, column in enumerate(header)
            )
            record = CsvRecord(line=reader.line_num, values=values)
            if len(cells) != len(header):
                record.problems.append(
                    f"the line has {len(cells)} cells but the header has {len(header)}"
                )
            records.append(record)
    except csv.Error as error:
        records.append(
            CsvRecord(reader.line_num, {}, [f"this line cannot be read as CSV: {error}"])
        )
    if not records:
        raise ImportRejected([(1, f"The file has a header row but no {what}.")])
    return records
