"""Render models' own chat templates for assistant turns that carry tool calls; keep what the model generates.

Usage::

    python scripts/render_templates.py --templates DIR --out tests/data/real/templates.json [--only REGEX ...]

``DIR`` holds Hugging Face chat templates (``*.jinja``, e.g. a checkout of llama.cpp's ``models/templates``);
the templates are read, never copied. A model whose template ``DIR`` lacks keeps its cases from ``--out``. For
every template listed in :data:`MODELS` and every scenario in :data:`SCENARIOS` the script renders the
conversation twice, once ending with the generation prompt and once with the assistant turn, and keeps the
difference: the text the model generates after the prompt, minus the end-of-turn token (servers strip it). The
fixture records that text with the calls, visible text and reasoning it must parse to, and where the template came
from (``template``: the row of ``DIR/SOURCES.tsv`` naming its repository, path and commit, when ``DIR`` has
one). A scenario the template cannot express (no reasoning slot, a template that rejects the turn) is skipped and
listed on stderr.

Rendering is the library's (``streamparse.derive.render.Renderer``), which follows ``transformers``'
``apply_chat_template``: a sandboxed environment with ``trim_blocks`` and ``lstrip_blocks``, ``loopcontrols``,
``tojson`` without ASCII escaping, ``raise_exception`` and ``strftime_now`` (fixed here, for reproducible
fixtures), bounded in time and output.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamparse.derive.render import Renderer

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Current time in a time zone.",
            "parameters": {
                "type": "object",
                "properties": {"timezone": {"type": "string"}},
                "required": ["timezone"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"},
                    "options": {"type": "object"},
                },
                "required": ["path", "content"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "send_message",
            "description": "Send a message.",
            "parameters": {
                "type": "object",
                "properties": {"to": {"type": "string"}, "text": {"type": "string"}},
                "required": ["to", "text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "number"}, "exact": {"type": "boolean"}},
                "required": ["a", "b"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_location",
            "description": "Where the user is.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


def _with_nested_options(tool: dict[str, Any]) -> dict[str, Any]:
    """``write_file`` with the keys of its ``options`` object declared (the rest unchanged)."""
    if tool["function"]["name"] != "write_file":
        return tool
    fn = dict(tool["function"])
    params = dict(fn["parameters"])
    params["properties"] = dict(params["properties"])
    params["properties"]["options"] = {
        "type": "object",
        "properties": {
            "mode": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "retries": {"type": "integer"},
            "force": {"type": "boolean"},
            "owner": {"type": ["string", "null"]},
        },
    }
    fn["parameters"] = params
    return {**tool, "function": fn}


NESTED_TOOLS: list[dict[str, Any]] = [_with_nested_options(t) for t in TOOLS]


def without_none(value: Any) -> Any:
    """``value`` without the None members of its objects (at every depth)."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


@dataclass(frozen=True)
class Scenario:
    id: str
    calls: list[tuple[str, dict[str, Any]]]
    content: str = ""
    reasoning: str = ""


SCENARIOS: list[Scenario] = [
    Scenario("one_call", [("get_weather", {"city": "Paris"})]),
    Scenario(
        "two_calls", [("get_weather", {"city": "Paris", "unit": "c"}), ("get_time", {"timezone": "Europe/Paris"})]
    ),
    Scenario(
        "nested_escapes",
        [
            (
                "write_file",
                {
                    "path": "C:\\tmp\\notes.txt",
                    "content": 'line one\nshe said "hi" and left\ttab',
                    "options": {"mode": "w", "tags": ["a", "b"], "retries": 3, "force": True, "owner": None},
                },
            )
        ],
    ),
    Scenario("cjk_emoji", [("send_message", {"to": "東京の友達", "text": "晴れ ☀️ のち 雨 🌧️ — ok"})]),
    Scenario("typed_values", [("add", {"a": 2, "b": 3.5, "exact": False})]),
    Scenario("no_arguments", [("get_location", {})]),
    Scenario("text_before", [("get_weather", {"city": "Paris"})], content="Let me check the weather for you."),
    Scenario(
        "reasoning",
        [("get_weather", {"city": "Paris"})],
        reasoning="The user wants the weather in Paris, so I call get_weather.",
    ),
]


