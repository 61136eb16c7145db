"""The commonest Python-style call read in one step: ``NAME(key=value, ...)`` whose values are plain strings,
decimal integers and constants, matched whole by one regex and written as JSON at once (the general reader,
:func:`~streamparse.formats.pyliteral.parse_call`, lexes token by token and ``json.dumps`` walks the dict).
"""

from __future__ import annotations

import re
from json.encoder import encode_basestring  # (what json.dumps uses, ensure_ascii off)
from typing import Final

# The commonest call, ``NAME(key=value, ...)`` whose values are plain strings (no escape, no prefix, not
# triple-quoted), decimal integers and constants: one match checks all of it, and its JSON is written at once,
# where the general reader lexes token by token and ``json.dumps`` walks the dict (2.7 + 1.5 µs for a one-key
# call). Whatever this does not match, a repeated key included, goes to the general reader, which reads every
# such call alike (tests/test_pyplain.py).
_PLAIN_VALUE: Final = r"\"[^\"\\]*+\"|'[^'\\]*+'|[+-]?(?:0|[1-9][0-9]{0,17})|True|False|None|true|false|null"
_PLAIN_CALL: Final = re.compile(
    r"\s*+(?P<name>[^\W\d]\w*+(?:[.-]\w++)*+)\s*+\(\s*+"
    r"(?:[^\W\d]\w*+\s*+=\s*+(?:" + _PLAIN_VALUE + r")\s*+(?:,\s*+|(?=\))))*+\)\s*+\Z"
)
_PLAIN_ARG: Final = re.compile(r"([^\W\d]\w*+)\s*+=\s*+(?:\"([^\"\\]*+)\"|'([^'\\]*+)'|([+-]?[0-9]++)|([a-zA-Z]++))")
_CONSTANT_JSON: Final = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
}


def plain_call_json(text: str) -> tuple[str, str] | None:
    """``parse_call`` for the commonest calls, with the arguments as ``json.dumps`` writes them (``ensure_ascii``
    off); None for any other text (the general reader decides it)."""
    m = _PLAIN_CALL.match(text)
    if m is None:
        return None
    members: dict[str, str] = {}
    for arg in _PLAIN_ARG.finditer(text, m.end("name")):
        key, dq, sq, num, word = arg.groups()
        if key in members:
            return None  # (the general reader's error)
        if dq is not None:
            members[key] = encode_basestring(dq)
        elif sq is not None:
            members[key] = encode_basestring(sq)
        elif num is not None:
            members[key] = str(int(num))
        else:
            members[key] = _CONSTANT_JSON[word]
    body = ", ".join([encode_basestring(key) + ": " + value for key, value in members.items()])
    return m.group("name"), "{" + body + "}"
