"""The OpenAPI schema's shared answers: the error bodies of docs/API.md ("Errors") as named
components, and the answers every operation can give by its shape, declared in one place (a
postprocessing hook of drf-spectacular), so that a generated client knows every status the server
can send.

What an operation can answer beyond these (409, 412, 422, 428, 429, 202) is declared on its view
with `refused(...)`. tests/test_api_schema.py checks the server against it."""

from typing import Any

from drf_spectacular.utils import OpenApiResponse

ERROR = {
    "type": "object",
    "properties": {
        "detail": {
            "type": "string",
            "description": "What went wrong and what to do, in the reader's language.",
        }
    },
    "required": ["detail"],
}
CONFLICT = {
    "type": "object",
    "description": "The current state forbids it (a closed stage, a decided event, the last "
    "organiser); nothing was changed.",
    "properties": {
        "detail": {"type": "string", "description": "Why, and what to do."},
        "problems": {
            "type": "array",
            "items": {"type": "object", "additionalProperties": {}},
            "description": "What stands in the way, when the refusal lists it: a stage that "
            'cannot close yet lists each round not confirmed ({"table", "round", "status"}).',
        },
    },
    "required": ["detail"],
}
# A 400's body (DRF's shapes, docs/API.md, "Errors"): each field's messages ({"scores": ["..."]},
# nested as the body is), {"non_field_errors": [...]}, or {"detail": "..."}.
VALIDATION_ERROR = {
    "type": "object",
    "description": "The request was refused and nothing was stored: each field's messages "
    '({"field": ["message"]}, nested like the body), {"non_field_errors": ["message"]}, or '
    '{"detail": "message"}.',
    "additionalProperties": {},
}

# Status: (component, what it means), for every operation whose shape allows it.
BY_SHAPE = {
    "400": ("ValidationError", "The body (or a parameter) is not valid; nothing was stored."),
    "401": (
        "Error",
        "No credentials, or credentials that are not valid: get a token from "
        "POST /api/v1/auth/token/ and send `Authorization: Token <token>`.",
    ),
    "403": ("Error", "Signed in, but without the role in this tournament that this needs."),
    "409": (
        "Conflict",
        "The tournament's state forbids it now (a closed stage, a decided event, the last "
        "organiser); nothing was changed.",
    ),
    "404": ("Error", "Nothing at this address."),
    "413": (
        "Error",
        "The body is over the API's size limit; nothing was read. (A CSV file over the "
        "import's limit is a 400 naming the file's size.)",
    ),
    "415": ("Error", "The body's Content-Type is not one this operation reads."),
    "503": (
        "Error",
        "The database did not answer in time; nothing was changed. Send it again after "
        "Retry-After seconds.",
    ),
}
ANONYMOUS: dict = {}  # the security requirement that needs no credentials


COMPONENTS = {"Error": ERROR, "Conflict": CONFLICT, "ValidationError": VALIDATION_ERROR}


def refused(description: str, component: str = "Conflict") -> OpenApiResponse:
    """An answer beyond the shape's, for a view's extend_schema(responses=...): a 409 by default;
    "Error" for one that says only `detail` (422, 428, 429)."""
    assert component in COMPONENTS, component
    return OpenApiResponse(
        response={"$ref": f"#/components/schemas/{component}"}, description=description
    )


def declare_answers(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook: every operation gets the error answers its shape
    allows, with their bodies. A token that is not valid is a 401 wherever one is sent (also on
    the public reads); an operation that needs a role is a 403 for a user without it; a path
    parameter, a 404; a change, a 409 when the state forbids it; a body, a 400, a 413 and a
    415; and any, a 503 when the database does not answer in time."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(COMPONENTS)
    for name, schema in schemas.items():
        if name.startswith("Patched"):
            # A PATCH changes what it sends, nothing else: a default would have a generated
            # client send it (an official setting the day's engines would also send
            # advance_per_table, which only organisers may change).
            for field in schema.get("properties", {}).values():
                field.pop("default", None)
    for path, operations in result["paths"].items():
        for method, operation in operations.items():
            security = operation.get("security", [])
            credentials = any(requirement != ANONYMOUS for requirement in security)
            codes = ["503"]  # a database that does not answer in time (config/api.py)
            if credentials:  # a token that is not valid is refused wherever it is sent
                codes.append("401")
            if ANONYMOUS not in security:
                codes.append("403")
            if ANONYMOUS not in security and method != "get":
                codes.append("409")
            if "{" in path:
                codes.append("404")
            body = operation.get("requestBody", {}).get("content", {})
            if body:
                codes += ["400", "413", "415"]
            responses = operation["responses"]
            for code in sorted(codes):
                if code in responses:
                    continue
                component, description = BY_SHAPE[code]
                responses[code] = {
                    "content": {
                        "application/json": {
                            "schema": {"$ref": f"#/components/schemas/{component}"}
                        }
                    },
                    "description": description,
                }
    return result
