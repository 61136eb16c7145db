"""Model presets: real-world model ids in every naming style map to the right formats and reasoning state."""

from __future__ import annotations

import logging
import re

import pytest

from streamparse.presets import RULES, UNKNOWN, Preset, known_families, normalize, preset_for

# The canonical format names of docs/FORMATS.md.
CANONICAL_FORMATS = frozenset(
    [
        "hermes",
        "qwen3_coder",
        "seed_oss",
        "xml_invoke",
        "minimax",
        "minimax_m1",
        "deepseek_v3",
        "deepseek_v31",
        "deepseek_dsml",
        "kimi_k2",
        "glm45",
        "llama3_json",
        "pythonic",
        "mistral",
        "gemma_tool_code",
        "gemma4",
        "tool_request",
        "harmony",
        "granite",
        "phi4_mini",
        "internlm",
        "command_r",
        "function_tag",
        "functionary_v3",
        "xlam",
        "jamba",
        "tool_call_marker",
        "envelope",
        "function_calls_json",
        "token_json",
        "tag_json",
        "generic_xml",
        "key_value",
        "json",
        "nemotron",
        # written as declarations (formats/declared_families.py)
        "kimi_k3",
        "gigachat3",
        "gigachat35",
        "apertus",
        "hy3",
        "hy3_plain",
        "hy4",
        "hy4_plain",
        "solar_open",
        "solar_open2",
        "longcat",
        "minicpm5",
        "step3",
        "minimax_m3",
        # written as declarations (formats/declared_recent.py)
        "k2_horizon",
        "k2_v3",
        "dots",
        "granite_20b_fc",
        "ernie45",
        "inkling",
        "iquest_q1",
        "iquest_coder_v2",
        "telechat4",
        "glm53_flash",
        "plamo3",
        "muse",
        "apriel",
        "granite_thinking",
        "hunyuan",
        # written as declarations (formats/declared_latest.py)
        "hyperclovax_seed_think",
        "hyperclovax_seed_think_14b",
        "qwen25_coder",
        "rwkv",
        "cwm",
        "granite_pythonic",
    ]
)

HERMES = ("hermes",)
QWEN3_CODER = ("qwen3_coder", "hermes")
LLAMA31 = ("llama3_json", "function_tag")
PYTHONIC_LLAMA = ("pythonic", "llama3_json")

