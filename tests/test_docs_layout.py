"""The layout map (docs/ARCHITECTURE.md, section 8) and the README's links say what is true.

Every path the map names exists, every Python module of the apps is named in it, and every
link of the README into the repository leads to a file that is there, none outside it.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "clubs", "config", "prizes", "rallies", "scoring", "tables", "tournaments")


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


def readme_links() -> list[str]:
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)  # [text](target) and ![alt](image)
    return [
        link.split("#")[0] for link in links if not re.match(r"[a-z]+:", link) and link[0] != "#"
    ]


def test_the_readme_links_only_inside_the_repository():
    outside = [link for link in readme_links() if not (ROOT / link).resolve().is_relative_to(ROOT)]
    assert outside == [], f"README.md links outside the repository: {outside}"
    # Nor names a folder beside it in its text, link or not: a clone has nothing there.
    assert "../" not in (ROOT / "README.md").read_text()


def test_every_readme_link_into_the_repository_exists():
    links = readme_links()
    assert "docs/ARCHITECTURE.md" in links and "CONTRIBUTING.md" in links
    missing = sorted({link for link in links if not (ROOT / link).exists()})
    assert missing == [], f"README.md links to files that do not exist: {missing}"
