"""The Spanish catalogue is complete, not fuzzy, and compiled from its .po file."""

import ast
import gettext
import re
from pathlib import Path

from django.conf import settings

LC_MESSAGES = Path(settings.BASE_DIR) / "locale" / "es" / "LC_MESSAGES"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


# --------------------------------------------------------------------------------------------
# The catalogue


def po_entries(path: Path) -> list[dict[str, object]]:
    """The entries of a .po file: msgctxt, msgid, msgid_plural, msgstr (a list) and flags."""
    entries = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        entry: dict[str, object] = {"flags": set(), "msgstr": []}
        field = None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#~"):
                entry["obsolete"] = True
            elif line.startswith("#") or not line.strip():
                continue
            elif line.startswith('"'):
                text = ast.literal_eval(line)
                if field == "msgstr":
                    entry["msgstr"][-1] += text
                else:
                    entry[field] += text
            else:
                keyword, _, rest = line.partition(" ")
                text = ast.literal_eval(rest)
                if keyword.startswith("msgstr"):
                    field = "msgstr"
                    entry["msgstr"].append(text)
                else:
                    field = keyword
                    entry[field] = text
        entries.append(entry)
    return entries


def test_spanish_catalogue_is_complete_and_not_fuzzy():
    entries = po_entries(LC_MESSAGES / "django.po")
    header, messages = entries[0], entries[1:]
    assert header["msgid"] == "" and "fuzzy" not in header["flags"]
    assert len(messages) > 200
    for entry in messages:
        assert not entry.get("obsolete"), entry
        assert "fuzzy" not in entry["flags"], entry["msgid"]
        assert entry["msgstr"] and all(entry["msgstr"]), f"untranslated: {entry['msgid']!r}"
        # The singular form says what the msgid says; every plural form what msgid_plural says.
        singular = set(PLACEHOLDER.findall(entry["msgid"]))
        plural = set(PLACEHOLDER.findall(entry.get("msgid_plural", entry["msgid"])))
        for form, msgstr in enumerate(entry["msgstr"]):
            wanted = singular if form == 0 else plural
            assert set(PLACEHOLDER.findall(msgstr)) == wanted, entry["msgid"]


def test_compiled_catalogue_matches_the_po_file():
    """The .mo is committed so no gettext tool is needed at runtime: it must not be stale."""
    with (LC_MESSAGES / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for entry in po_entries(LC_MESSAGES / "django.po")[1:]:
        msgid, msgstr = entry["msgid"], entry["msgstr"]
        if "msgid_plural" in entry:
            assert compiled.ngettext(msgid, entry["msgid_plural"], 1) == msgstr[0]
            assert compiled.ngettext(msgid, entry["msgid_plural"], 2) == msgstr[-1]
        elif "msgctxt" in entry:
            assert compiled.pgettext(entry["msgctxt"], msgid) == msgstr[0]
        else:
            assert compiled.gettext(msgid) == msgstr[0], msgid
