"""No server error on a malformed body (issue 23): every write operation of the schema answers a
JSON body nested 100,000 deep, one over the size limit, one of a type it does not read and one
that is not UTF-8 with a 4xx in the API's error shape, {"detail": "..."}, and changes nothing.
(A body nested 100,000 deep was a 500: RecursionError in Python's JSON decoder.)"""

from typing import Any

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from scoring.models import RoundResult, RoundResultVersion
from tests.api_world import build_world
from tournaments.models import Player, Staff, Stage, Tournament

pytestmark = pytest.mark.django_db

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
WRITES = sorted(
    (method.upper(), path)
    for path, operations in SCHEMA["paths"].items()
    for method, operation in operations.items()
    if method in ("post", "put", "patch") and "requestBody" in operation
)
DEEP = b"[" * 100_000 + b"]" * 100_000
BAD = {
    # name: (body, content type, the status it gets; the multipart imports refuse JSON as a type)
    "nested 100,000 deep": (DEEP, "application/json", 400),
    "not UTF-8": (b'{"name": "caf\xe9"}', "application/json", 400),
    "over the size limit": (
        b'{"name": "' + b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1) + b'"}',
        "application/json",
        413,
    ),
    "of a type the API does not read": (b"<name>x</name>", "application/xml", 415),
}
SAID = {
    "nested 100,000 deep": "nested too deeply",
    "not UTF-8": "is not UTF-8 text: byte 14",
    "over the size limit": "the API takes at most",
    "of a type the API does not read": "application/xml",
}


def test_the_schema_has_the_write_operations_the_test_covers():
    assert len(WRITES) >= 15  # a schema read wrongly would make this test pass vacuously
    assert ("PUT", "/api/v1/tables/{table_id}/rounds/{round_no}/") in WRITES


def state() -> list[Any]:
    return [
        model.objects.count()
        for model in (Tournament, Player, Stage, Staff, RoundResult, RoundResultVersion)
    ] + [sorted(Stage.objects.values_list("pk", "status", "rounds"))]


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
def test_a_malformed_body_is_a_4xx_in_the_error_shape_and_changes_nothing(method, path, bad):
    world = build_world()
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {world['token']}")
    url = path.format(**{name: ids[0] for name, ids in world.items() if isinstance(ids, list)})
    before = state()
    body, content_type, status = BAD[bad]
    multipart = "import" in path
    response = client.generic(method, url, body, content_type=content_type)
    expected = 415 if multipart and status == 400 else status
    assert response.status_code == expected, response.content[:300]
    assert str(expected) in SCHEMA["paths"][path][method.lower()]["responses"]  # declared
    assert response["Content-Type"].startswith("application/json")
    answer = response.json()
    assert list(answer) == ["detail"] and isinstance(answer["detail"], str)
    if not multipart or status != 400:
        assert SAID[bad] in answer["detail"]
    assert state() == before
