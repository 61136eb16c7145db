"""The served model's chat template for the engine adapters (zero-config, docs/ZERO_CONFIG.md).

vLLM's tool parser holds the tokenizer, whose ``chat_template`` is the served model's; SGLang's detector does
not, so ``python -m streamparse.integrations.sglang`` hands the server's ``--chat-template`` file (or a local
``--model-path`` folder) over in ``STREAMPARSE_CHAT_TEMPLATE``. Either way the template is used through
``StreamParser.for_model``: when no preset knows the served model, or always with
``STREAMPARSE_CHAT_TEMPLATE_FIRST=1``. No vLLM or SGLang import here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["TEMPLATE_ENV", "FIRST_ENV", "template_options", "template_from_argv"]

TEMPLATE_ENV = "STREAMPARSE_CHAT_TEMPLATE"
"""A chat template file or model folder that overrides the tokenizer's template."""
FIRST_ENV = "STREAMPARSE_CHAT_TEMPLATE_FIRST"
"""``1``: derive from the template even when a preset knows the model."""


def template_options(tokenizer: Any = None) -> dict[str, Any]:
    """``for_model`` options (``chat_template``, ``template_first``) for the served model, or ``{}``."""
    template: Any = os.environ.get(TEMPLATE_ENV) or getattr(tokenizer, "chat_template", None)
    if isinstance(template, Mapping):  # older tokenizers: named templates; calls are in "tool_use"
        template = template.get("tool_use") or template.get("default")
    if not isinstance(template, str) or not template.strip():
        return {}
    first = os.environ.get(FIRST_ENV, "").strip().lower() not in ("", "0", "false", "no")
    return {"chat_template": template, "template_first": first}


def template_from_argv(argv: Sequence[str]) -> str | None:
    """The template a server command line names: ``--chat-template FILE``, else a local ``--model-path`` folder."""
    values: dict[str, str] = {}
    for i, arg in enumerate(argv):
        for flag in ("--chat-template", "--model-path"):
            if arg == flag and i + 1 < len(argv):
                values[flag] = argv[i + 1]
            elif arg.startswith(flag + "="):
                values[flag] = arg.split("=", 1)[1]
    chat = values.get("--chat-template")
    if chat and Path(chat).is_file():
        return chat
    model = values.get("--model-path")
    if model and Path(model).is_dir():
        return model
    return None
