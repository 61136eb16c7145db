"""The structural check ``ToolSet`` runs instead of the metaschema at construction: it never refuses a
schema the metaschema accepts (so lazy validation rejects nothing that eager validation accepted), and it
is iterative (a deep schema cannot exhaust the stack)."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.schema_check import shape_problem

_KEYS = ["type", "properties", "items", "required", "enum", "pattern", "minLength", "maxItems", "anyOf",
         "additionalProperties", "not", "$defs", "prefixItems", "const", "x-extra"]  # fmt: skip
_VALUES = (
    st.sampled_from(["string", "integer", "object", "strin", "(", "[a-z]+", "null"])
    | st.integers(-2, 3)
    | st.floats(-1, 3, allow_nan=False)
    | st.booleans()
    | st.none()
)


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        _VALUES,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4),
        max_leaves=12,
    )


@settings(max_examples=400, deadline=None)
@given(schema=st.dictionaries(st.sampled_from(_KEYS), _schemas(), max_size=4))
def test_the_shape_check_never_refuses_what_the_metaschema_accepts(schema: dict[str, Any]) -> None:
    problem = shape_problem(schema)
    if problem is not None:
        try:
            jsonschema.Draft202012Validator.check_schema(schema)  # what eager construction ran
        except jsonschema.SchemaError:
            return
        raise AssertionError(f"flagged {problem} but the metaschema accepts {schema!r}")


def test_a_schema_nested_thousands_deep_is_checked_without_recursion() -> None:
    schema: dict[str, Any] = {"type": "strin"}
    for _ in range(5000):
        schema = {"type": "object", "properties": {"x": schema}}
    problem = shape_problem(schema)
    assert problem is not None and problem[0][-1] == "type" and len(problem[0]) == 2 * 5000 + 1
