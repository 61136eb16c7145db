"""Model presets: which formats a model emits and whether its output starts inside reasoning.

``preset_for(model_id)`` maps a model identifier, written the way users actually write it (Hugging Face
``org/name`` with quantisation suffixes, Ollama ``name:tag``, LM Studio display names and ``@quant``
selectors, OpenRouter ``vendor/name:free``), to a :class:`Preset`. ``StreamParser.for_model`` uses it.

How an id is matched:

1. :func:`normalize` lowercases it, cuts ``@...`` (OpenRouter presets, LM Studio quant selectors), keeps
   the last path segment, turns ``:``, ``_`` and whitespace into ``-``, and pops quantisation, packaging
   and routing tokens (``gguf``, ``awq``, ``q4_k_m``, ``4bit``, ``free``, ``latest``...) off the end.
2. :data:`RULES` is searched in order; the first rule whose pattern (and ``requires`` pattern, if any)
   is found wins. Specific rules come first: fine-tunes named after their base (``Hermes-3-Llama-3.1``,
   ``DeepSeek-R1-Distill-Qwen``, ``functionary-small-v3.1``) before the base, ``qwen3-coder`` before
   ``qwen3``, ``v3.1`` before ``v3``, ``r1-0528`` before ``r1``.
3. If the last segment matches nothing, the whole path is tried, so an organisation that implies the
   family (``mistralai/Pixtral-12B``) still finds it. Otherwise the preset is ``formats="auto"``.

Every pattern is a plain regex without nested quantifiers (literals, ``-?``, alternations, fixed-width
look-arounds), so matching costs O(rules x id length) with no backtracking blow-up.

Primed reasoning (the reasoning rule of docs/FORMATS.md): ``start_in_reasoning`` is True where the chat
template ends the prompt with ``<think>`` so the output carries only ``</think>``: Qwen3 ``*-Thinking-2507``
(and the other Qwen3 Thinking releases), Qwen3.5+, QwQ-32B, DeepSeek-R1 / R1-0528 and the R1 distills,
MiniMax-M2, GLM-4.7, GLM-5.3-Flash, Olmo-3-Think, Step-3.5, MiMo-V2, Kimi-K2.5, Holo2, TeleChat, XingChen 4, iQuest,
IQuest Q1, openPangu, PLaMo 3, Granite 4.2, BerryLM, Step-3, HY v4, Ling 3, DeepSeek-TNG-R1T2 (and Apriel 1.6, whose
prompt ends with "Here are my reasoning steps:"): each engine's reasoning parser for them starts in reasoning
(docs/FORMATS.md, the reasoning-parser table).
Starting in reasoning is harmless when the model writes ``<think>`` itself anyway.
DeepSeek-V3.1 / V3.2 / V4 / V4.1 are hybrid: the thinking template primes, the default chat template does not.
The id decides: ``deepseek-reasoner``, ``-think``/``-thinking``/``:thinking``/``-reasoning`` variants and the
thinking-only V3.2-Speciale start in reasoning; a plain ``DeepSeek-V3.1`` or ``deepseek-chat`` does not (the
orphan-``</think>`` rule still turns leading reasoning into reasoning if a server primes it).
Kimi-K2-Thinking, Seed-OSS, Magistral, GLM-4.5/4.6 and hybrid Qwen3 write their opening tag themselves.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

IdStyle = Literal["openai", "alnum9"]

__all__ = [
    "IdStyle",
    "Preset",
    "Rule",
    "RULES",
    "normalize",
    "preset_for",
    "known_families",
    "start_in_reasoning_for",
]

logger = logging.getLogger("streamparse")


@dataclass(frozen=True, slots=True)
class Preset:
    """What ``StreamParser.for_model`` configures for one model id."""

    family: str
    """Model family, e.g. ``"qwen3-coder"``; ``"unknown"`` when no rule matched."""
    formats: tuple[str, ...] | Literal["auto"]
    """Canonical format names (docs/FORMATS.md), most likely first, or ``"auto"``."""
    start_in_reasoning: bool
    """The prompt ends inside a primed ``<think>``: only ``</think>`` will appear (reasoning rule)."""
    matched: bool
    note: str = ""
    """Why the preset is what it is, where that is not obvious (variants, priming decisions)."""
    id_style: IdStyle = "openai"
    """The call-id shape the family's chat template accepts back in the next turn: ``"openai"`` (any
    string) or ``"alnum9"`` (exactly 9 letters/digits: Mistral's templates reject anything else)."""
    escaped_newlines: bool = False
    """The tokenizer decodes a newline as ``\\`` + ``n`` (MiniCPM-V): ``StreamParser(escaped_newlines=True)``."""
    control_tokens: tuple[str, ...] = ()
    """Markup of this family's tokenizer that is never content or reasoning (MiniCPM-V's reserved markers):
    ``StreamParser(control_tokens=...)``."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the preset table: data, not code."""

    pattern: str
    """Regex searched in the normalised id (no nested quantifiers)."""
    family: str
    formats: tuple[str, ...] | Literal["auto"]
    """``"auto"`` where the family's call format is not in the catalog (or not known): the preset then
    only says where the output starts (its reasoning rule)."""
    start_in_reasoning: bool = False
    requires: str | None = None
    """A second regex that must also be found (e.g. ``think``), kept separate to avoid ``.*``."""
    note: str = ""
    escaped_newlines: bool = False
    control_tokens: tuple[str, ...] = ()

    @property
    def preset(self) -> Preset:
        # Every family that writes the mistral format uses a Mistral tokenizer and template.
        id_style: IdStyle = "alnum9" if self.formats != "auto" and "mistral" in self.formats else "openai"
        return Preset(
            self.family,
            self.formats,
            self.start_in_reasoning,
            True,
            self.note,
            id_style,
            self.escaped_newlines,
            self.control_tokens,
        )


# "think"/"thinking" as a word start (not "nothink", "rethink"), or "reason" (deepseek-reasoner, -reasoning).
_THINKING = r"(?<![a-z])think|reason"

# DeepSeek version prefix: "deepseek-v3.1", "deepseekv3.1", OpenRouter's "deepseek-chat-v3.1".
_DS = r"deepseek-?(?:chat-)?"

_HERMES = ("hermes",)
_QWEN3_CODER = ("qwen3_coder", "hermes")
_DEEPSEEK_ANY = ("deepseek_v3", "deepseek_v31", "deepseek_dsml")
_LLAMA31 = ("llama3_json", "function_tag")
_PYTHONIC_LLAMA = ("pythonic", "llama3_json")
_V11 = "Mistral v11+ tokenizer: [TOOL_CALLS]NAME[ARGS]{...}"
_PRE_V11 = "pre-v11 Mistral tokenizer: [TOOL_CALLS] [{...}]"
# MiniCPM-V's reserved markers 12..15, as text and as their special tokens: vLLM's minicpmv parser passes them
# through in content and reasoning alike (never text). <reserved_11>, <|reserved_16|> stay text there too.
_MINICPM_V_RESERVED = tuple(f"<{bar}reserved_{i}{bar}>" for bar in ("", "|") for i in range(12, 16))

# One rule per line reads as a table; the formatter would explode it.
# fmt: off
RULES: tuple[Rule, ...] = (
    # -- fine-tunes named after their base model: before the base ----------------------------------------
    Rule(r"functionary", "functionary-v3.1", ("function_tag",), requires=r"v3\.1"),
    Rule(r"functionary", "functionary-v3.2", ("functionary_v3",), requires=r"v3\.2",
         note="the prompt ends with '>>>'; the output is expected to start with it"),
    Rule(r"xlam", "xlam", ("xlam",)),
    Rule(r"firefunction", "firefunction-v2", ("phi4_mini",),
         note="Llama 3 fine-tune that writes ' functools[{...}]' (phi4_mini's opener), before the Llama rules"),
    Rule(r"nemotron-?nano-?(?:9b|12b)?-?v2|nemotron-?nano-?(?:9b|12b)", "nemotron-nano-v2", ("nemotron",), True,
         note="the template ends with <think>; calls in <TOOLCALL>[...]</TOOLCALL>"),
    Rule(r"nemotron-?3", "nemotron-3-nano", _QWEN3_CODER, True,
         note="Qwen3-Coder XML calls; the template ends with <think>"),
    Rule(r"nemotron", "llama-nemotron", ("nemotron", "llama3_json"), note="Llama-Nemotron: <TOOLCALL>[...]"),
    Rule(r"smollm-?3", "smollm3", _HERMES, note="hybrid reasoning: the model writes <think> itself"),
    Rule(r"toolace", "toolace", ("pythonic",)),
    Rule(r"hermes-?2-?pro", "hermes-2-pro", _HERMES),
    Rule(r"hermes-?3", "hermes-3", _HERMES),
    Rule(r"hermes-?4", "hermes-4", _HERMES, note="reasoning is switched on by system prompt, not primed"),
    Rule(r"hermes", "hermes", _HERMES),
    Rule(r"tng-?r1t2|r1t2-?chimera", "deepseek-tng-r1t2", _HERMES, True,
         note="DeepSeek-R1-0528 merge: reasons like R1; Qwen-2.5-style <tool_call> JSON (SGLang's tng_r1t2)"),
    Rule(r"deepseek-?r1-?0528-?qwen", "deepseek-r1-0528-distill", ("deepseek_v3", "hermes"),
         note="the R1-0528 Qwen3 distill's template ends bare at <｜Assistant｜>; the model opens <think>"),
    Rule(r"deepseek-?r1-?distill", "deepseek-r1-distill", ("deepseek_v3", "hermes"), True,
         note="the distill template ends with <｜Assistant｜><think>"),
    # -- Qwen ----------------------------------------------------------------------------------------------
    Rule(r"qwen-?3-?coder", "qwen3-coder", _QWEN3_CODER),
    Rule(r"qwen-?3\.[5-9]", "qwen3.5", _QWEN3_CODER, True,
         note="Qwen3.5+ templates put <think> in the prompt unless enable_thinking=False"),
    Rule(r"qwen-?3", "qwen3-thinking", _HERMES, True, requires=_THINKING,
         note="Qwen3 Thinking releases (2507, Next, VL) prime <think>"),
    Rule(r"qwen-?3", "qwen3", _HERMES, note="hybrid thinking: the model writes <think> itself"),
    Rule(r"qwq", "qwq-preview", _HERMES, requires=r"preview"),
    Rule(r"qwq", "qwq", _HERMES, True, note="QwQ-32B's template ends with <think>"),
    Rule(r"qwen-?2\.5-?coder", "qwen2.5-coder", ("qwen25_coder", "hermes", "json"),
         note="often writes the call in <tools>, or as bare or fenced JSON, instead of <tool_call>"),
    Rule(r"qwen-?2\.5", "qwen2.5", _HERMES),
    Rule(r"qwen", "qwen", _HERMES),
    # -- DeepSeek: most specific version first; thinking variants before plain ones -----------------------
    Rule(_DS + r"v4\.1", "deepseek-v4.1", ("deepseek_dsml",), True, requires=_THINKING,
         note="thinking mode primes <think>; spaced DSML tags (<｜DSML｜ calls>)"),
    Rule(_DS + r"v4\.1", "deepseek-v4.1", ("deepseek_dsml",),
         note="default chat mode; thinking mode would prime <think>; spaced DSML tags (<｜DSML｜ calls>)"),
    Rule(_DS + r"v4-?flash", "deepseek-v4-flash", ("deepseek_dsml",), True, requires=_THINKING,
         note="thinking mode primes <think>; <｜DSML｜tool_calls>"),
    Rule(_DS + r"v4-?flash", "deepseek-v4-flash", ("deepseek_dsml",),
         note="default chat mode; thinking mode would prime <think>; <｜DSML｜tool_calls>"),
    Rule(_DS + r"v4", "deepseek-v4", ("deepseek_dsml",), True, requires=_THINKING,
         note="thinking mode primes <think>; <｜DSML｜tool_calls>"),
    Rule(_DS + r"v4", "deepseek-v4", ("deepseek_dsml",),
         note="default chat mode; thinking mode would prime <think>; <｜DSML｜tool_calls>"),
    Rule(_DS + r"v3\.2-?speciale", "deepseek-v3.2-speciale", ("deepseek_dsml", "deepseek_v31"), True,
         note="thinking-only model"),
    Rule(_DS + r"v3\.2-?exp", "deepseek-v3.2-exp", ("deepseek_v31", "deepseek_dsml"), True,
         requires=_THINKING, note="thinking mode primes <think>"),
    Rule(_DS + r"v3\.2-?exp", "deepseek-v3.2-exp", ("deepseek_v31", "deepseek_dsml"),
         note="default chat mode; thinking mode would prime <think>"),
    Rule(_DS + r"v3\.2", "deepseek-v3.2", ("deepseek_dsml", "deepseek_v31"), True, requires=_THINKING,
         note="thinking mode primes <think>"),
    Rule(_DS + r"v3\.2", "deepseek-v3.2", ("deepseek_dsml", "deepseek_v31"),
         note="default chat mode; thinking mode would prime <think>"),
    Rule(_DS + r"v3\.1", "deepseek-v3.1", ("deepseek_v31",), True, requires=_THINKING,
         note="thinking mode primes <think>"),
    Rule(_DS + r"v3\.1", "deepseek-v3.1", ("deepseek_v31",),
         note="default chat mode; thinking mode would prime <think>"),
    Rule(_DS + r"v3", "deepseek-v3", ("deepseek_v3",)),
    Rule(r"deepseek-?r1-?0528", "deepseek-r1-0528", ("deepseek_v3",), True),
    Rule(r"deepseek-?r1", "deepseek-r1", ("deepseek_v3",), True,
         note="the R1 template ends with <｜Assistant｜><think>"),
    Rule(r"deepseek-reasoner", "deepseek-reasoner", ("deepseek_dsml", "deepseek_v31", "deepseek_v3"), True,
         note="API alias of DeepSeek's current model in thinking mode"),
    Rule(r"deepseek-chat", "deepseek-chat", _DEEPSEEK_ANY,
         note="alias: V3 on OpenRouter, the current model's non-thinking mode on DeepSeek's API"),
    # -- Moonshot, Zhipu, OpenAI -----------------------------------------------------------------------------
    Rule(r"kimi-?k2\.5", "kimi-k2.5", ("kimi_k2",), True,
         note="thinking on by default: the prompt opens <think>; the tool section also ends the reasoning"),
    Rule(r"kimi-?k2", "kimi-k2-thinking", ("kimi_k2",), requires=_THINKING,
         note="the model writes <think> itself; the template does not prime it"),
    Rule(r"kimi-?k2", "kimi-k2", ("kimi_k2",)),
    Rule(r"glm-?5\.3-?flash", "glm-5.3-flash", ("glm53_flash",), True,
         note="SGLang's glm53_flash: glm45's <arg_key>/<arg_value> calls and '<tool_call>NAME>{json}'; "
         "the template always opens <think>"),
    Rule(r"glm-?4\.7", "glm-4.7", ("glm45",), True, note="GLM-4.7's template ends with <think>"),
    Rule(r"glm-?4\.6", "glm-4.6", ("glm45",)),
    Rule(r"glm-?4\.5", "glm-4.5", ("glm45",)),
    Rule(r"gpt-?oss", "gpt-oss", ("harmony",)),
    Rule(r"muse-?glimmer", "muse-glimmer", ("muse",),
         note="the prompt ends with <|start|>assistant: the output starts with ' to=RECIPIENT<|message|>'"),
    # -- Google -------------------------------------------------------------------------------------------
    Rule(r"functiongemma", "functiongemma", ("gemma4",),
         note="Gemma 4 grammar inside <start_function_call>/<end_function_call>"),
    Rule(r"gemma-?4", "gemma-4", ("gemma4",)),
    Rule(r"gemma-?3", "gemma-3", ("gemma_tool_code", "json"), note="prompted: no native tool tokens"),
    Rule(r"gemma", "gemma", ("gemma_tool_code", "json"), note="prompted: no native tool tokens"),
    # -- IBM, Microsoft, Shanghai AI Lab, Cohere ----------------------------------------------------------
    Rule(r"granite-?20b-?function", "granite-20b-fc", ("granite_20b_fc",),
         note="'<function_call> ' and a JSON call object, no closer"),
    Rule(r"granite-?4\.[2-9]", "granite-4.2", _QWEN3_CODER, True,
         note="Nemotron V3's format: <think> opened by the prompt unless enable_thinking=false, XML calls"),
    Rule(r"granite-?4", "granite-4", _HERMES),
    Rule(r"granite-?3\.[2-9]", "granite-3.2", ("granite", "granite_thinking"),
         note="thinking=true: the model writes 'Here is my thought process:' ... 'Here is my response:'"),
    Rule(r"granite-?3\.1", "granite-3.1", ("granite",), note="list after a plain <tool_call>"),
    Rule(r"granite-?3(?:\.0)?(?![.\d])", "granite-3.0", ("granite",), note="list after <|tool_call|>"),
    Rule(r"granite", "granite", ("granite", "hermes")),
    Rule(r"phi-?4-?mini", "phi-4-mini", ("phi4_mini",)),
    Rule(r"internlm-?2", "internlm2", ("internlm",)),
    Rule(r"internlm-?3", "internlm3", ("internlm",)),
    Rule(r"north", "cohere-north", ("command_r",), requires=r"cohere",
         note="Command A family: <|START_THINKING|> reasoning, <|START_ACTION|> calls"),
    Rule(r"command-?r7b", "command-r7b", ("command_r",)),
    Rule(r"command-?a(?![a-z])", "command-a", ("command_r",)),
    Rule(r"command-?r-?(?:plus|\+)", "command-r-plus", ("command_r",)),
    Rule(r"command-?r(?![a-z0-9])", "command-r", ("command_r",)),
    # -- MiniMax, ByteDance, AI21, AllenAI, Liquid, Baidu ------------------------------------------------
    # -- families written as declarations (formats/declared_families.py) -------------------------------
    Rule(r"kimi-?k3", "kimi-k3", ("kimi_k3",),
         note="the prompt opens the think channel (thinking on) or the response one (thinking=false); told "
              "neither (no prompt=, no thinking kwarg), the output starts as text and an orphan "
              "<|close|>think<|sep|> moves it to reasoning, so content is never emitted as reasoning"),
    Rule(r"gigachat-?3\.5", "gigachat-3.5-reasoning", ("gigachat35",), True, requires=_THINKING,
         note="the Reasoning release's template always opens <think> (vLLM's GigaChat35ReasoningWithThinking)"),
    Rule(r"gigachat-?3\.5", "gigachat-3.5", ("gigachat35",), note="GCML calls; <think> opened by reasoning=true"),
    Rule(r"gigachat-?3", "gigachat-3", ("gigachat3",), note="3 and 3.1: a 'function call' role message"),
    Rule(r"apertus", "apertus", ("apertus",)),
    Rule(r"(?<![a-z])hy-?3|hunyuan-?3", "hy3", ("hy3", "hy3_plain"),
         note="tokens with or without the ':opensource' suffix; reasoning effort decides whether the prompt thinks"),
    Rule(r"(?<![a-z])hy-?4|hunyuan-?4", "hy4", ("hy4", "hy4_plain"), True,
         note="HY v4: Hy3's tokens without <tool_sep>; the prompt opens <think> unless reasoning_effort=no_think"),
    Rule(r"solar-?open-?2", "solar-open2", ("solar_open2",)),
    Rule(r"solar-?open", "solar-open", ("solar_open",)),
    Rule(r"longcat", "longcat-flash", ("longcat",)),
    Rule(r"minicpm-?4", "minicpm4", ("minicpm5",),
         note="MiniCPM5's <function name=...><param name=...> calls (SGLang's minicpm4_xml detector)"),
    Rule(r"minicpm-?5", "minicpm5", ("minicpm5",)),
    Rule(r"minicpm-?v", "minicpm-v", _QWEN3_CODER, escaped_newlines=True, control_tokens=_MINICPM_V_RESERVED,
         note="Qwen3's grammar; the model writes <think> (enable_thinking); newlines decoded as \\n recovered; "
              "<reserved_12>..<|reserved_15|> removed"),
    Rule(r"step-?3(?![.0-9p])", "step-3", ("step3",), True,
         note="steptml invokes; the output starts inside reasoning (vLLM's and SGLang's step3 parsers)"),
    Rule(r"k2-?v3", "k2-v3", ("k2_v3",),
         note="K2 Horizon's calls, values optionally typed by <ifm|arg_type> (SGLang's k2_v3 detector)"),
    Rule(r"k2-?horizon", "k2-horizon", ("k2_horizon",),
         note="IFM calls (xml or json dialect); reasons in <ifm|think>, _fast or _faster by reasoning effort"),
    Rule(r"(?<![a-z])dots[.-]", "dots", ("dots", "hermes"), note="XML invokes in <dots_function_call>"),
    Rule(r"inkling", "inkling", ("inkling",),
         note="typed message blocks: <|content_thinking|>, <|content_text|>, <|content_invoke_tool_json|>"),
    Rule(r"minimax-?m1", "minimax-m1", ("minimax_m1",)),
    Rule(r"minimax-?m3", "minimax-m3", ("minimax_m3",),
         note="]<]minimax[>[ namespaced XML calls; reasons in <mm:think>, primed when thinking_mode is enabled"),
    Rule(r"minimax-?m2", "minimax-m2", ("minimax",), True, note="the template opens <think> in the prompt"),
    Rule(r"seed-?oss", "seed-oss", ("seed_oss",), note="reasons in <seed:think>, written by the model"),
    Rule(r"jamba", "jamba", ("jamba",)),
    Rule(r"olmo-?3", "olmo-3-think", ("pythonic",), True, requires=_THINKING,
         note="Olmo-3-Think's template ends with <think>"),
    Rule(r"olmo-?3", "olmo-3", ("pythonic",)),
    Rule(r"lfm-?2", "lfm2", ("pythonic",)),
    Rule(r"ernie-?4\.5", "ernie-4.5-thinking", ("hermes", "ernie45"), True, requires=_THINKING,
         note="the output starts inside reasoning; the answer follows </think> in <response>...</response>"),
    Rule(r"ernie-?4\.5", "ernie-4.5", ("hermes", "ernie45"), note="hermes calls"),
    # -- StepFun, Tencent, ServiceNow, Xiaomi, poolside, SpeakLeash, Reka ----------------------------------
    Rule(r"step-?3\.5", "step-3.5", _QWEN3_CODER, True, note="Qwen3-Coder XML calls; the template ends with <think>"),
    Rule(r"hunyuan-?a13b", "hunyuan-a13b", ("hunyuan",),
         note="<think>, then <answer> around the reply and <tool_calls>[...]"),
    Rule(r"apriel", "apriel-1.5", ("apriel",), requires=r"1\.5",
         note="the model writes 'Here are my reasoning steps:' ... [BEGIN FINAL RESPONSE]"),
    Rule(r"apriel", "apriel", ("apriel",), True,
         note="Apriel 1.6+ templates end the prompt with 'Here are my reasoning steps:'"),
    Rule(r"mimo-?v2", "mimo-v2", _QWEN3_CODER, True,
         note="Qwen3-style XML calls; thinking is on by default (the prompt opens <think>)"),
    Rule(r"mimo", "mimo", _HERMES, note="MiMo-7B: the model writes <think> itself"),
    Rule(r"laguna|poolside", "laguna", ("glm45",),
         note="GLM-4 style <arg_key>/<arg_value> calls; thinking mode would prime <think>"),
    Rule(r"bielik", "bielik", _HERMES, note="<tool_call> JSON"),
    Rule(r"(?<![a-z])ling-?3", "ling-3", ("glm45",), True,
         note="GLM-4.7's grammar; thinking on by default (the prompt opens <think>); <tool_call> ends it"),
    Rule(r"spark-?x?3", "spark-3", ("glm45",), note="GLM-4.5 <arg_key>/<arg_value> calls (SGLang's spark3)"),
    Rule(r"spark-?x?2\.?5", "spark-2.5", ("glm45",), note="GLM-4.5 <arg_key>/<arg_value> calls (SGLang's spark25)"),
    Rule(r"trinity", "trinity", _HERMES,
         note="Qwen-style <tool_call> JSON; SGLang also reads calls inside <think>: calls_in_reasoning='promote'"),
    Rule(r"reka", "reka", _HERMES, note="reasons in <reasoning> written by the model"),
    # -- reasoning-parser registries (vLLM vllm/reasoning/, SGLang DetectorMap): <think> families ---------
    Rule(r"telechat-?4", "telechat", ("telechat4", "hermes"), True,
         note="the template opens <think> unless enable_thinking=false; <tool_call> JSON or NAME<param_key> calls"),
    Rule(r"telechat", "telechat", "auto", True,
         note="the template opens <think> unless enable_thinking=false (then it closes it in the prompt)"),
    Rule(r"xingchen|(?<![a-z])xing-?4", "xingchen-4", ("telechat4", "hermes"), True,
         note="the template opens <think> unless enable_thinking=false (then it closes it in the prompt)"),
    Rule(r"exaone-?4", "exaone-4", "auto",
         note="enable_thinking=true (off by default) opens <think> in the prompt"),
    Rule(r"hyperclovax-seed-think-14b", "hyperclovax-seed-think", ("hyperclovax_seed_think_14b", "json"),
         note="JSON list after an 'assistant -> tool/function_call' header; a bare list under required/named"),
    Rule(r"hyperclova", "hyperclovax-seed-think", ("hyperclovax_seed_think", "json"),
         note="thinking=true (off by default) opens <think> in the prompt; <tool_call> key/value calls with "
         "JSON values, a bare JSON list under required/named tool_choice"),
    Rule(r"intern-?s1", "intern-s1", ("internlm",),
         note="the model writes <think>; <|action_start|><|plugin|> calls"),
    Rule(r"iquest-?q1", "iquest-q1", ("iquest_q1",), True,
         note="<iquest_tool_call> with GLM-4.7's key/value body; thinking on by default (SGLang's iquest_q1)"),
    Rule(r"iquest-?coder-?v2", "iquest", ("iquest_coder_v2",), True,
         note="<iquestcoder_tool_call>, GLM-4.7's key/value body (vLLM's iquest_coder_v2); <think> primed"),
    Rule(r"iquest", "iquest", "auto", True,
         note="Qwen3.5-style template: <think> in the prompt unless enable_thinking=false"),
    Rule(r"kolibri", "kolibri", _HERMES, note="hermes calls; the model writes <think>"),
    Rule(r"pangu", "openpangu", "auto", True,
         note="<think> (or [unused16]) opened by the prompt unless think=false"),
    Rule(r"(?<![a-z])cwm(?![a-z])", "cwm", ("cwm",),
         note="Meta Code World Model: <tool: LABEL> NAME ARGS </tool> (vLLM's cwm parser)"),
    Rule(r"rwkv", "rwkv", ("rwkv", "json", "hermes"),
         note="enable_thinking=true (off by default) opens <think> in the prompt; calls in a ```json fence, labelled "
         "**Tool Call:** or bare"),
    Rule(r"plamo-?3", "plamo-3", ("plamo3",), True,
         note="the prompt opens <|plamo:begin_think:plamo|> unless enable_thinking=false"),
    Rule(r"berry-?lm", "berrylm", _QWEN3_CODER, True,
         note="<think> opened by the prompt unless enable_thinking=false; Qwen3-Coder XML calls end it"),
    Rule(r"holo-?2", "holo-2", _HERMES, True,
         note="Qwen3-VL fine-tune; thinking on by default: the prompt opens <think>"),
    # -- Mistral: sub-brands first, since several contain "mistral" ------------------------------------
    Rule(r"magistral", "magistral", ("mistral",), note=_V11 + "; reasons in [THINK]...[/THINK]"),
    Rule(r"devstral", "devstral", ("mistral",), note=_V11),
    Rule(r"ministral", "ministral", ("mistral",)),
    Rule(r"codestral", "codestral", ("mistral",)),
    Rule(r"mixtral", "mixtral", ("mistral",), note=_PRE_V11),
    Rule(r"mistral-?nemo", "mistral-nemo", ("mistral",), note=_PRE_V11),
    Rule(r"mistral-?small-?3\.1|mistral-small-2503", "mistral-small-3.1", ("mistral",), note=_V11),
    Rule(r"mistral-?small-?3\.2|mistral-small-2506", "mistral-small-3.2", ("mistral",), note=_V11),
    Rule(r"mistral-?small", "mistral-small", ("mistral",), note=_PRE_V11),
    Rule(r"mistral-?large", "mistral-large", ("mistral",)),
    Rule(r"mistral-?medium", "mistral-medium", ("mistral",)),
    Rule(r"mistral", "mistral", ("mistral",), note=_PRE_V11),
    # -- Meta: after every fine-tune that names a Llama base ---------------------------------------------
    Rule(r"llama-?4", "llama-4", _PYTHONIC_LLAMA),
    Rule(r"llama-?3\.3", "llama-3.3", _LLAMA31),
    Rule(r"llama-?3\.2-(?:vision|11b|90b)", "llama-3.2-vision", _LLAMA31,
         note="the vision models use the Llama 3.1 text tool format"),
    Rule(r"llama-?3\.2", "llama-3.2", _PYTHONIC_LLAMA, note="1B/3B: pythonic system prompt"),
    Rule(r"llama-?3\.1", "llama-3.1", _LLAMA31),
    Rule(r"llama-?3(?:\.0)?(?![.\d])", "llama-3", ("llama3_json", "json"), note="Llama 3.0 has no tool template"),
)
# fmt: on

_COMPILED: tuple[tuple[re.Pattern[str], re.Pattern[str] | None, Preset], ...] = tuple(
    (re.compile(r.pattern), re.compile(r.requires) if r.requires else None, r.preset) for r in RULES
)

UNKNOWN = Preset(family="unknown", formats="auto", start_in_reasoning=False, matched=False)

# Tokens popped off the end of an id: quantisation, packaging, and provider routing suffixes.
_SUFFIX = re.compile(
    r"gguf|ggml|awq|gptq|exl[23]|mlx|dwq|qat|ud|i1|imat|imatrix|hf|"
    r"fp\d+|bf\d+|f\d+|int\d+|mxfp\d+|nvfp\d+|w\d+a\d+|\d+bit|\d+(?:\.\d+)?bpw|i?q\d[a-z0-9_]*|"
    r"free|nitro|floor|online|beta|extended|exacto|latest|cloud"
)
_SEPARATORS = re.compile(r"[\s:_-]+")


def _normalize_path(text: str) -> str:
    text = text.strip().lower().split("@", 1)[0]
    if text.endswith(".gguf"):
        text = text[: -len(".gguf")]
    tokens = [t for t in re.split(r"[\s:-]+", text) if t]
    while tokens and _SUFFIX.fullmatch(tokens[-1]):
        tokens.pop()
    return _SEPARATORS.sub("-", "-".join(tokens))


def normalize(model_id: str) -> str:
    """The canonical spelling rules match against: ``"bartowski/Qwen3-8B-GGUF:Q4_K_M"`` -> ``"qwen3-8b"``."""
    return _normalize_path(model_id.split("@", 1)[0].rstrip("/").rsplit("/", 1)[-1])


def _match(name: str) -> Preset | None:
    for pattern, requires, preset in _COMPILED:
        if pattern.search(name) and (requires is None or requires.search(name)):
            return preset
    return None


def preset_for(model_id: str) -> Preset:
    """The preset for ``model_id``; ``UNKNOWN`` (``formats="auto"``) when no rule matches."""
    preset = _match(normalize(model_id))
    if preset is None:
        whole = model_id.split("@", 1)[0].replace("/", "-")
        preset = _match(_normalize_path(whole))
    if preset is None:
        logger.debug("no model preset matches %r; using formats='auto'", model_id)
        return UNKNOWN
    return preset


def known_families() -> list[str]:
    """Every family a rule can produce, in table order, without duplicates."""
    return list(dict.fromkeys(rule.family for rule in RULES))


# Families whose template opens <think> in the prompt when the request switches thinking on
# (``chat_template_kwargs``: ``enable_thinking`` for Qwen/GLM/MiniMax style templates, ``thinking`` for
# DeepSeek V3.1+ and Granite). For the rest the model writes its own opener, or has none.
THINKING_PRIMES = frozenset(
    {
        "qwen3.5", "qwen3-thinking", "qwq", "deepseek-v3.1", "deepseek-v3.2", "deepseek-v3.2-exp",
        "deepseek-v3.2-speciale", "deepseek-reasoner", "deepseek-r1", "deepseek-r1-0528", "deepseek-r1-distill",
        "glm-4.7", "minimax-m2", "olmo-3-think", "nemotron-nano-v2", "nemotron-3-nano",
        "deepseek-v4", "deepseek-v4-flash", "deepseek-v4.1", "step-3.5", "mimo-v2", "laguna",
        "minimax-m3", "cohere-north", "minicpm5", "kimi-k3", "longcat-flash",
        "gigachat-3.5", "gigachat-3.5-reasoning", "kimi-k2.5", "telechat", "xingchen-4", "exaone-4",
        "hyperclovax-seed-think", "iquest", "iquest-q1", "openpangu", "rwkv", "plamo-3", "holo-2", "granite-4.2",
        "berrylm", "step-3", "ling-3",
    }
)  # fmt: skip
# `reasoning`: Cohere's and GigaChat 3.5's templates; `think`: openPangu's.
_THINKING_KEYS = ("enable_thinking", "thinking", "reasoning", "think")
# Families whose template thinks by ``reasoning_effort`` (vLLM's hy_v3 / hy_v4 parsers): ``"no_think"`` means
# no reasoning, any other effort opens <think> in the prompt. Unset, hy3 does not think and hy4 does ("high").
_EFFORT_PRIMES = frozenset({"hy3", "hy4"})


def start_in_reasoning_for(model_id: str, chat_template_kwargs: dict[str, Any] | None = None) -> bool:
    """Whether the output of ``model_id`` starts inside reasoning, given the request's
    ``chat_template_kwargs``: ``enable_thinking`` / ``thinking`` (MiniMax-M3: ``thinking_mode``) false
    means the template closed (or never opened) the reasoning, true means it opened it for the families in
    :data:`THINKING_PRIMES`; Hy3 and HY v4 think unless ``reasoning_effort`` is ``"no_think"`` (HY v4 by
    default, Hy3 only when an effort is given); without them the preset decides. The proxy and the vLLM
    adapter call this with the request they serve."""
    preset = preset_for(model_id)
    kwargs = dict(chat_template_kwargs or {})
    mode = kwargs.get("thinking_mode")  # MiniMax-M3: "enabled" / "disabled"
    if mode in ("enabled", "disabled"):
        kwargs.setdefault("enable_thinking", mode == "enabled")
    effort = kwargs.get("reasoning_effort")
    if isinstance(effort, str) and effort and preset.family in _EFFORT_PRIMES:
        return effort != "no_think"
    for key in _THINKING_KEYS:
        value = kwargs.get(key)
        if isinstance(value, bool):
            return value and (preset.family in THINKING_PRIMES or preset.start_in_reasoning)
    return preset.start_in_reasoning
