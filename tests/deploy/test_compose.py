"""deploy/compose.yaml as compose reads it (no Docker engine here, nor compose: the file parsed as
YAML): several web hosts by scaling (no container of fixed name or published port behind the
balancer), the balancer in front, and each nginx template filled in whole by its envsubst."""

import re
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def services() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]


def template_names(template: str) -> set[str]:
    """The ${NAME}s a template's directives use (its comments name some as examples)."""
    code = re.sub(r"(?m)^[ \t]*#.*$", "", (DEPLOY / template).read_text())
    return set(re.findall(r"\$\{([A-Z_]+)\}", code))


def substituted(service: dict) -> set[str]:
    """The names the service's command gives envsubst ('$${NAME}' in the YAML)."""
    command = " ".join(service["command"])
    listed = re.search(r"envsubst '([^']*)'", command)
    assert listed, command
    return set(re.findall(r"\$\$\{([A-Z_]+)\}", listed[1]))


def test_web_and_nginx_can_be_scaled_behind_the_balancer():
    found = services()
    for name in ("web", "staff", "nginx"):
        # A fixed name or host port would stop `--scale name=2` at the second container.
        assert "container_name" not in found[name], name
        assert "ports" not in found[name], name
    assert found["lb"]["ports"] == ["127.0.0.1:${NGINX_PUBLISHED_PORT:-8180}:8080"]
    assert "server nginx:8080" in found["lb"]["environment"]["LB_SERVERS"]
    assert found["proxy"]["command"][-1] == "lb:8080"  # caddy in front of the balancer


def test_each_nginx_template_is_filled_in_whole_and_every_name_has_a_value():
    found = services()
    for service, template in (("nginx", "nginx.conf"), ("lb", "lb.conf")):
        names = template_names(template)
        assert names == substituted(found[service]), (service, template)
        assert names <= set(found[service]["environment"]), (service, template)


def test_every_nginx_shares_its_live_channels_and_is_warmed():
    found = services()
    environment = found["nginx"]["environment"]
    assert "nchan_redis_server redis://redis-broker:6379/1;" in environment["NCHAN_REDIS"]
    assert environment["NCHAN_REDIS_PASS"] == "nchan_redis_pass roundhouse_live;"
    app = found["worker"]["environment"]
    assert app["LIVE_WARM_URLS"] == "${LIVE_WARM_URLS:-http://nginx:8080}"
