"""The host's systemd units (deploy/systemd/) as systemd itself reads them: `systemd-analyze
verify` on each, rendered under a temporary root that has the programs they start; every
variable they read is one deploy/env.example explains; every process deploy/stack.sh starts has
its unit; and deploy/render-nginx.sh writes a whole nginx.conf that Debian's nginx accepts."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import services_missing

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
INSTALLED = "/srv/roundhouse"
ENV_EXAMPLE = ROOT / "deploy" / "env.example"


def unit_files() -> list[Path]:
    return sorted(
        path for path in UNITS.iterdir() if path.suffix in {".service", ".target", ".timer"}
    )


def directives(unit: Path, key: str) -> list[str]:
    return re.findall(rf"(?m)^{key}=(.*)$", unit.read_text(encoding="utf-8"))


def systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if not found:
        services_missing("systemd-analyze is not installed (apt-get install systemd)")
    return found


def render_units(root: Path) -> Path:
    """The units with the checkout at root/srv/roundhouse instead of /srv/roundhouse, and there,
    an empty executable for each program of the checkout they start (systemd-analyze refuses a
    command that is not there)."""
    checkout = root / "srv" / "roundhouse"
    rendered = root / "units"
    rendered.mkdir(parents=True)
    for unit in unit_files():
        text = unit.read_text(encoding="utf-8").replace(INSTALLED, str(checkout))
        (rendered / unit.name).write_text(text, encoding="utf-8")
        for program in re.findall(rf"{re.escape(str(checkout))}/[^\s;]+", text):
            path = Path(program)
            if path.suffix not in {".md", ".py"} and "schedule" not in path.name:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("#!/bin/sh\n", encoding="utf-8")
                path.chmod(0o755)
    return rendered


@pytest.mark.parametrize("name", [unit.name for unit in unit_files()])
def test_systemd_analyze_verify_finds_nothing_to_say_about_the_unit(name, tmp_path):
    analyze = systemd_analyze()
    rendered = render_units(tmp_path)
    answer = subprocess.run(
        [analyze, "verify", "--man=no", str(rendered / name)],
        capture_output=True,
        text=True,
        cwd=rendered,
        timeout=60,
    )
    # verify exits 0 on an unknown key or a bad value too ("..., ignoring"): any word is a finding.
    findings = [line for line in (answer.stdout + answer.stderr).splitlines() if line.strip()]
    assert answer.returncode == 0 and not findings, findings


def test_every_program_the_units_start_is_an_absolute_path_of_the_checkout_or_the_system():
    for unit in unit_files():
        for line in directives(unit, "ExecStart") + directives(unit, "ExecStartPre"):
            words = line.lstrip("-+!@:").split()
            programs = [word for word in words if word.startswith("/")]
            assert programs, (unit.name, line)
            for program in programs:
                if not program.startswith(INSTALLED):
                    assert Path(program).exists(), (unit.name, program)


def env_example_names() -> set[str]:
    """The names env.example explains: set (NAME=...) or shown commented out (# NAME=...)."""
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    return set(re.findall(r"(?m)^(?:# )?([A-Z][A-Z0-9_]*)=", text))


def test_every_variable_the_units_read_is_explained_in_env_example():
    explained = env_example_names()
    for unit in unit_files():
        text = unit.read_text(encoding="utf-8")
        used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)\}", text))
        for line in directives(unit, "Environment"):
            used |= set(re.findall(r"([A-Z][A-Z0-9_]*)=", line))
        used -= {"DJANGO_SETTINGS_MODULE", "PYTHONUNBUFFERED"}  # the units' own, never changed
        assert used <= explained, (unit.name, sorted(used - explained))


def test_every_app_unit_reads_the_environment_file_and_runs_as_the_roundhouse_user():
    for unit in unit_files():
        if unit.suffix != ".service":
            continue
        assert directives(unit, "EnvironmentFile") == ["/etc/roundhouse/roundhouse.env"], unit.name
        assert directives(unit, "User") == ["roundhouse"], unit.name
        assert directives(unit, "NoNewPrivileges") == ["yes"], unit.name
        assert directives(unit, "ProtectSystem") == ["full"], unit.name
        assert directives(unit, "PrivateTmp") == ["yes"], unit.name
        if unit.name != "roundhouse-backup.service":
            assert directives(unit, "Restart") == ["on-failure"], unit.name
            assert directives(unit, "WantedBy") == ["roundhouse.target"], unit.name


def test_the_target_starts_at_boot_and_the_backup_each_night():
    assert directives(UNITS / "roundhouse.target", "WantedBy") == ["multi-user.target"]
    assert directives(UNITS / "roundhouse-backup.timer", "WantedBy") == ["timers.target"]
    assert directives(UNITS / "roundhouse-backup.timer", "OnCalendar") == ["*-*-* 03:30:00"]


