"""The layout map (docs/ARCHITECTURE.md, section 8) says what is true.

Every path the map names exists, and every Python module of the apps is named in it.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "clubs", "config", "scoring", "tables", "tournaments")


def layout_section() -> str:
    text = (ROOT / "docs/ARCHITECTURE.md").read_text()
    start = text.index("\n## 8. Layout\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def named_paths(section: str) -> set[str]:
    """The repository paths in backticks: a name with a slash, or a file at the top."""
    quoted = re.findall(r"`([^`\s]+)`", section)
    return {q for q in quoted if "/" in q and not q.startswith(("/", "http")) and "<" not in q}


def app_modules() -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if path.name != "__init__.py" and "migrations" not in path.parts
    }


def test_every_path_the_layout_names_exists():
    missing = sorted(p for p in named_paths(layout_section()) if not (ROOT / p).exists())
    assert missing == [], f"docs/ARCHITECTURE.md's layout names paths that are not there: {missing}"


def test_every_module_of_the_apps_is_in_the_layout():
    unnamed = sorted(app_modules() - named_paths(layout_section()))
    assert unnamed == [], f"modules the layout of docs/ARCHITECTURE.md names nowhere: {unnamed}"


def test_the_layout_helpers_see_what_is_there():
    """The two checks above can fail: they find a made-up path and a real module."""
    assert "tournaments/presets.py" in app_modules()
    assert "scoring/rules/ranking.py" in named_paths(layout_section())
    assert "tournaments/models/presets.py" not in app_modules()  # the old README's mistake
    assert named_paths("`a/b.py` and `/abs` and `/t/<slug>/` and `README.md`") == {"a/b.py"}