@dataclass(frozen=True)
class Model:
    template: str
    model_id: str
    stop: tuple[str, ...]
    """End-of-turn tokens the server strips from the end of the generated text."""
    id_style: str = "openai"
    kwargs: dict[str, Any] = field(default_factory=dict)
    reasoning: bool = False
    """The template renders ``reasoning_content`` of the last assistant turn."""
    variant: str = ""
    args_as_string: bool = False
    """The template concatenates ``arguments`` as a JSON string (OpenAI's wire form) instead of a mapping."""
    content_with_calls: str = "text"
    """``reasoning``: the template renders an assistant's content beside calls in the reasoning channel."""
    skip: tuple[tuple[str, str], ...] = ()
    """(scenario, why): scenarios whose rendering is a template artifact, not what the model emits."""
    not_auto: str = ""
    """Why ``formats="auto"`` cannot read this model's output (the prompt carries format markup)."""
    tools_style: str = "openai"
    """``cohere``: the legacy ``parameter_definitions`` tool list Command R / R+ templates read; ``flat``: the
    function objects without the ``{"type": "function", "function": ...}`` wrapper (Apertus)."""
    nested_text: str = ""
    """Why the template writes nested values as untyped text and drops None (MiniMax-M3): its cases carry
    :data:`NESTED_TOOLS` (the nested keys declared, as a deployment of the model would, so the reader types
    the leaves by the schema) and expect the arguments without their None values, as the template writes them."""


