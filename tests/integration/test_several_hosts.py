"""Several web hosts (deploy/stack.sh with STACK_HOSTS=2; deploy/README.md, "Several hosts"): two
hosts, each its own nginx (its own cache, its own nchan) and both gunicorn pools, behind a
balancer, sharing PostgreSQL, Redis and the workers. A result confirmed through one host reaches
a page held on the other within moments (nchan's channels in Redis), the other host's cache has
the new version before its pages hear of it (the worker warms every host), and the balancer
spreads the requests over both and never passes the publisher on."""

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.test_live_push import (
    Subscriber,
    nchan_installed,  # noqa: F401 (autouse: the module is needed)
    page_path,
    total_of,
    versioned_part,
)
from tests.integration.test_proxy import fetch
from tests.integration.test_stack import (
    Stack,
    free_port,
    play_round,
    running,
    started_stack,
    wait_for,
)

pytestmark = pytest.mark.services


@dataclass
class Host:
    """One web host of the stack, as the helpers of test_live_push and test_proxy take a stack:
    its nginx's port, and the folder of its logs."""

    nginx_port: int
    gunicorn_log: Path


@pytest.fixture(scope="module")
def stack(module_redis, tmp_path_factory) -> Iterator[Stack]:
    """A stack of two hosts; `stack` itself is host 1's nginx (stack.base, stack.nginx_port).
    The module's tests share it, each with a tournament of its own."""
    ports = {
        name: str(free_port())
        for name in ("HOST2_PORT", "HOST2_STAFF_PORT", "HOST2_NGINX_PORT", "LB_PORT")
    }
    directory = tmp_path_factory.mktemp("stack")
    for started in started_stack(module_redis, directory, STACK_HOSTS="2", **ports):
        started.ports = {name: int(port) for name, port in ports.items()}
        yield started


def hosts(stack: Stack) -> tuple[Host, Host, Host]:
    """Host 1, host 2, and the balancer (its log: which host answered each request)."""
    return (
        Host(stack.nginx_port, stack.directory / "web.log"),
        Host(stack.ports["HOST2_NGINX_PORT"], stack.directory / "web2.log"),
        Host(stack.ports["LB_PORT"], stack.directory / "lb" / "nginx-access.log"),
    )


def seated_stage(stack: Stack, slug: str) -> tuple[dict, list[dict]]:
    """A tournament of one table of four, seated, through host 1, its seating's snapshot built."""
    stack.open_event("Two Hosts Night", slug, players=4)
    stage = stack.request(
        "POST",
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Qualifying", "kind": "qualifying", "starting_double": 12, "rounds": 2,
         "table_size_min": 4, "table_size_max": 4},
    ).json()  # fmt: skip
    seated = stack.request("POST", f"/api/v1/stages/{stage['id']}/seat/", {"seed": 5})
    assert seated.status == 200, seated.body
    wait_for(
        lambda: stack.get(f"/api/v1/stages/{stage['id']}/standings/"),
        lambda body: body["stale"] is False,
        "the seating's standings snapshot",
        timeout=30,
    )
    return stage, seated.json()


def test_a_result_confirmed_through_one_host_reaches_a_page_held_on_the_other(stack):
    one, two, balancer = hosts(stack)
    stage, tables = seated_stage(stack, "two-hosts")
    # A page on host 2 connects after the seating's rebuild, which the worker published to host
    # 1's nginx only: it hears that version at once (the channel is the same in Redis).
    page = Subscriber(two, "two-hosts/en")
    same_host = Subscriber(one, "two-hosts/en")
    try:
        _, seated_version = page.next(timeout=5)
        assert re.fullmatch(rf"{stage['id']}-\d+", seated_version), seated_version
        assert same_host.next(timeout=5)[1] == seated_version

        table = tables[0]
        watched = next(seat for seat in table["seats"] if seat["position"] != 1)
        play_round(stack, table, 1)  # through host 1's nginx; returns on the confirmation's 200
        confirmed = time.monotonic()
        heard, said = page.next(timeout=5)
        assert heard - confirmed < 1.5, f"host 2's page heard it {heard - confirmed:.2f} s after"
        version, _, named = said.partition(" ")
        assert version != seated_version and named == str(table["id"]), said
        assert same_host.next(timeout=5)[1] == said  # host 1's pages too, once each

        # Each host's cache has the new version before its pages hear of it: the phones' first
        # ask is a HIT on host 2 as on host 1, each host's gunicorn asked once (the worker's).
        path = page_path(two, "/t/two-hosts/")
        for host in (two, one):
            first = versioned_part(host, path, version)
            assert first.status == 200, first.body[:500]
            assert first.cache == "HIT", (host, first.headers)
            assert total_of(first.body, watched["player"]["name"]) == (
                watched["player"]["number"] + 1
            )
            asked = f'"GET {path}?v={version} HTTP/1.1"'
            assert host.gunicorn_log.read_text(errors="replace").count(asked) == 1, host
        # Through the balancer, whichever host answers: the same cached copy.
        for _ in range(4):
            assert versioned_part(balancer, path, version).cache == "HIT"
    finally:
        page.close()
        same_host.close()


def test_the_balancer_spreads_requests_over_both_hosts_and_passes_no_publisher_on(stack):
    one, two, balancer = hosts(stack)
    for _ in range(6):
        answer = fetch(balancer, "/health/ready/")
        assert answer.status == 200, answer.body
    answered = re.findall(r'"GET /health/ready/ HTTP/1.1" 200 \d+ host=127\.0\.0\.1:(\d+)',
                          balancer.gunicorn_log.read_text())  # fmt: skip
    assert {int(port) for port in answered} == {one.nginx_port, two.nginx_port}, answered

    # A page may listen through the balancer; nobody may publish through it.
    page = Subscriber(balancer, "quiet-hosts/en")
    try:
        refused = fetch(balancer, "/_live/publish/quiet-hosts/en", method="POST", body=b"1-99")
        assert refused.status == 404
        with pytest.raises(AssertionError, match="no message"):
            page.next(timeout=1)
        own = fetch(two, "/_live/publish/quiet-hosts/en", method="POST", body=b"1-97")
        assert own.status in (201, 202), own.body
        assert page.next(timeout=2)[1] == "1-97"
    finally:
        page.close()

    # status and stop, told nothing of the hosts, see both: their number is in the env file.
    status = stack.run("status", env={"STACK_HOSTS": ""})
    assert status.returncode == 0, status.stdout + status.stderr
    assert re.search(r"(?m)^nginx2 +running", status.stdout), status.stdout
    assert "host 2\nready    200" in status.stdout and "\nbalanced 200" in status.stdout
    processes = stack.pids()
    assert len(processes) > 10  # ten roles, with their gunicorn and nginx workers
    stopped = stack.run("stop", env={"STACK_HOSTS": ""})
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert "stopping web2" in stopped.stdout and "stopping lb" in stopped.stdout, stopped.stdout
    assert not [pid for pid in processes if running(pid)]
