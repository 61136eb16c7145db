"""pytest plugin that runs SGLang's own detector test files unchanged, on SGLang's detectors or with
streamparse's in their place (``scripts/sglang_suite.py``, ``make sglang-suite``).

- ``sglang.test.test_utils`` imports SGLang's benchmark stack (``datasets``, ...), which the engine venv does
  not install: only its ``CustomTestCase`` is used by the detector files, so that module is replaced by one
  whose ``CustomTestCase`` is ``unittest.TestCase`` (SGLang's adds CI retries, nothing the tests assert);
- in ``adapter`` mode (``SGLANG_SUITE_MODE=adapter``), each detector class in :data:`DETECTORS` is replaced,
  in its module (the files ``from ... import`` it at import) and in ``FunctionCallParser.ToolCallParserEnum``
  (for ``FunctionCallParser(tools, name)``), by a streamparse detector for the same format(s). The test files
  are imported after this plugin is configured, so their imports bind the streamparse detectors.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
import unittest

import pytest

MODE = os.environ.get("SGLANG_SUITE_MODE", "engine")

# (module under sglang.srt.function_call, class) -> the streamparse formats that read the same output.
DETECTORS: dict[tuple[str, str], tuple[str, ...]] = {
    ("hermes_detector", "HermesDetector"): ("hermes",),
    ("qwen25_detector", "Qwen25Detector"): ("hermes",),
    ("mistral_detector", "MistralDetector"): ("mistral",),
    ("llama32_detector", "Llama32Detector"): ("llama3_json",),
    ("kimik2_detector", "KimiK2Detector"): ("kimi_k2",),
    ("kimik3_detector", "KimiK3Detector"): ("kimi_k3",),
    ("pythonic_detector", "PythonicDetector"): ("pythonic",),
    ("lfm2_detector", "Lfm2Detector"): ("pythonic",),
    ("deepseekv3_detector", "DeepSeekV3Detector"): ("deepseek_v3",),
    ("deepseekv31_detector", "DeepSeekV31Detector"): ("deepseek_v31",),
    ("deepseekv32_detector", "DeepSeekV32Detector"): ("deepseek_dsml",),
    ("deepseekv4_detector", "DeepSeekV4Detector"): ("deepseek_dsml",),
    ("glm4_moe_detector", "Glm4MoeDetector"): ("glm45",),
    ("glm47_moe_detector", "Glm47MoeDetector"): ("glm45",),
    ("qwen3_coder_detector", "Qwen3CoderDetector"): ("qwen3_coder",),
    ("gpt_oss_detector", "GptOssDetector"): ("harmony",),
    ("gigachat3_detector", "GigaChat3Detector"): ("gigachat3",),
    ("gigachat35_detector", "GigaChat35Detector"): ("gigachat35",),
    ("gemma4_detector", "Gemma4Detector"): ("gemma4",),
    ("hunyuan_detector", "HunyuanDetector"): ("hy3_plain", "hy3"),  # SGLang's default: the bare tokens
    ("minicpm5_detector", "MiniCPM5Detector"): ("minicpm5",),
    ("minimax_m2", "MinimaxM2Detector"): ("minimax",),
    ("internlm_detector", "InternlmDetector"): ("internlm",),
    ("step3_detector", "Step3Detector"): ("step3",),
    ("apertus2509_detector", "Apertus2509Detector"): ("apertus",),
}


def _stub_test_utils() -> None:
    module = types.ModuleType("sglang.test.test_utils")
    module.CustomTestCase = unittest.TestCase  # type: ignore[attr-defined]
    sys.modules["sglang.test.test_utils"] = module


def _substitute_detectors() -> None:
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    from streamparse.integrations import sglang

    enum = FunctionCallParser.ToolCallParserEnum
    for (module_name, cls_name), names in DETECTORS.items():
        module = importlib.import_module(f"sglang.srt.function_call.{module_name}")
        theirs = getattr(module, cls_name)
        ours = sglang.detector_for(names, cls_name)
        setattr(module, cls_name, ours)
        for key, value in list(enum.items()):
            if value is theirs:
                enum[key] = ours


def pytest_configure(config: pytest.Config) -> None:
    _stub_test_utils()
    if MODE == "adapter":
        _substitute_detectors()