# (model id as users write it, family, formats, start_in_reasoning)
CASES: list[tuple[str, str, tuple[str, ...] | str, bool]] = [
    # Qwen
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder", QWEN3_CODER, False),
    ("unsloth/Qwen3-Coder-480B-A35B-Instruct-GGUF", "qwen3-coder", QWEN3_CODER, False),
    ("qwen/qwen3-coder:free", "qwen3-coder", QWEN3_CODER, False),
    ("qwen3-coder:30b", "qwen3-coder", QWEN3_CODER, False),
    ("mlx-community/Qwen3-Coder-30B-A3B-Instruct-4bit", "qwen3-coder", QWEN3_CODER, False),
    ("Qwen3 Coder 30B A3B Instruct", "qwen3-coder", QWEN3_CODER, False),
    ("Qwen/Qwen3-8B", "qwen3", HERMES, False),
    ("qwen3:8b", "qwen3", HERMES, False),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "qwen3", HERMES, False),
    ("Qwen/Qwen3-30B-A3B-Thinking-2507", "qwen3-thinking", HERMES, True),
    ("qwen3:30b-a3b-thinking-2507-q4_K_M", "qwen3-thinking", HERMES, True),
    ("qwen/qwen3-next-80b-a3b-thinking", "qwen3-thinking", HERMES, True),
    ("Qwen/Qwen3.5-397B-A17B", "qwen3.5", QWEN3_CODER, True),
    ("Qwen/QwQ-32B", "qwq", HERMES, True),
    ("qwq:32b", "qwq", HERMES, True),
    ("Qwen/QwQ-32B-Preview", "qwq-preview", HERMES, False),
    ("bartowski/Qwen2.5-7B-Instruct-GGUF", "qwen2.5", HERMES, False),
    ("qwen2.5-coder:32b", "qwen2.5-coder", ("qwen25_coder", "hermes", "json"), False),
    ("TheBloke/Qwen2.5-14B-Instruct-AWQ", "qwen2.5", HERMES, False),
    # Llama
    ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1", LLAMA31, False),
    ("meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1", LLAMA31, False),
    ("llama3.1:70b-instruct-q4_K_M", "llama-3.1", LLAMA31, False),
    ("meta-llama/llama-3.1-405b-instruct:free", "llama-3.1", LLAMA31, False),
    ("meta-llama/Llama-3.2-1B-Instruct", "llama-3.2", PYTHONIC_LLAMA, False),
    ("llama3.2:3b", "llama-3.2", PYTHONIC_LLAMA, False),
    ("meta-llama/Llama-3.2-11B-Vision-Instruct", "llama-3.2-vision", LLAMA31, False),
    ("llama3.2-vision:90b", "llama-3.2-vision", LLAMA31, False),
    ("Llama 3.3 70B Instruct", "llama-3.3", LLAMA31, False),
    ("unsloth/Llama-3.3-70B-Instruct-UD-Q4_K_XL.gguf", "llama-3.3", LLAMA31, False),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4", PYTHONIC_LLAMA, False),
    ("llama4:maverick", "llama-4", PYTHONIC_LLAMA, False),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "llama-3", ("llama3_json", "json"), False),
    # Mistral
    ("mistralai/Mistral-7B-Instruct-v0.3", "mistral", ("mistral",), False),
    ("mistral:7b", "mistral", ("mistral",), False),
    ("mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral", ("mistral",), False),
    ("mistral-nemo:12b", "mistral-nemo", ("mistral",), False),
    ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-small-3.1", ("mistral",), False),
    ("mistral-small3.2:24b", "mistral-small-3.2", ("mistral",), False),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small", ("mistral",), False),
    ("mistralai/Magistral-Small-2509", "magistral", ("mistral",), False),
    ("devstral:24b", "devstral", ("mistral",), False),
    ("mistralai/devstral-small-2507", "devstral", ("mistral",), False),
    ("mistralai/Ministral-8B-Instruct-2410", "ministral", ("mistral",), False),
    # DeepSeek
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3", ("deepseek_v3",), False),
    ("deepseek/deepseek-chat-v3-0324:free", "deepseek-v3", ("deepseek_v3",), False),
    ("deepseek-ai/DeepSeek-V3.1", "deepseek-v3.1", ("deepseek_v31",), False),
    ("deepseek/deepseek-chat-v3.1", "deepseek-v3.1", ("deepseek_v31",), False),
    ("deepseek/deepseek-chat-v3.1:thinking", "deepseek-v3.1", ("deepseek_v31",), True),
    ("deepseek-v3.1-think", "deepseek-v3.1", ("deepseek_v31",), True),
    ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek-v3.1", ("deepseek_v31",), False),
    ("deepseek-ai/DeepSeek-V3.2", "deepseek-v3.2", ("deepseek_dsml", "deepseek_v31"), False),
    ("deepseek-v3.2-thinking", "deepseek-v3.2", ("deepseek_dsml", "deepseek_v31"), True),
    ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v3.2-exp", ("deepseek_v31", "deepseek_dsml"), False),
    ("deepseek-ai/DeepSeek-V3.2-Speciale", "deepseek-v3.2-speciale", ("deepseek_dsml", "deepseek_v31"), True),
    ("deepseek-ai/DeepSeek-R1", "deepseek-r1", ("deepseek_v3",), True),
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1-0528", ("deepseek_v3",), True),
    ("deepseek/deepseek-r1-0528:free", "deepseek-r1-0528", ("deepseek_v3",), True),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1-distill", ("deepseek_v3", "hermes"), True),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill", ("deepseek_v3", "hermes"), True),
    ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "deepseek-r1-0528-distill", ("deepseek_v3", "hermes"), False),
    ("deepseek-reasoner", "deepseek-reasoner", ("deepseek_dsml", "deepseek_v31", "deepseek_v3"), True),
    ("deepseek-chat", "deepseek-chat", ("deepseek_v3", "deepseek_v31", "deepseek_dsml"), False),
    # Kimi, GLM, gpt-oss
    ("moonshotai/Kimi-K2-Instruct-0905", "kimi-k2", ("kimi_k2",), False),
    ("moonshotai/kimi-k2", "kimi-k2", ("kimi_k2",), False),
    ("moonshotai/Kimi-K2-Thinking", "kimi-k2-thinking", ("kimi_k2",), False),
    # families written as declarations
    ("moonshotai/Kimi-K3", "kimi-k3", ("kimi_k3",), False),  # thinking=true or prompt= primes it
    ("ai-sage/GigaChat3-10B-A1.8B", "gigachat-3", ("gigachat3",), False),
    ("ai-sage/GigaChat3.1-702B-A36B", "gigachat-3", ("gigachat3",), False),
    ("ai-sage/GigaChat3.5-432B-A28B", "gigachat-3.5", ("gigachat35",), False),
    ("swiss-ai/Apertus-8B-Instruct-2509", "apertus", ("apertus",), False),
    ("tencent/Hy3-preview", "hy3", ("hy3", "hy3_plain"), False),
    ("tencent/Hy4-preview", "hy4", ("hy4", "hy4_plain"), True),
    ("upstage/Solar-Open-100B", "solar-open", ("solar_open",), False),
    ("upstage/Solar-Open2-250B", "solar-open2", ("solar_open2",), False),
    ("meituan-longcat/LongCat-Flash-Chat", "longcat-flash", ("longcat",), False),
    ("openbmb/MiniCPM5-8B", "minicpm5", ("minicpm5",), False),
    ("stepfun-ai/step3", "step-3", ("step3",), True),
    ("MBZUAI-IFM/K2-Horizon", "k2-horizon", ("k2_horizon",), False),
    ("MBZUAI-IFM/K2-V3", "k2-v3", ("k2_v3",), False),
    ("rednote-hilab/dots.llm1.inst", "dots", ("dots", "hermes"), False),
    ("ibm-granite/granite-20b-functioncalling", "granite-20b-fc", ("granite_20b_fc",), False),
    ("inclusionAI/Ling-3-flash", "ling-3", ("glm45",), True),
    ("iflytek/Spark-X2.5", "spark-2.5", ("glm45",), False),
    # SGLang detectors outside its newest registry: spark3, minicpm4_xml, tng_r1t2, glm53_flash, step3v
    ("iflytek/Spark-3", "spark-3", ("glm45",), False),
    ("openbmb/MiniCPM4.1-8B", "minicpm4", ("minicpm5",), False),
    ("tngtech/DeepSeek-TNG-R1T2-Chimera", "deepseek-tng-r1t2", HERMES, True),
    ("zai-org/GLM-5.3-Flash", "glm-5.3-flash", ("glm53_flash",), True),
    ("stepfun-ai/Step3-VL-10B", "step-3", ("step3",), True),
    ("IQuestLab/IQuest-Q1-Instruct", "iquest-q1", ("iquest_q1",), True),
    ("arcee-ai/Trinity-Mini", "trinity", ("hermes",), False),
    ("inkling-ai/Inkling-1", "inkling", ("inkling",), False),
    ("zai-org/GLM-4.5-Air-FP8", "glm-4.5", ("glm45",), False),
    ("z-ai/glm-4.6", "glm-4.6", ("glm45",), False),
    ("zai-org/GLM-4.7", "glm-4.7", ("glm45",), True),
    ("openai/gpt-oss-120b", "gpt-oss", ("harmony",), False),
    ("gpt-oss:20b", "gpt-oss", ("harmony",), False),
    ("lmstudio-community/gpt-oss-20b-MLX-8bit", "gpt-oss", ("harmony",), False),
    # Gemma, Granite, Phi, InternLM
    ("google/gemma-3-27b-it", "gemma-3", ("gemma_tool_code", "json"), False),
    ("gemma3:12b-it-qat", "gemma-3", ("gemma_tool_code", "json"), False),
    ("google/gemma-3-4b-it", "gemma-3", ("gemma_tool_code", "json"), False),
    ("google/gemma-4-31b-it", "gemma-4", ("gemma4",), False),
    ("google/functiongemma-270m-it", "functiongemma", ("gemma4",), False),
    ("ibm-granite/granite-3.0-8b-instruct", "granite-3.0", ("granite",), False),
    ("granite3.2:8b", "granite-3.2", ("granite", "granite_thinking"), False),
    ("ibm-granite/granite-3.3-8b-instruct", "granite-3.2", ("granite", "granite_thinking"), False),
    ("ibm-granite/granite-3.1-8b-instruct", "granite-3.1", ("granite",), False),
    ("ibm-granite/granite-4.0-h-small", "granite-4", HERMES, False),
    ("granite4:tiny-h", "granite-4", HERMES, False),
    ("microsoft/Phi-4-mini-instruct", "phi-4-mini", ("phi4_mini",), False),
    ("phi4-mini:3.8b", "phi-4-mini", ("phi4_mini",), False),
    ("internlm/internlm2_5-7b-chat", "internlm2", ("internlm",), False),
    ("internlm2:20b", "internlm2", ("internlm",), False),
    # Cohere
    ("CohereForAI/c4ai-command-r-v01", "command-r", ("command_r",), False),
    ("command-r:35b", "command-r", ("command_r",), False),
    ("CohereForAI/c4ai-command-r-plus-08-2024", "command-r-plus", ("command_r",), False),
    ("cohere/command-r7b-12-2024", "command-r7b", ("command_r",), False),
    ("CohereLabs/command-a-reasoning-08-2025", "command-a", ("command_r",), False),
    # Fine-tunes named after a base model
    ("NousResearch/Hermes-2-Pro-Llama-3-8B", "hermes-2-pro", HERMES, False),
    ("NousResearch/Hermes-3-Llama-3.1-70B", "hermes-3", HERMES, False),
    ("hermes3:8b", "hermes-3", HERMES, False),
    ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam", ("xlam",), False),
    ("Salesforce/xLAM-2-32b-fc-r", "xlam", ("xlam",), False),
    ("meetkai/functionary-small-v3.1", "functionary-v3.1", ("function_tag",), False),
    ("meetkai/functionary-medium-v3.2", "functionary-v3.2", ("functionary_v3",), False),
    ("Team-ACE/ToolACE-2-Llama-3.1-8B", "toolace", ("pythonic",), False),
    # MiniMax, Seed, Jamba, Olmo, LFM2, ERNIE
    ("MiniMaxAI/MiniMax-M1-80k", "minimax-m1", ("minimax_m1",), False),
    ("MiniMaxAI/MiniMax-M2", "minimax-m2", ("minimax",), True),
    ("minimax/minimax-m2.1", "minimax-m2", ("minimax",), True),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed-oss", ("seed_oss",), False),
    ("ai21labs/AI21-Jamba-1.5-Mini", "jamba", ("jamba",), False),
    ("allenai/Olmo-3-7B-Instruct", "olmo-3", ("pythonic",), False),
    ("allenai/Olmo-3-32B-Think", "olmo-3-think", ("pythonic",), True),
    ("LiquidAI/LFM2-1.2B", "lfm2", ("pythonic",), False),
    # NVIDIA, Fireworks, Hugging Face (issue 10)
    ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron-nano-v2", ("nemotron",), True),
    ("nvidia/NVIDIA-Nemotron-Nano-12B-v2-GGUF", "nemotron-nano-v2", ("nemotron",), True),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron-3-nano", QWEN3_CODER, True),
    ("nvidia/Llama-3_3-Nemotron-Super-49B-v1_5", "llama-nemotron", ("nemotron", "llama3_json"), False),
    ("fireworks-ai/llama-3-firefunction-v2", "firefunction-v2", ("phi4_mini",), False),
    ("HuggingFaceTB/SmolLM3-3B", "smollm3", HERMES, False),
    ("baidu/ERNIE-4.5-21B-A3B-PT", "ernie-4.5", ("hermes", "ernie45"), False),
    ("baidu/ERNIE-4.5-21B-A3B-Thinking", "ernie-4.5-thinking", ("hermes", "ernie45"), True),
    # Whole-path fallback: the organisation names the family
    ("mistralai/Pixtral-12B-2409", "mistral", ("mistral",), False),
    # Families formats="auto" parsed before they had a preset (issue 17)
    ("deepseek-ai/DeepSeek-V4", "deepseek-v4", ("deepseek_dsml",), False),
    ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-v4-flash", ("deepseek_dsml",), False),
    ("deepseek-v4-flash-thinking", "deepseek-v4-flash", ("deepseek_dsml",), True),
    ("deepseek-ai/DeepSeek-V4.1", "deepseek-v4.1", ("deepseek_dsml",), False),
    ("deepseek/deepseek-v4.1:thinking", "deepseek-v4.1", ("deepseek_dsml",), True),
    ("stepfun-ai/Step-3.5-Flash", "step-3.5", ("qwen3_coder", "hermes"), True),
    ("tencent/Hunyuan-A13B-Instruct", "hunyuan-a13b", ("hunyuan",), False),
    ("ServiceNow-AI/Apriel-1.6-15b-Thinker", "apriel", ("apriel",), True),
    ("ServiceNow-AI/Apriel-1.5-15b-Thinker", "apriel-1.5", ("apriel",), False),
    ("XiaomiMiMo/MiMo-V2-Flash", "mimo-v2", ("qwen3_coder", "hermes"), True),
    ("XiaomiMiMo/MiMo-7B-RL", "mimo", HERMES, False),
    ("poolside/Laguna-XS.2", "laguna", ("glm45",), False),
    ("speakleash/Bielik-11B-v2.6-Instruct", "bielik", HERMES, False),
    ("RekaAI/reka-flash-3.1", "reka", HERMES, False),
    ("cohere-north", "cohere-north", ("command_r",), False),
    ("MiniMaxAI/MiniMax-M3", "minimax-m3", ("minimax_m3",), False),
    ("MuseGlimmer", "muse-glimmer", ("muse",), False),
    # Reasoning-parser registries (vLLM vllm/reasoning/, SGLang DetectorMap): tests/test_reasoning_registry.py
    ("GigaChat3.5-Reasoning", "gigachat-3.5-reasoning", ("gigachat35",), True),
    ("moonshotai/Kimi-K2.5", "kimi-k2.5", ("kimi_k2",), True),
    ("TeleChat4-29B", "telechat", ("telechat4", "hermes"), True),
    ("Tele-AI/TeleChat3-36B-Thinking", "telechat", "auto", True),
    ("XingChen4-29B-A4B", "xingchen-4", ("telechat4", "hermes"), True),
    ("LGAI-EXAONE/EXAONE-4.0-32B", "exaone-4", "auto", False),
    (
        "naver-hyperclovax/HyperCLOVAX-SEED-Think-14B",
        "hyperclovax-seed-think",
        ("hyperclovax_seed_think_14b", "json"),
        False,
    ),
    (
        "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B",
        "hyperclovax-seed-think",
        ("hyperclovax_seed_think", "json"),
        False,
    ),
    ("internlm/Intern-S1-mini", "intern-s1", ("internlm",), False),
    ("IQuestLab/IQuest-Coder-V1-40B-Instruct", "iquest", "auto", True),
    ("IQuestLab/IQuest-Coder-V2-40B-Instruct", "iquest", ("iquest_coder_v2",), True),
    ("Aleph-Alpha/Kolibri-1", "kolibri", HERMES, False),
    ("FreedomIntelligence/openPangu-Embedded-7B-V1.1", "openpangu", "auto", True),
    ("BlinkDL/rwkv7-g1", "rwkv", ("rwkv", "json", "hermes"), False),
    ("facebook/cwm", "cwm", ("cwm",), False),
    ("pfnet/plamo-3-nict-31b-base", "plamo-3", ("plamo3",), True),
    ("Hcompany/Holo2-8B", "holo-2", HERMES, True),
    ("ibm-granite/granite-4.2-8b", "granite-4.2", QWEN3_CODER, True),
    ("rwb-ai/BerryLM-OS", "berrylm", QWEN3_CODER, True),
    ("openbmb/MiniCPM-V-4_5", "minicpm-v", QWEN3_CODER, False),
]