# The models whose presets streamparse ships (streamparse/presets.py) and whose template llama.cpp keeps.
# Not here: the SmolLM3, Granite 3.3, LFM2-8B and R1-Distill-Llama templates in that folder never render an
# assistant's tool_calls.
IM_END = ("<|im_end|>",)
_MINICPM5 = "a plain <function name=...> element, which prose may hold: only the preset reads it"
_M3_NESTED = (
    "the template omits None arguments (its stated convention) and writes a nested object as XML elements whose "
    "leaves are bare text (3, true): only a schema for the nested keys gives them their JSON types back"
)
_HY3_PLAIN = "the tokenizer writes <tool_calls>/<tool_call> without a suffix, other families' openers: the preset"
MODELS: list[Model] = [
    Model("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "NousResearch/Hermes-2-Pro-Llama-3-8B", IM_END),
    Model("NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja", "NousResearch/Hermes-3-Llama-3.1-8B", IM_END),
    Model("Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen/Qwen2.5-7B-Instruct", IM_END),
    # This copy of the QwQ template closes <think> in the prompt unless enable_thinking is set.
    Model("Qwen-QwQ-32B.jinja", "Qwen/QwQ-32B", IM_END, kwargs={"enable_thinking": True}, reasoning=True),
    Model("Qwen-Qwen3-0.6B.jinja", "Qwen/Qwen3-0.6B", IM_END, reasoning=True),
    Model("Qwen-Qwen3-0.6B.jinja", "Qwen/Qwen3-0.6B", IM_END, kwargs={"enable_thinking": False}, variant="no_thinking"),
    Model("Qwen3-Coder.jinja", "Qwen/Qwen3-Coder-30B-A3B-Instruct", IM_END),
    Model("Qwen3.5-4B.jinja", "Qwen/Qwen3.5-4B", IM_END, reasoning=True),
    Model("Qwen3.5-4B.jinja", "Qwen/Qwen3.5-4B", IM_END, kwargs={"enable_thinking": False}, variant="no_thinking"),
    Model(
        "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        ("<｜end▁of▁sentence｜>",),
        reasoning=True,
    ),
    Model("llama-cpp-deepseek-r1.jinja", "deepseek-ai/DeepSeek-R1", ("<｜end▁of▁sentence｜>",), reasoning=True),
    Model("deepseek-ai-DeepSeek-V3.1.jinja", "deepseek-ai/DeepSeek-V3.1", ("<｜end▁of▁sentence｜>",)),
    Model(
        "deepseek-ai-DeepSeek-V3.1.jinja",
        "deepseek-ai/DeepSeek-V3.1-think",
        ("<｜end▁of▁sentence｜>",),
        kwargs={"thinking": True},
        reasoning=True,
        variant="thinking",
    ),
    Model("deepseek-ai-DeepSeek-V3.2.jinja", "deepseek-ai/DeepSeek-V3.2", ("<｜end▁of▁sentence｜>",)),
    Model("moonshotai-Kimi-K2.jinja", "moonshotai/Kimi-K2-Instruct", ("<|im_end|>",), id_style="kimi"),
    Model("Kimi-K2-Instruct.jinja", "moonshotai/Kimi-K2-Instruct-0905", ("<|im_end|>",), id_style="kimi"),
    Model("Kimi-K2-Thinking.jinja", "moonshotai/Kimi-K2-Thinking", ("<|im_end|>",), id_style="kimi", reasoning=True),
    Model("GLM-4.6.jinja", "zai-org/GLM-4.6", ("<|user|>", "<|observation|>"), reasoning=True),
    Model("GLM-4.7-Flash.jinja", "zai-org/GLM-4.7-Flash", ("<|user|>", "<|observation|>"), reasoning=True),
    Model(
        "openai-gpt-oss-120b.jinja",
        "openai/gpt-oss-120b",
        ("<|return|>",),
        reasoning=True,
        content_with_calls="reasoning",
    ),
    Model("google-gemma-4-31B-it.jinja", "google/gemma-4-31B-it", ("<turn|>",)),
    Model(
        "google-gemma-4-31B-it.jinja",
        "google/gemma-4-31B-it",
        ("<turn|>",),
        kwargs={"enable_thinking": True},
        reasoning=True,
        variant="thinking",
    ),
    Model("ibm-granite-granite-4.0.jinja", "ibm-granite/granite-4.0-h-small", ("<|end_of_text|>",)),
    # llama.cpp's tests name the 4.1 template "ibm-granite/granite-4.1" (tests/test-chat-template.cpp).
    Model("ibm-granite-granite-4.1.jinja", "ibm-granite/granite-4.1", ("<|end_of_text|>",)),
    # llama.cpp's gemma4.jinja (its fix of Gemma 4's template, kept until its Gemma 4 parser replaced it).
    Model("gemma4.jinja", "google/gemma-4-31B-it", ("<turn|>",), variant="llama_cpp_template"),
    Model("llama-cpp-microsoft-Phi-4-mini-instruct.jinja", "microsoft/Phi-4-mini-instruct", ("<|end|>",)),
    Model(
        "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
        "CohereForAI/c4ai-command-r7b-12-2024",
        ("<|END_OF_TURN_TOKEN|>",),
    ),
    Model(
        "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
        "CohereForAI/c4ai-command-r-plus",
        ("<|END_OF_TURN_TOKEN|>", "<|START_OF_TURN_TOKEN|>"),
        tools_style="cohere",
    ),
    Model("MiniMax-M2.jinja", "MiniMaxAI/MiniMax-M2", ("[e~[",), reasoning=True),
    Model("ByteDance-Seed-OSS.jinja", "ByteDance-Seed/Seed-OSS-36B-Instruct", ("<seed:eos>",), reasoning=True),
    Model("llama-cpp-lfm2.jinja", "LiquidAI/LFM2-1.2B-Tool", IM_END),
    Model(
        "LFM2.5-8B-A1B.jinja",
        "LiquidAI/LFM2.5-8B-A1B",
        IM_END,
        skip=(("nested_escapes", "the template writes Python string literals without escaping backslashes or quotes"),),
    ),
    Model(
        "mistralai-Mistral-Nemo-Instruct-2407.jinja",
        "mistralai/Mistral-Nemo-Instruct-2407",
        ("</s>",),
        id_style="mistral",
    ),
    Model(
        "Mistral-Small-3.2-24B-Instruct-2506.jinja",
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        ("</s>",),
        id_style="mistral",
    ),
    Model("unsloth-mistral-Devstral-Small-2507.jinja", "mistralai/Devstral-Small-2507", ("</s>",), id_style="mistral"),
    Model(
        "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
        "mistralai/Ministral-3-14B-Reasoning-2512",
        ("</s>",),
        id_style="mistral",
        reasoning=True,
    ),
    Model("meta-llama-Llama-3.1-8B-Instruct.jinja", "meta-llama/Llama-3.1-8B-Instruct", ("<|eom_id|>", "<|eot_id|>")),
    Model("meta-llama-Llama-3.2-3B-Instruct.jinja", "meta-llama/Llama-3.2-3B-Instruct", ("<|eom_id|>", "<|eot_id|>")),
    Model("meta-llama-Llama-3.3-70B-Instruct.jinja", "meta-llama/Llama-3.3-70B-Instruct", ("<|eom_id|>", "<|eot_id|>")),
    Model("fireworks-ai-llama-3-firefunction-v2.jinja", "fireworks-ai/llama-3-firefunction-v2", ("<|eot_id|>",)),
    Model("meetkai-functionary-medium-v3.1.jinja", "meetkai/functionary-medium-v3.1", ("<|eom_id|>", "<|eot_id|>")),
    Model(
        "meetkai-functionary-medium-v3.2.jinja",
        "meetkai/functionary-medium-v3.2",
        ("<|eot_id|>",),
        args_as_string=True,
        not_auto="the prompt ends with '>>>': only the preset knows the output starts with a recipient",
    ),
    Model("NVIDIA-Nemotron-Nano-v2.jinja", "nvidia/NVIDIA-Nemotron-Nano-9B-v2", ("<SPECIAL_12>",), reasoning=True),
    # Issue 17 (families): templates from ikawrakow/ik_llama.cpp's models/templates (a llama.cpp fork).
    Model("deepseek-ai-DeepSeek-V4.jinja", "deepseek-ai/DeepSeek-V4", ("<｜end▁of▁sentence｜>",)),
    Model(
        "deepseek-ai-DeepSeek-V4.jinja",
        "deepseek-ai/DeepSeek-V4",
        ("<｜end▁of▁sentence｜>",),
        kwargs={"thinking": True},
        reasoning=True,
        variant="thinking",
    ),
    Model(
        "deepseek-ai-DeepSeek-V4.1.jinja",
        "deepseek-ai/DeepSeek-V4.1",
        ("<｜end▁of▁sentence｜>", "</s>"),  # the template writes eos_token, which the renderer sets to </s>
        kwargs={"thinking": False},
    ),
    Model(
        "deepseek-ai-DeepSeek-V4.1.jinja",
        "deepseek-ai/DeepSeek-V4.1",
        ("<｜end▁of▁sentence｜>", "</s>"),  # the template writes eos_token, which the renderer sets to </s>
        kwargs={"thinking": True},
        reasoning=True,
        variant="thinking",
    ),
    Model(
        "Apriel-1.6-15b-Thinker-fixed.jinja",
        "ServiceNow-AI/Apriel-1.6-15b-Thinker",
        ("<|end|>",),
        reasoning=True,
        not_auto="the prompt ends with 'Here are my reasoning steps:': only the preset knows the output is reasoning",
        skip=(
            (
                "text_before",
                "without reasoning the template writes the answer with no [BEGIN FINAL RESPONSE]; the primed model "
                "always writes that marker before its answer",
            ),
        ),
    ),
    Model("unsloth-Apriel-1.5.jinja", "ServiceNow-AI/Apriel-1.5-15b-Thinker", ("<|end|>",), args_as_string=True),
    Model("stepfun-ai-Step-3.5-Flash.jinja", "stepfun-ai/Step-3.5-Flash", IM_END, reasoning=True),
    Model("MiMo-VL.jinja", "XiaomiMiMo/MiMo-VL-7B-RL", IM_END),
    Model("Bielik-11B-v3.0-Instruct.jinja", "speakleash/Bielik-11B-v3.0-Instruct", IM_END),
    Model("Reka-Edge.jinja", "RekaAI/Reka-Edge", ("<sep>",)),
    Model(
        "Cohere2MoE.jinja",
        "CohereLabs/North-Mini-Code",
        ("<|END_OF_TURN_TOKEN|>",),
        kwargs={"reasoning": True},
        reasoning=True,
    ),
    Model(
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        IM_END,
        reasoning=True,
    ),
    # Families written as declarations (streamparse/formats/declared_families.py).
    Model("Kimi-K3.jinja", "moonshotai/Kimi-K3", ("<|end_of_msg|>",), reasoning=True),
    Model(
        "Kimi-K3.jinja", "moonshotai/Kimi-K3", ("<|end_of_msg|>",), kwargs={"thinking": False}, variant="no_thinking"
    ),
    Model(
        "Apertus-8B-Instruct.jinja",
        "swiss-ai/Apertus-8B-Instruct-2509",
        ("<|assistant_end|>",),
        args_as_string=True,
        tools_style="flat",
    ),
    Model(
        "GigaChat3-10B-A1.8B.jinja",
        "ai-sage/GigaChat3-10B-A1.8B",
        ("</s>",),
        not_auto="a 'function call' role header opens the call: only the preset reads it",
        skip=(("two_calls", "the template renders only an assistant's first call"),),
    ),
    Model("GigaChat3.5.jinja", "ai-sage/GigaChat3.5-Lightning", ("</s>",)),
    Model(
        "GigaChat3.5.jinja",
        "ai-sage/GigaChat3.5-Lightning",
        ("</s>",),
        kwargs={"reasoning": True},
        reasoning=True,
        variant="reasoning",
    ),
    Model("tencent-Hy3-preview.jinja", "tencent/Hy3-preview", ("<｜hy_eos｜>",), not_auto=_HY3_PLAIN),
    Model(
        "tencent-Hy3-preview.jinja",
        "tencent/Hy3-preview",
        ("<｜hy_eos｜>",),
        kwargs={"reasoning_effort": "high", "interleaved_thinking": True},
        reasoning=True,
        variant="reasoning_high",
        not_auto=_HY3_PLAIN,
    ),
    Model(
        "GigaChat3.1-10B-A1.8B.jinja",
        "ai-sage/GigaChat3.1-10B-A1.8B",
        ("</s>",),
        not_auto="a 'function call' role header opens the call: only the preset reads it",
    ),
    Model("tencent-Hy3.jinja", "tencent/Hy3", ("<｜hy_eos:opensource｜>",)),
    Model(
        "tencent-Hy3.jinja",
        "tencent/Hy3",
        ("<｜hy_eos:opensource｜>",),
        kwargs={"reasoning_effort": "high"},
        reasoning=True,
        variant="reasoning_high",
    ),
    Model(
        "upstage-Solar-Open-100B.jinja",
        "upstage/Solar-Open-100B",
        ("<|calls|>",),  # <|end|> also closes the reasoning: the turn ends at <|calls|>
        reasoning=True,
    ),
    *(
        Model(
            "openbmb-MiniCPM5-1B.jinja",
            "openbmb/MiniCPM5-1B",
            IM_END,
            kwargs={"enable_thinking": True} if thinking else {},
            reasoning=thinking,
            variant="thinking" if thinking else "",
            not_auto=_MINICPM5,
        )
        for thinking in (False, True)
    ),
    *(
        Model(
            "MiniMax-M3.jinja",
            "MiniMaxAI/MiniMax-M3",
            ("[e~[",),
            kwargs={"thinking_mode": mode} if mode else {},
            reasoning=mode != "disabled",
            variant=f"thinking_{mode}" if mode else "",
            nested_text=_M3_NESTED,
        )
        for mode in ("", "enabled", "disabled")
    ),
    Model("muse-glimmer.jinja", "muse/muse-glimmer", ("<|eot|>",), reasoning=True),
    # vLLM's tool templates (examples/) for families whose model repositories we could not read.
    Model("vllm-tool_chat_template_hunyuan_a13b.jinja", "tencent/Hunyuan-A13B-Instruct", ("<|eos|>",)),
    Model("vllm-tool_chat_template_internlm2_tool.jinja", "internlm/internlm2_5-7b-chat", IM_END, args_as_string=True),
    Model("vllm-tool_chat_template_minimax_m1.jinja", "MiniMaxAI/MiniMax-M1-80k", ("<end_of_sentence>",)),
    Model("MiniMax-M1.jinja", "MiniMaxAI/MiniMax-M1-80k", ("<end_of_sentence>",), variant="llama_cpp_template"),
    # poolside's Laguna: the turn ends with </assistant> (llama.cpp's tests/test-chat-auto-parser.cpp).
    Model("poolside-Laguna-XS.2.jinja", "poolside/Laguna-XS.2", ("</assistant>",), reasoning=True),
    Model("poolside-Laguna-XS-2.1.jinja", "poolside/Laguna-XS-2.1", ("</assistant>",), reasoning=True),
    Model("poolside-Laguna-S-2.1.jinja", "poolside/Laguna-S-2.1", ("</assistant>",), reasoning=True),
    Model("vllm-tool_chat_template_xlam_qwen.jinja", "Salesforce/xLAM-2-32b-fc-r", IM_END),
]


def template_sources(folder: Path) -> dict[str, dict[str, str]]:
    """``SOURCES.tsv`` of the templates folder (file, repo, path, commit), by file name."""
    path = folder / "SOURCES.tsv"
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {row["file"]: {k: v for k, v in row.items() if k != "file"} for row in csv.DictReader(f, delimiter="\t")}


def call_id(style: str, name: str, index: int) -> str:
    if style == "kimi":
        return f"functions.{name}:{index}"
    if style == "mistral":
        return f"abcDEF{index:03d}"
    return f"call_{index}"


# Fixed dates so that the fixtures do not change with the day they are rendered on.
FIXED_DAY = datetime.datetime(2024, 7, 26, 12, 0, 0)
FIXED_GLOBALS: dict[str, Any] = {
    "strftime_now": lambda fmt: FIXED_DAY.strftime(fmt),  # "%d %b %Y": "26 Jul 2024" (Llama 3.x)
    "datetime": "2024-07-26",  # firefunction-v2 prints it
}


def renderer(source: str) -> Renderer:
    """The library's renderer (streamparse.derive.render): transformers' sandbox, bounded."""
    return Renderer(source, globals=FIXED_GLOBALS)


def messages_for(scenario: Scenario, model: Model) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    # No system message: several templates move it into the last user turn, which the assistant turn changes.
    prompt = [{"role": "user", "content": "Please help me with this task."}]
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": scenario.content,
        "tool_calls": [
            {
                "id": call_id(model.id_style, name, i),
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": json.dumps(args, ensure_ascii=False) if model.args_as_string else args,
                },
            }
            for i, (name, args) in enumerate(scenario.calls)
        ],
    }
    if scenario.reasoning:
        turn["reasoning_content"] = scenario.reasoning
        turn["reasoning"] = scenario.reasoning
        turn["thinking"] = scenario.reasoning
    return prompt, turn


