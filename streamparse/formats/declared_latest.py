"""Families whose engine tests streamparse ported last (vLLM's ``tests/tool_parsers``), written as declarations
(formats/declaration.py) and compiled like every declared format.

Each follows the family's reference parser in vLLM and that parser's tests (tests/data/real/vllm.json);
docs/FORMATS.md says per family what could be read of the model's own template.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from .base import FormatSpec, Wiring
from .compiler import compile_declaration
from .declaration import Call, Declaration, HeaderName, JsonName, TaggedArgs, Values

# HyperCLOVAX-SEED-Think-32B (vLLM's hyperclovax_seed_think parser, after the template's system prompt):
# `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n...</tool_call>`, GLM's element with each
# value written as JSON (strings quoted); a value that is not JSON is the text itself, typed by the schema,
# as vLLM keeps it. `<|im_end|>` ends the turn. <tool_call> is hermes's opener: active where named.
HYPERCLOVAX_SEED_THINK: Final = Declaration(
    "hyperclovax_seed_think",
    Call(
        "<tool_call>",
        "</tool_call>",
        HeaderName(""),
        TaggedArgs(
            "<arg_key>",
            "</arg_key>",
            "</arg_value>",
            value_open="<arg_value>",
            values=Values(strings="json", whitespace="strip"),
        ),
    ),
    control_tokens=("<|im_end|>",),
    models="HyperCLOVAX-SEED-Think-32B (NAVER)",
    notes="GLM's <arg_key>/<arg_value> calls with JSON values: active where named (presets), not in auto",
)

# HyperCLOVAX-SEED-Think-14B (vLLM's hyperclovax_seed_think_14b parser): the calls are a JSON list in an
# assistant message of their own, `<|im_start|>assistant -> tool/function_call\n[{"name": ..., "arguments":
# ...}]<|im_end|>` (`parameters` is read too). The list ends the call; the turn's markers are markup.
HYPERCLOVAX_SEED_THINK_14B: Final = Declaration(
    "hyperclovax_seed_think_14b",
    Call("-> tool/function_call\n", None, JsonName(list=True)),
    control_tokens=("<|im_end|>", "<|im_start|>assistant"),
    models="HyperCLOVAX-SEED-Think-14B (NAVER)",
    notes="a tool/function_call role header before a JSON list: active where named (presets), not in auto",
)

# Qwen2.5-Coder (vLLM's qwen25_coder and qwen2_5_coder parsers): `<tools>` + a call object, or a JSON list of
# them, + `</tools>`; blocks may follow each other. The tag also names the tool list in system prompts: active
# where named (presets), not in auto.
QWEN25_CODER: Final = Declaration(
    "qwen25_coder",
    Call("<tools>", "</tools>", JsonName()),
    models="Qwen2.5-Coder",
    notes="hermes's JSON call in <tools>...</tools>: active where named (presets), not in auto",
)

# RWKV (vLLM's rwkv parser): a `**Tool Call:**` label, then the call object in a ```json fence. The label is
# markdown prose could hold: active where named (presets), not in auto.
RWKV: Final = Declaration(
    "rwkv",
    Call("**Tool Call:**", None, JsonName()),
    models="RWKV-7 (G1)",
    notes="a markdown label before a ```json fenced call: active where named (presets), not in auto",
)

DECLARATIONS: tuple[Declaration, ...] = (HYPERCLOVAX_SEED_THINK, HYPERCLOVAX_SEED_THINK_14B, QWEN25_CODER, RWKV)


def _ahead_of_siblings(spec: FormatSpec, marker: str) -> FormatSpec:
    """``spec``, its handler of ``marker`` tried before those of the catalog's earlier formats: where the
    format is named, its reading of a body another format also accepts is the one meant (glm45 reads
    HyperCLOVAX's body but keeps its JSON-written values quoted). Bodies it declines still reach them."""
    base = spec.wire

    def wire(w: Wiring) -> None:
        base(w)
        handlers = w.markers[marker]
        handlers.insert(0, handlers.pop())

    return replace(spec, wire=wire)


SPECS: list[FormatSpec] = [
    _ahead_of_siblings(compile_declaration(HYPERCLOVAX_SEED_THINK), "<tool_call>"),
    compile_declaration(HYPERCLOVAX_SEED_THINK_14B),
    compile_declaration(QWEN25_CODER),
    compile_declaration(RWKV),
]
