"""The release in the public pages' versions (config/release.py): a deploy of changed code,
templates, static files or translations is another release, and so are other pages."""

import re
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

from config import release as release_module
from config.release import release


@pytest.fixture
def fresh_release():
    release.cache_clear()
    yield release
    release.cache_clear()


@pytest.fixture
def project(tmp_path, settings, monkeypatch):
    """A project's folders of its own, with a template and a static file."""
    monkeypatch.delenv("ROUNDHOUSE_RELEASE", raising=False)
    settings.BASE_DIR = tmp_path
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.html").write_text("<h1>Standings</h1>")
    (tmp_path / "scoring" / "static").mkdir(parents=True)
    (tmp_path / "scoring" / "static" / "live.js").write_text("poll();")
    return tmp_path


def test_a_changed_template_static_file_or_translation_is_another_release(project, fresh_release):
    first = fresh_release()
    assert re.fullmatch(r"[0-9a-f]{8}", first)  # fits in an ETag and a cache key
    fresh_release.cache_clear()
    assert fresh_release() == first  # the same files: the same release (each process reads them)
    for path, text in [
        ("templates/page.html", "<h1>Live standings</h1>"),
        ("scoring/static/live.js", "listen();"),
        ("locale/es/LC_MESSAGES/django.po", 'msgid "Standings"\nmsgstr "Clasificación"'),
    ]:
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
        fresh_release.cache_clear()
        changed = fresh_release()
        assert changed != first, path
        first = changed


def test_compiled_bytecode_and_the_collected_static_files_are_not_part_of_it(
    project, fresh_release
):
    first = fresh_release()
    (project / "scoring" / "__pycache__").mkdir()
    (project / "scoring" / "__pycache__" / "views.cpython-311.pyc").write_bytes(b"\x00\x01")
    (project / "static").mkdir()  # STATIC_ROOT: made from the sources, by collectstatic
    (project / "static" / "live.0123abcd.js").write_text("poll();")
    fresh_release.cache_clear()
    assert fresh_release() == first


def test_a_deploy_may_name_its_release(project, fresh_release, monkeypatch):
    computed = fresh_release()
    monkeypatch.setenv("ROUNDHOUSE_RELEASE", "v2.4.0 (image 3f9c2e1)")
    fresh_release.cache_clear()
    named = fresh_release()
    assert named != computed and len(named) == 8
    (project / "templates" / "page.html").write_text("<h1>Changed</h1>")
    fresh_release.cache_clear()
    assert fresh_release() == named  # the name alone says which release it is


def test_the_image_holds_everything_the_release_is_made_of():
    # A folder the digest reads but the image lacks (or an app the image lacks) would leave
    # the pages of two releases under one name, or the image without the app.
    root = Path(__file__).resolve().parent.parent
    copied = set(re.findall(r"^COPY (\S+) \./", (root / "deploy/Dockerfile").read_text(), re.M))
    copied |= {"pyproject.toml", "uv.lock"}  # (COPY pyproject.toml uv.lock ./)
    assert set(release_module.SOURCES) <= copied
    local_apps = {app for app in settings.INSTALLED_APPS if (root / app / "apps.py").exists()}
    assert local_apps and local_apps <= set(release_module.SOURCES)


@pytest.fixture
def fresh_version():
    release_module.version.cache_clear()
    yield release_module.version
    release_module.version.cache_clear()


def test_the_version_is_the_one_that_pyproject_says(project, fresh_version):
    (project / "pyproject.toml").write_text('[project]\nname = "roundhouse"\nversion = "2.3.4"\n')
    assert fresh_version() == "2.3.4"


@pytest.mark.django_db
def test_the_signed_in_pages_footer_shows_the_version(client, organiser, tournament):
    with open(Path(settings.BASE_DIR) / "pyproject.toml", "rb") as file:
        written = tomllib.load(file)["project"]["version"]
    shown = f'<span class="site-version">Roundhouse {written}</span>'
    assert shown not in client.get(f"/en/t/{tournament.slug}/").content.decode()
    client.force_login(organiser)
    assert shown in client.get(f"/t/{tournament.slug}/manage/").content.decode()
