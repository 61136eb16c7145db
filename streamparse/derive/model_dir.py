"""A local model folder's chat template and special tokens, as ``transformers`` finds them.

``chat_template.jinja`` wins over ``tokenizer_config.json``'s ``chat_template`` (a string, or a list of
named templates where ``default`` is the one used); special tokens come from ``tokenizer_config.json``
(``bos_token``, ``eos_token``, ``added_tokens_decoder`` entries marked special) and, when present,
``special_tokens_map.json``. A path to a template file is read as the template itself.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ModelTemplate", "read_template", "cached_model_folder", "template_for"]


@dataclass(frozen=True, slots=True)
class ModelTemplate:
    """A chat template with the tokenizer settings it renders with."""

    template: str
    source: str
    special_tokens: dict[str, Any] = field(default_factory=dict)


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_template(path: str | Path) -> ModelTemplate | None:
    """The template of a model folder (or a template / tokenizer_config file); None when there is none."""
    p = Path(path)
    if p.is_file():
        if p.suffix == ".json":
            return _from_config(_json(p), p, p.parent)
        return ModelTemplate(p.read_text(encoding="utf-8"), str(p), _special(p.parent))
    if not p.is_dir():
        return None
    jinja = p / "chat_template.jinja"
    if jinja.is_file():
        return ModelTemplate(jinja.read_text(encoding="utf-8"), str(jinja), _special(p))
    return _from_config(_json(p / "tokenizer_config.json"), p / "tokenizer_config.json", p)


def _from_config(config: dict[str, Any], source: Path, folder: Path) -> ModelTemplate | None:
    template = config.get("chat_template")
    if isinstance(template, list):  # [{"name": "default", "template": ...}, {"name": "tool_use", ...}]
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default") or next(iter(named.values()), None)
    if not isinstance(template, str) or not template.strip():
        return None
    return ModelTemplate(template, str(source), _special(folder))


def _special(folder: Path) -> dict[str, Any]:
    """Special tokens: tokenizer_config.json's, overlaid with special_tokens_map.json's."""
    config = _json(folder / "tokenizer_config.json")
    out: dict[str, Any] = {k: v for k, v in config.items() if k.endswith("_token") and v}
    if isinstance(config.get("added_tokens_decoder"), dict):
        out["added_tokens_decoder"] = config["added_tokens_decoder"]
    if isinstance(config.get("additional_special_tokens"), list):
        out["additional_special_tokens"] = config["additional_special_tokens"]
    for k, v in _json(folder / "special_tokens_map.json").items():
        if v and (k.endswith("_token") or k == "additional_special_tokens"):
            out.setdefault(k, v)
    return out


_MODEL_ID = re.compile(r"[\w.\-]{1,96}/[\w.\-]{1,96}\Z")


def cached_model_folder(model_id: str) -> Path | None:
    """The newest snapshot of ``org/name`` in the local Hugging Face cache (``HF_HUB_CACHE``, ``HF_HOME/hub``
    or ``~/.cache/huggingface/hub``), if it was downloaded there; nothing is fetched."""
    if not _MODEL_ID.match(model_id):
        return None
    hub = os.environ.get("HF_HUB_CACHE") or os.path.join(
        os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface"), "hub"
    )
    snapshots = Path(hub) / ("models--" + model_id.replace("/", "--")) / "snapshots"
    try:
        found = [p for p in snapshots.iterdir() if p.is_dir()]
    except OSError:
        return None
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def template_for(model_id: str, chat_template: str | None) -> ModelTemplate | None:
    """The chat template given (text, file or folder), found in the model folder ``model_id``, or in the local
    Hugging Face cache for a downloaded ``org/name``."""
    if chat_template is not None:
        if "{" in chat_template:  # template text (a path has no Jinja braces)
            return ModelTemplate(chat_template, "the chat template given")
        return read_template_cached(chat_template)
    if not ("/" in model_id or "\\" in model_id) or len(model_id) >= 4096:
        return None
    local = read_template_cached(model_id)
    if local is not None:
        return local
    cached = cached_model_folder(model_id)  # a model downloaded with huggingface_hub: its snapshot's template
    return read_template_cached(str(cached)) if cached is not None else None


def read_template_cached(path: str) -> ModelTemplate | None:
    """``read_template`` once per file version: servers call ``for_model`` on every request."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return read_template_at(path, stamp)


@functools.lru_cache(maxsize=32)
def read_template_at(path: str, stamp: int) -> ModelTemplate | None:
    """``read_template`` of one version of a file (``stamp``: its mtime), kept for the next request."""
    return read_template(path)
