"""The playground's zero-config input: a pasted chat template, or the path of a local model folder.

The parser of a replay is then the one derived from that template (``StreamParser.from_chat_template``,
``StreamParser.for_model`` for a folder), and the page shows the derived format beside the parse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..parser import StreamParser

__all__ = ["MAX_TEMPLATE_CHARS", "check_template", "derived_parser", "TemplateError"]

MAX_TEMPLATE_CHARS = 200_000


class TemplateError(ValueError):
    """A template field the playground cannot use; the message is shown to the user."""


def check_template(value: Any) -> str:
    """The ``chat_template`` field of a request: template text or a folder path (may be empty)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TemplateError("'chat_template' must be the template text or a model folder path")
    if len(value) > MAX_TEMPLATE_CHARS:
        raise TemplateError(f"the chat template is {len(value)} characters; at most {MAX_TEMPLATE_CHARS}")
    return value.strip()


def _is_folder(value: str) -> bool:
    return "\n" not in value and "{" not in value and len(value) < 1024 and Path(value).expanduser().is_dir()


def derived_parser(value: str, options: dict[str, Any]) -> tuple[StreamParser, dict[str, Any]]:
    """The parser derived from ``value`` and what the page shows about the derivation."""
    try:
        if _is_folder(value):
            parser = StreamParser.for_model(str(Path(value).expanduser()), template_first=True, **options)
            if parser.derivation is None:
                raise TemplateError(f"no chat template could be derived from the folder {value}")
        else:
            parser = StreamParser.from_chat_template(value, **options)
    except ImportError as exc:
        raise TemplateError(str(exc)) from None
    except TemplateError:
        raise
    except ValueError as exc:  # DeriveError: names what could not be derived
        raise TemplateError(f"cannot derive a format from this chat template: {exc}") from None
    d = parser.derivation
    info = {
        "name": d.name,
        "declaration": d.declaration.to_dict(),
        "primed": d.primed,
        "checks": [{"probe": c.probe, "ok": c.ok, "skipped": c.skipped, "detail": c.detail} for c in d.checks],
        "notes": list(d.notes) + list(d.warnings),
    }
    return parser, info
