"""Families whose calls are another format's but whose reasoning is delimited in plain text or in tags prose
also uses: apriel, granite_thinking, hunyuan. Such delimiters would misfire in other models' prose, so these
formats are opt-in: active where named (their model presets name them), never under ``formats="auto"``.
apriel and hunyuan are declarations (formats/declaration.py); granite_thinking reuses granite's handlers.
"""

from __future__ import annotations

from typing import Final

from .base import FormatSpec, Wiring
from .compiler import compile_declaration
from .declaration import Call, Declaration, JsonName, Reasoning, Wrapper
from .marked import granite_tag, granite_token

# Apriel 1.5 / 1.6 (ServiceNow): reasoning, then the answer after `[BEGIN FINAL RESPONSE]`. 1.6's template
# ends the prompt with the reasoning opener (primed: the marker alone then ends the reasoning, an orphan
# closer); 1.5's asks for `[BEGIN FINAL RESPONSE] ... [END FINAL RESPONSE]` around the answer.
APRIEL: Final = Declaration(
    "apriel",
    Call("<tool_calls>", "</tool_calls>", JsonName(list=True)),
    reasoning=(Reasoning("Here are my reasoning steps:", "[BEGIN FINAL RESPONSE]", primed=True),),
    content=Wrapper(None, "[END FINAL RESPONSE]"),
    models="ServiceNow Apriel 1.5 / 1.6 (Thinker)",
    example="Here are my reasoning steps:\nSet it.\n[BEGIN FINAL RESPONSE]\nDone.\n"
    '<tool_calls>[{"name": "set_alarm", "arguments": {"minutes": 15}}]</tool_calls>',
    notes="opt-in (plain-text reasoning markers); 1.6's template writes the opener in the prompt.",
)

# Hunyuan-A13B: `<think>\n...\n</think>\n<answer>\n...\n</answer>`, calls as a JSON list in <tool_calls>
# inside the answer (vLLM's hunyuan_a13b parsers). The answer tags are markup.
HUNYUAN: Final = Declaration(
    "hunyuan",
    Call("<tool_calls>", "</tool_calls>", JsonName(list=True)),
    content=Wrapper("<answer>", "</answer>"),
    models="Tencent Hunyuan-A13B",
    example='<think>\nSet it.\n</think>\n<answer>Setting it.\n<tool_calls>[{"name": "set_alarm", "arguments": '
    '{"minutes": 15}}]</tool_calls>\n</answer>',
    notes="opt-in (<answer> tags are removed); <think> is the shared wrapper.",
)


# Granite 3.2 with thinking on writes both markers itself (vLLM's granite reasoning parser; "Here's" is
# seen from quantised models too). The response marker ends the reasoning.
GRANITE_OPENS: Final = ("Here is my thought process:", "Here's my thought process:")
GRANITE_CLOSES: Final = ("Here is my response:", "Here's my response:")


def wire_granite_thinking(w: Wiring) -> None:
    w.on("<|tool_call|>", granite_token)
    w.on("<tool_call>", granite_tag)
    for opener, closer in zip(GRANITE_OPENS, GRANITE_CLOSES, strict=True):
        w.add_reasoning(opener, closer)


SPECS: Final = [
    compile_declaration(APRIEL),  # auto=False: opt-in
    FormatSpec(
        "granite_thinking",
        "Granite 3.2 with thinking on",
        "Here is my thought process: ... Here is my response: ANSWER · granite's calls",
        'Here is my thought process:\nSet it.\nHere is my response:\n<|tool_call|>[{"name": "set_alarm", '
        '"arguments": {"minutes": 15}}]',
        wire_granite_thinking,
        opt_in=True,
        notes="opt-in (plain-text reasoning markers); calls are granite's.",
    ),
    compile_declaration(HUNYUAN),
]