@pytest.mark.parametrize(("model_id", "family", "formats", "reasoning"), CASES, ids=[c[0] for c in CASES])
def test_real_world_ids_map_to_family_formats_and_reasoning(
    model_id: str, family: str, formats: tuple[str, ...] | str, reasoning: bool
) -> None:
    preset = preset_for(model_id)
    assert (preset.family, preset.formats, preset.start_in_reasoning, preset.matched) == (
        family,
        formats,
        reasoning,
        True,
    )


def test_the_table_covers_at_least_sixty_ids_across_every_rule_family() -> None:
    assert len(CASES) >= 60
    untested = set(known_families()) - {family for _, family, _, _ in CASES}
    # Generic catch-alls are exercised by the ordering tests below instead.
    assert untested <= {
        "qwen",
        "gemma",
        "granite",
        "hermes",
        "hermes-4",
        "internlm3",
        "codestral",
        "mistral-large",
        "mistral-medium",
    }


@pytest.mark.parametrize(
    "model_id",
    [
        "gpt-4o",
        "claude-3-5-sonnet",
        "x-ai/grok-4",
        "",
        "   ",
        "@preset/mine",
        "unsloth/SomeRandomModel-7B-GGUF",
        "glm-4-9b-chat",
        "phi-4",
    ],
)
def test_unknown_ids_fall_back_to_auto_and_log_at_debug(model_id: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="streamparse"):
        preset = preset_for(model_id)
    assert preset == UNKNOWN
    assert preset == Preset(family="unknown", formats="auto", start_in_reasoning=False, matched=False)
    records = [r for r in caplog.records if r.name == "streamparse"]
    assert len(records) == 1
    assert records[0].levelno == logging.DEBUG
    assert repr(model_id) in records[0].getMessage()