def tools_for(model: Model) -> list[dict[str, Any]]:
    if model.nested_text:
        return NESTED_TOOLS
    if model.tools_style == "flat":
        return [tool["function"] for tool in TOOLS]
    if model.tools_style != "cohere":
        return TOOLS
    out = []
    for tool in TOOLS:
        fn = tool["function"]
        props = fn["parameters"]["properties"]
        required = set(fn["parameters"].get("required", []))
        defs = {
            k: {"type": v.get("type", "string"), "description": k, "required": k in required} for k, v in props.items()
        }
        out.append({"name": fn["name"], "description": fn["description"], "parameter_definitions": defs})
    return out


def generated(template: Renderer, model: Model, scenario: Scenario) -> tuple[str, bool] | None:
    """The model's part of the turn, and whether the prompt leaves the model inside an open ``<think>``."""
    prompt, turn = messages_for(scenario, model)
    tools = tools_for(model)
    # ``functions``: firefunction-v2 reads the tool list as a JSON string under that name.
    common = {
        "tools": tools,
        "functions": json.dumps(tools, ensure_ascii=False),
        "bos_token": "<s>",
        "eos_token": "</s>",
        **model.kwargs,
    }
    head = template.render(messages=prompt, add_generation_prompt=True, **common)
    full = template.render(messages=[*prompt, turn], add_generation_prompt=False, **common)
    start = 0
    while start < min(len(head), len(full)) and head[start] == full[start]:
        start += 1
    tag = head.rfind("<", 0, start)
    if tag > head.rfind(">", 0, start):  # never split a tag between prompt and output
        start = tag
    if head[:start].endswith("<think>"):  # an open reasoning tag is the prompt's, whatever the turn repeats
        start -= len("<think>")
    head_rest, out = head[start:], full[start:]
    out = primed_continuation(head_rest, out, scenario)
    if out is None:
        return None
    # Generation ends at the first end-of-turn token; whatever a template renders after it is not output.
    cut = min((at for at in (out.find(stop) for stop in model.stop) if at != -1), default=len(out))
    trimmed = out[:cut].rstrip()
    return trimmed, head.rstrip().endswith(OPEN_REASONING + PRIMERS)


