#!/usr/bin/env bash
# Build the venv `make test-vllm` runs in: vLLM and SGLang without their dependency trees.
#
# Order matters: torch==2.13.0 first (pip takes the CPU wheel from this machine's local wheel folder; a bare
# `torch`, asked for directly or by vllm/sglang, resolves to a multi-GB CUDA build), then vllm and sglang
# with --no-deps, then only the modules their parser packages import (scripts/engine-requirements.txt,
# pinned, --no-deps), then this package with its test extra.
set -euo pipefail
VENV=${1:-.venv-vllm}
PYTHON=${PYTHON:-python3}
HERE="$(cd "$(dirname "$0")" && pwd)"
start=$(date +%s)
"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
"${PIP[@]}" torch==2.13.0
"${PIP[@]}" --no-deps vllm==0.33.0 sglang==0.5.23
"${PIP[@]}" --no-deps -r "$HERE/engine-requirements.txt"
"${PIP[@]}" -e "$HERE/..[test]"
# Fail here, not in the tests, if an import is still missing.
"$VENV/bin/python" -c "import vllm.tool_parsers.hermes_tool_parser, vllm.parser, sglang.srt.function_call.function_call_parser, streamparse.integrations.vllm, streamparse.integrations.sglang"
echo "engine venv $VENV ready in $(( $(date +%s) - start ))s"
