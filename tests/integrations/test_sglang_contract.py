"""SGLang's item shapes and typed values through the streamparse detector (issue 22)."""

from __future__ import annotations

import json

from sglang.srt.entrypoints.openai.protocol import Tool

from streamparse.integrations.sglang import DETECTORS

TOOLS = [
    Tool.model_validate(
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                },
            },
        }
    )
]
QWEN_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"


def test_a_call_streams_a_name_only_item_first_then_nameless_fragments() -> None:
    detector = DETECTORS["streamparse_qwen3_coder"]()
    items = [
        c for chunk in (QWEN_CALL[:40], QWEN_CALL[40:]) for c in detector.parse_streaming_increment(chunk, TOOLS).calls
    ]
    items += detector.finish(TOOLS).calls
    assert (items[0].name, items[0].parameters) == ("get_weather", "")
    assert all(c.name is None and c.tool_index == 0 for c in items[1:])
    assert json.loads("".join(c.parameters for c in items)) == {"city": "Paris", "days": 3}


def test_the_request_s_parameter_schemas_type_the_values() -> None:
    result = DETECTORS["streamparse_qwen3_coder"]().detect_and_parse(QWEN_CALL, TOOLS)
    assert [(c.name, json.loads(c.parameters)) for c in result.calls] == [("get_weather", {"city": "Paris", "days": 3})]