def test_known_ids_do_not_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="streamparse"):
        preset_for("Qwen/Qwen3-8B")
    assert not [r for r in caplog.records if r.name == "streamparse"]


def test_every_format_a_preset_names_is_canonical() -> None:
    listed = [rule.formats for rule in RULES if rule.formats != "auto"]  # "auto": the call format is unknown
    named = {fmt for formats in listed for fmt in formats}
    assert named <= CANONICAL_FORMATS, named - CANONICAL_FORMATS
    assert all(formats and len(set(formats)) == len(formats) for formats in listed)


def test_every_rule_pattern_is_free_of_nested_quantifiers() -> None:
    # A quantified group whose body is itself quantified is what makes a regex backtrack super-linearly.
    nested = re.compile(r"\([^()]*[*+?}][^()]*\)[*+{]|\([^()]*[*+]\)\?")
    for rule in RULES:
        for pattern in (rule.pattern, rule.requires or ""):
            assert ".*" not in pattern and ".+" not in pattern, pattern
            assert not nested.search(pattern), pattern


def test_matching_a_long_adversarial_id_still_finds_the_preset() -> None:
    model_id = "org/" + "qwen-" * 20_000 + "3-coder"
    assert preset_for(model_id).family == "qwen3-coder"
    assert preset_for("deepseek-" * 20_000).matched is False


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("bartowski/Qwen3-8B-GGUF:Q4_K_M", "qwen3-8b"),
        ("mlx-community/Qwen3-Coder-30B-A3B-Instruct-MLX-4bit", "qwen3-coder-30b-a3b-instruct"),
        ("TheBloke/Mistral-7B-Instruct-v0.2-AWQ", "mistral-7b-instruct-v0.2"),
        ("Qwen/Qwen3-30B-A3B-GPTQ-Int4", "qwen3-30b-a3b"),
        ("lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf", "qwen3-8b"),
        ("qwen/qwen3-8b@q4_k_m", "qwen3-8b"),
        ("deepseek/deepseek-r1-0528:free", "deepseek-r1-0528"),
        ("moonshotai/kimi-k2@preset/my-team", "kimi-k2"),
        ("Qwen3 Coder 30B", "qwen3-coder-30b"),
        ("internlm/internlm2_5-7b-chat", "internlm2-5-7b-chat"),
        ("llama3.1:latest", "llama3.1"),
        ("Qwen/Qwen3-30B-A3B-Thinking-2507-FP8", "qwen3-30b-a3b-thinking-2507"),
    ],
)
def test_normalize_strips_org_quantisation_and_routing_suffixes(model_id: str, expected: str) -> None:
    assert normalize(model_id) == expected


