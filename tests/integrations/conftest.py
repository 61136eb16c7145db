"""Engine tests (vLLM, SGLang): collected only by ``make test-vllm``.

They need vLLM and SGLang installed without their dependency trees (``scripts/engine_env.sh`` builds
that venv). ``make test`` does not collect this folder: ``STREAMPARSE_ENGINE_TESTS=1`` (set by
``make test-vllm``) turns collection on, and then a missing engine is an import error, not a skip.
"""

from __future__ import annotations

import os

if os.environ.get("STREAMPARSE_ENGINE_TESTS") != "1":
    collect_ignore_glob = ["*.py"]


def pytest_configure(config: object) -> None:
    config.addinivalue_line(  # type: ignore[attr-defined]
        "markers", "peer: the engine's own parser on the same case (the baseline; `make vllm-baseline`)"
    )