OPEN_REASONING = ("<think>", "<|open|>think<|sep|>")  # Kimi K3's think channel
# Prompts that open the reasoning in plain text or another family's token; the rendered turn goes on from
# there as the model would (Apriel 1.6 writes the reasoning, then `[BEGIN FINAL RESPONSE]`).
PRIMERS = ("Here are my reasoning steps:", "<|START_THINKING|>", "<mm:think>")


def primed_continuation(head_rest: str, turn: str, scenario: Scenario) -> str | None:
    """What the model writes after a generation prompt that the rendered turn does not start with.

    ``head_rest`` is what the prompt adds after the part it shares with the rendered turn. Empty: the turn
    is the output. A closed empty reasoning block (``<think></think>``, Gemma's empty thought channel) whose
    tail the turn repeats: the output is the turn after that tail. An open ``<think>`` (primed reasoning,
    R10) the turn omits because the template drops past reasoning: the model closes it itself, so the
    output is the reasoning (if any), ``</think>``, then the turn.
    """
    if not head_rest:
        return turn
    if head_rest.strip() in PRIMERS and not turn.startswith(head_rest.strip()):
        return turn
    if head_rest.strip() in OPEN_REASONING:
        opener = head_rest.strip()
        if turn.startswith(opener):  # the template wrote the block itself: the model continues inside it
            turn = turn[len(opener) :]
            if scenario.reasoning in turn:
                return turn
            turn = turn.lstrip()
        if turn.startswith("</think>"):
            return scenario.reasoning + turn
        reasoning = scenario.reasoning + "\n" if scenario.reasoning else "\n"
        return reasoning + "</think>\n\n" + turn
    for k in range(len(head_rest), 0, -1):
        tail = head_rest[-k:]
        if tail.endswith(">") and tail.startswith("<") and turn.startswith(tail):
            return turn[k:]
    if "<think>" in head_rest and "</think>" in head_rest or "<channel|>" in head_rest:
        return turn  # thinking switched off in the prompt: the turn follows the closed empty block
    return None


