"""pytest plugin that runs the engines' own parser test files (vLLM's ``tests/tool_parsers/`` and
``tests/reasoning/``) unchanged, either on the engine's parsers or with streamparse's adapters in their place.

``scripts/engine_suite.py`` (``make engine-suite``) runs pytest in the folder that holds the engine's test
files with ``-p engine_suite_plugin --noconftest`` and ``ENGINE_SUITE_MODE=engine`` or ``adapter``:

- every tokenizer the test files load by model id (``AutoTokenizer.from_pretrained``,
  ``vllm.tokenizers.get_tokenizer``) is the offline :func:`suite_tokenizer.suite_tokenizer` (both modes);
- the fixtures of the engine's ``conftest.py`` files that the files use are provided here, since those
  ``conftest.py`` files import the whole engine (GPU model runners) and are not loaded;
- in ``adapter`` mode, each engine parser in :data:`TOOL` and :data:`REASONING` is replaced, in its module
  (for ``from ... import Class``, which the test files do at import) and in the engine's registry (for
  ``ToolParserManager.get_tool_parser(name)``), by the streamparse adapter for the same format. The test
  files are imported after this plugin is configured, so their imports bind the adapters.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest
from suite_tokenizer import for_model, suite_tokenizer

MODE = os.environ.get("ENGINE_SUITE_MODE", "engine")

# (module under vllm.tool_parsers, class, registry names, streamparse adapter name)
TOOL: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("hermes_tool_parser", "Hermes2ProToolParser", ("hermes", "qwen3_json"), "streamparse_hermes"),
    ("granite4_tool_parser", "Granite4ToolParser", ("granite4",), "streamparse_hermes"),
    ("deepseekv3_tool_parser", "DeepSeekV3ToolParser", ("deepseek_v3",), "streamparse_deepseek_v3"),
    ("deepseekv31_tool_parser", "DeepSeekV31ToolParser", ("deepseek_v31",), "streamparse_deepseek_v31"),
    (
        "deepseekv32_engine_tool_parser",
        "DeepSeekV32EngineToolParser",
        ("deepseek_v32",),
        "streamparse_deepseek_dsml",
    ),
    ("glm47_moe_tool_parser", "Glm47MoeModelToolParser", ("glm45", "glm47"), "streamparse_glm45"),
    ("granite_engine_tool_parser", "GraniteEngineToolParser", ("granite",), "streamparse_granite"),
    ("internlm2_tool_parser", "Internlm2ToolParser", ("internlm",), "streamparse_internlm"),
    ("jamba_tool_parser", "JambaToolParser", ("jamba",), "streamparse_jamba"),
    ("kimi_k2_tool_parser", "KimiK2ToolParser", ("kimi_k2",), "streamparse_kimi_k2"),
    ("llama_tool_parser", "Llama3JsonToolParser", ("llama3_json", "llama4_json"), "streamparse_llama3_json"),
    ("llama4_pythonic_tool_parser", "Llama4PythonicToolParser", ("llama4_pythonic",), "streamparse_pythonic"),
    ("pythonic_tool_parser", "PythonicToolParser", ("pythonic",), "streamparse_pythonic"),
    ("olmo3_tool_parser", "Olmo3PythonicToolParser", ("olmo3",), "streamparse_pythonic"),
    ("lfm2_tool_parser", "Lfm2ToolParser", ("lfm2",), "streamparse_pythonic"),
    ("minimax_m2_tool_parser", "MinimaxM2ToolParser", ("minimax_m2",), "streamparse_minimax"),
    ("phi4mini_tool_parser", "Phi4MiniJsonToolParser", ("phi4_mini_json",), "streamparse_phi4_mini"),
    ("qwen3_engine_tool_parser", "Qwen3EngineToolParser", ("qwen3_coder", "qwen3_xml"), "streamparse_qwen3_coder"),
    ("xlam_tool_parser", "xLAMToolParser", ("xlam",), "streamparse_xlam"),
    ("gemma4_engine_tool_parser", "Gemma4EngineToolParser", ("gemma4",), "streamparse_gemma4"),
    ("functiongemma_tool_parser", "FunctionGemmaToolParser", ("functiongemma",), "streamparse_gemma4"),
)

# (module under vllm.reasoning, class, registry names, streamparse adapter name)
REASONING: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("qwen3_engine_reasoning_parser", "Qwen3ParserReasoningAdapter", ("qwen3",), "streamparse_qwen3"),
    ("deepseek_r1_reasoning_parser", "DeepSeekR1ReasoningParser", ("deepseek_r1",), "streamparse_deepseek_r1"),
    ("deepseek_v3_reasoning_parser", "DeepSeekV3ReasoningParser", ("deepseek_v3",), "streamparse_deepseek_v3"),
    ("glm47_moe_reasoning_parser", "Glm47MoeParserReasoningAdapter", ("glm45", "glm47"), "streamparse_glm45"),
    ("minimax_m2_reasoning_parser", "MiniMaxM2ReasoningParser", ("minimax_m2",), "streamparse_minimax_m2"),
    ("ernie45_reasoning_parser", "Ernie45ReasoningParser", ("ernie45",), "streamparse_ernie45"),
    ("kimi_k2_reasoning_parser", "KimiK2ReasoningParser", ("kimi_k2",), "streamparse_kimi_k2"),
    ("olmo3_reasoning_parser", "Olmo3ReasoningParser", ("olmo3",), "streamparse_olmo3"),
)


def _offline_tokenizer(*args: Any, **kwargs: Any) -> Any:
    name = args[0] if args else kwargs.get("tokenizer_name") or kwargs.get("pretrained_model_name_or_path") or ""
    return for_model(str(name))


def _patch_tokenizer_loading() -> None:
    import transformers
    import vllm.tokenizers
    import vllm.tokenizers.registry

    transformers.AutoTokenizer.from_pretrained = _offline_tokenizer  # type: ignore[method-assign]
    vllm.tokenizers.get_tokenizer = _offline_tokenizer
    vllm.tokenizers.registry.get_tokenizer = _offline_tokenizer


def _substitute_adapters() -> None:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    from streamparse.integrations import vllm as adapter

    for module, cls, names, ours in TOOL:
        tool_cls = adapter.TOOL_PARSERS[ours]
        if ours in [a for _, _, _, a in TOOL[: TOOL.index((module, cls, names, ours))]]:
            # A second engine parser replaced by the same adapter (Granite4ToolParser and Hermes2ProToolParser):
            # a class of its own, so a test's `isinstance(parser, Granite4ToolParser)` holds for Granite 4 only.
            tool_cls = type(f"{cls}Adapter", (tool_cls,), {"__module__": tool_cls.__module__})
        setattr(importlib.import_module(f"vllm.tool_parsers.{module}"), cls, tool_cls)
        for name in names:
            ToolParserManager.lazy_parsers.pop(name, None)
            ToolParserManager.tool_parsers[name] = tool_cls
    for module, cls, names, ours in REASONING:
        reasoning_cls = adapter.REASONING_PARSERS[ours]
        setattr(importlib.import_module(f"vllm.reasoning.{module}"), cls, reasoning_cls)
        for name in names:
            ReasoningParserManager.lazy_parsers.pop(name, None)
            ReasoningParserManager.reasoning_parsers[name] = reasoning_cls


def pytest_configure(config: pytest.Config) -> None:
    _patch_tokenizer_loading()
    if MODE == "adapter":
        _substitute_adapters()


@pytest.fixture(scope="module")
def default_tokenizer() -> Any:
    """vLLM's ``tests/tool_parsers/conftest.py`` fixture (a GPT-2 tokenizer there), offline."""
    return suite_tokenizer()