def test_the_web_unit_checks_the_deployment_and_migrates_before_it_serves():
    before = directives(UNITS / "roundhouse-web.service", "ExecStartPre")
    assert [line.split(" ", 2)[2] for line in before[:2]] == [
        "check --deploy --fail-level WARNING",
        "migrate --noinput",
    ]
    for name in ("staff", "worker@", "beat"):
        unit = UNITS / f"roundhouse-{name}.service"
        (after,) = directives(unit, "After")
        assert "roundhouse-web.service" in after.split(), name
        assert not any("migrate" in line for line in directives(unit, "ExecStartPre")), name


def stack_roles(tmp_path: Path) -> list[str]:
    """The app's processes of a one-host stack, as stack.sh names them (nginx, stopped first,
    left out)."""
    listed = subprocess.run(
        ["bash", str(ROOT / "deploy" / "stack.sh"), "roles"],
        env={"PATH": "/usr/bin:/bin", "STACK_DIR": str(tmp_path / "stack")},
        capture_output=True,
        text=True,
        check=True,
    )
    roles = listed.stdout.split()
    assert roles[0] == "nginx", roles
    return roles[1:]


def test_every_process_stack_sh_starts_has_its_unit(tmp_path):
    (wanted,) = directives(UNITS / "roundhouse.target", "Wants")
    wanted = wanted.split()
    roles = stack_roles(tmp_path)
    assert roles == ["web", "staff", "worker1", "worker2", "beat"]
    for role in roles:
        numbered = re.fullmatch(r"([a-z]+)(\d+)", role)
        unit = (
            f"roundhouse-{numbered[1]}@{numbered[2]}.service"
            if numbered
            else f"roundhouse-{role}.service"
        )
        assert unit in wanted, role
        template = re.sub(r"@\d+\.", "@.", unit)
        assert (UNITS / template).is_file(), template
    assert len(wanted) == len(roles)


def test_the_units_start_what_stack_sh_starts():
    def command(name: str) -> str:
        (line,) = directives(UNITS / name, "ExecStart")
        return line.replace(f"{INSTALLED}/.venv/bin/", "")

    assert command("roundhouse-web.service") == (
        "gunicorn config.wsgi -c deploy/gunicorn.conf.py --bind 127.0.0.1:${PORT}"
    )
    assert command("roundhouse-staff.service") == (
        "gunicorn config.wsgi -c deploy/gunicorn.conf.py --bind 127.0.0.1:${STAFF_PORT}"
        " --workers ${STAFF_WORKERS}"
    )
    assert command("roundhouse-worker@.service") == (
        "/usr/bin/nice -n ${CELERY_WORKER_NICE} celery -A config worker --loglevel=INFO"
        " -n %i@%%h --concurrency 1"
    )
    assert command("roundhouse-beat.service").startswith(
        "celery -A config beat --loglevel=INFO -s "
    )


def nginx_binary() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if not found:
        services_missing("nginx is not installed (Debian's nginx.service serves the host)")
    return found


def test_render_nginx_writes_a_whole_config_that_debians_nginx_accepts(tmp_path):
    nginx = nginx_binary()
    env_file = tmp_path / "roundhouse.env"
    env_file.write_text(
        "ROUNDHOUSE_PUBLIC_URL=https://hall.example.org\nPORT=8000\nSTAFF_PORT=8001\n",
        encoding="utf-8",
    )
    conf = tmp_path / "nginx.conf"
    rendered = subprocess.run(
        ["bash", str(ROOT / "deploy" / "render-nginx.sh"), str(conf)],
        env={
            "PATH": "/usr/bin:/bin",
            "ROUNDHOUSE_ENV_FILE": str(env_file),
            # Where a normal user may write (the host's are /var/cache/nginx and /var/log/nginx).
            "NGINX_STATE": str(tmp_path / "state"),
            "NGINX_ACCESS_LOG": str(tmp_path / "access.log"),
        },
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert rendered.returncode == 0, rendered.stderr
    text = conf.read_text(encoding="utf-8")
    assert "user www-data; pid /run/nginx.pid;" in text
    assert "server_name hall.example.org 127.0.0.1;" in text
    assert "listen 127.0.0.1:8080;" in text
    assert "server 127.0.0.1:8000;" in text and "server 127.0.0.1:8001;" in text
    assert re.search(r"\$\{[A-Z_]+\}", re.sub(r"(?m)^\s*#.*$", "", text)) is None
    checked = subprocess.run(
        [nginx, "-t", "-q", "-c", str(conf)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    # As root the pid file's folder must exist, as a normal user the user directive is ignored.
    assert checked.returncode == 0, checked.stderr


def test_render_nginx_without_a_public_address_says_what_is_missing(tmp_path):
    conf = tmp_path / "nginx.conf"
    answer = subprocess.run(
        ["bash", str(ROOT / "deploy" / "render-nginx.sh"), str(conf)],
        env={"PATH": "/usr/bin:/bin", "ROUNDHOUSE_ENV_FILE": str(tmp_path / "missing.env")},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert answer.returncode == 1
    assert "no ROUNDHOUSE_PUBLIC_URL" in answer.stderr
    assert not conf.exists()