@pytest.mark.parametrize(
    ("model_id", "family"),
    [
        # Qwen3-Coder before Qwen3, Qwen3.5 before Qwen3, Qwen2.5-Coder before Qwen2.5
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder"),
        ("Qwen/Qwen3-32B", "qwen3"),
        ("qwen3.5:9b", "qwen3.5"),
        ("Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder"),
        ("Qwen/Qwen2-7B-Instruct", "qwen"),
        # "nothink" is not a thinking variant
        ("qwen3-8b-nothink", "qwen3"),
        # V3.1 / V3.2 before V3
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("deepseek-ai/DeepSeek-V3.1-Base", "deepseek-v3.1"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v3.2-exp"),
        # R1-0528 before R1, the distills before both and before Qwen / Llama
        ("deepseek-r1:671b", "deepseek-r1"),
        ("DeepSeek-R1-0528", "deepseek-r1-0528"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek-r1-distill"),
        # Gemma 4 vs Gemma 3 (a "-4b" size is not Gemma 4), FunctionGemma before Gemma
        ("google/gemma-3-4b-it", "gemma-3"),
        ("gemma4:e4b", "gemma-4"),
        ("gemma2:9b", "gemma"),
        ("google/functiongemma-270m-it", "functiongemma"),
        # Llama 3.2 1B/3B pythonic vs 3.1 json; 3.1 fine-tunes keep their own family
        ("meta-llama/Llama-3.2-1B-Instruct", "llama-3.2"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes-3"),
        ("meetkai/functionary-small-v3.1", "functionary-v3.1"),
        ("Salesforce/Llama-xLAM-2-70b-fc-r", "xlam"),
        # Mistral Small 3.1+ (v11) vs earlier Small; sub-brands before "mistral"
        ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-small-3.1"),
        ("mistral-small-2506", "mistral-small-3.2"),
        ("mistralai/Mistral-Small-Instruct-2409", "mistral-small"),
        ("NousResearch/Hermes-2-Pro-Mistral-7B", "hermes-2-pro"),
        ("mistralai/Magistral-Small-2506", "magistral"),
        # GLM-4.7 vs 4.5 / 4.6; Command R7B / R+ before Command R; MiniMax M1 vs M2
        ("zai-org/GLM-4.7-Flash", "glm-4.7"),
        ("zai-org/GLM-4.6", "glm-4.6"),
        ("c4ai-command-r7b-12-2024", "command-r7b"),
        ("command-r-plus:104b", "command-r-plus"),
        ("MiniMaxAI/MiniMax-M1-40k", "minimax-m1"),
        ("MiniMax-M2", "minimax-m2"),
        # Granite 4 vs 3.x
        ("granite3.3:8b", "granite-3.2"),
        ("granite3-dense:8b", "granite-3.0"),
        ("ibm-granite/granite-4.0-micro", "granite-4"),
    ],
)
def test_specific_rules_win_over_general_ones(model_id: str, family: str) -> None:
    assert preset_for(model_id).family == family


def test_llama_32_small_is_pythonic_first_and_31_is_json_first() -> None:
    assert preset_for("llama3.2:1b").formats[0] == "pythonic"
    assert preset_for("llama3.1:8b").formats[0] == "llama3_json"


def test_mistral_small_31_is_noted_as_the_v11_format() -> None:
    assert "v11+" in preset_for("mistralai/Mistral-Small-3.1-24B-Instruct-2503").note
    assert "pre-v11" in preset_for("mistralai/Mistral-Small-24B-Instruct-2501").note


@pytest.mark.parametrize("model_id", ["QWEN/QWEN3-CODER-30B-A3B-INSTRUCT", "qwen/QWEN3-coder", "  Qwen3-Coder  "])
def test_matching_ignores_case_and_surrounding_space(model_id: str) -> None:
    assert preset_for(model_id).family == "qwen3-coder"


def test_deepseek_hybrid_models_start_in_reasoning_only_for_thinking_variants() -> None:
    for plain in ("deepseek-ai/DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.2", "deepseek-chat", "deepseek-v3.1-nothink"):
        assert preset_for(plain).start_in_reasoning is False, plain
    for thinking in ("deepseek-reasoner", "deepseek-v3.1:thinking", "DeepSeek-V3.2-think", "deepseek-v3.2-reasoning"):
        assert preset_for(thinking).start_in_reasoning is True, thinking


def test_known_families_lists_each_family_once_in_table_order() -> None:
    families = known_families()
    assert len(families) == len(set(families))
    assert families.index("qwen3-coder") < families.index("qwen3")
    assert "unknown" not in families
    assert {"gpt-oss", "kimi-k2", "seed-oss", "olmo-3", "lfm2", "ernie-4.5", "jamba"} <= set(families)


def test_presets_are_immutable() -> None:
    preset = preset_for("gpt-oss:20b")
    with pytest.raises(AttributeError):
        preset.family = "other"  # type: ignore[misc]