def unrendered(text: str, scenario: Scenario) -> str:
    """What of the turn the output lacks (templates drop content beside calls, or all but one call)."""
    if scenario.reasoning and scenario.reasoning not in text:
        return "the reasoning"
    if scenario.content and scenario.content not in text:
        return "the content"
    for name in {n for n, _ in scenario.calls}:
        if text.count(name) < sum(1 for n, _ in scenario.calls if n == name):
            return f"every {name} call"
    return ""


def preset_name(model: Model) -> str:
    """The streamparse preset family the model id selects (recorded so a rename shows in review)."""
    try:
        from streamparse.presets import preset_for
    except ImportError:  # pragma: no cover - the script also runs outside the repo's venv
        return ""
    return preset_for(model.model_id).family


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="REGEX",
        help="render only the models whose id matches (repeatable); the other cases of --out are kept",
    )
    args = ap.parse_args(argv)
    cases: list[dict[str, Any]] = []
    only = [re.compile(p) for p in args.only]
    earlier = json.loads(args.out.read_text(encoding="utf-8"))["cases"] if args.out.exists() else []
    origins = template_sources(args.templates)
    for model in MODELS:
        if only and not any(p.search(model.model_id) for p in only):
            continue
        path = args.templates / model.template
        if not path.exists():
            # A folder without this template keeps the cases rendered from it before (never a silent loss).
            kept = [c for c in earlier if (c["model"], c["variant"]) == (model.model_id, model.variant)]
            print(f"missing template {model.template}: kept {len(kept)} earlier cases", file=sys.stderr)
            cases.extend(kept)
            continue
        template = renderer(path.read_text(encoding="utf-8"))
        before = len(cases)
        for scenario in SCENARIOS:
            if scenario.reasoning and not model.reasoning:
                continue
            why = dict(model.skip).get(scenario.id)
            if why:
                print(f"skip {model.template} {scenario.id}: {why}", file=sys.stderr)
                continue
            try:
                got = generated(template, model, scenario)
            except Exception as exc:  # a template that rejects the turn: reported, not fatal
                print(f"skip {model.template} {scenario.id}: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            if got is None:
                print(f"skip {model.template} {scenario.id}: the prompt is not a prefix of the turn", file=sys.stderr)
                continue
            text, primed = got
            missing = unrendered(text, scenario)
            if missing:
                print(f"skip {model.template} {scenario.id}: the template does not render {missing}", file=sys.stderr)
                continue
            model_key = model.model_id + (f" [{model.variant}]" if model.variant else "")
            nested = bool(model.nested_text) and any(isinstance(v, dict) for _, a in scenario.calls for v in a.values())
            cases.append(
                {
                    "id": f"{model_key}::{scenario.id}",
                    "model": model.model_id,
                    "variant": model.variant,
                    "chat_template_kwargs": model.kwargs,
                    "preset": preset_name(model),
                    "scenario": scenario.id,
                    "primed_reasoning": primed,
                    **(
                        {"template": {"file": model.template, **origins[model.template]}}
                        if model.template in origins
                        else {}
                    ),
                    **({"not_auto": model.not_auto} if model.not_auto else {}),
                    **({"tools": NESTED_TOOLS, "note": model.nested_text} if nested else {}),
                    "generated": text,
                    "expected": {
                        "calls": [
                            {"name": n, "arguments": without_none(a) if nested else a} for n, a in scenario.calls
                        ],
                        "text": "" if model.content_with_calls == "reasoning" else scenario.content,
                        "reasoning": scenario.reasoning
                        or (scenario.content if model.content_with_calls == "reasoning" else ""),
                    },
                }
            )
        if len(cases) == before:  # another version of the template that renders nothing: keep the earlier cases
            kept = [c for c in earlier if (c["model"], c["variant"]) == (model.model_id, model.variant)]
            print(f"{model.template} rendered no case: kept {len(kept)} earlier cases", file=sys.stderr)
            cases.extend(kept)
    if only:
        # Keep every case of the models not rendered now, in place; the rendered ones replace theirs.
        cases = [c for c in earlier if not any(p.search(c["model"]) for p in only)] + cases
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "source": "models' chat templates (llama.cpp models/templates), rendered by scripts/render_templates.py",
        "tools": TOOLS,
        "cases": cases,
    }
    args.out.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases from {len({c['model'] + c['variant'] for c in cases})} model variants -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
