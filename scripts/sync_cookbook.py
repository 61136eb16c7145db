"""Copy each example file into docs/cookbook.md, under the line that names it, so the cookbook reads the
same on the repository page as on the built site (no include lines to render). tests/test_docs_blocks.py
fails when a copy differs from its file; run ``python scripts/sync_cookbook.py`` after editing an example."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COOKBOOK = ROOT / "docs" / "cookbook.md"
# "`examples/NAME.py`:" then a blank line and a ```python block: the block is that file.
BLOCK = re.compile(r"^`(examples/[\w.]+\.py)`:\n\n```python\n.*?^```$", re.MULTILINE | re.DOTALL)


def synced(text: str) -> str:
    def copy(match: re.Match[str]) -> str:
        path = match.group(1)
        body = (ROOT / path).read_text(encoding="utf-8")
        return f"`{path}`:\n\n```python\n{body.rstrip()}\n```"

    return BLOCK.sub(copy, text)


if __name__ == "__main__":
    COOKBOOK.write_text(synced(COOKBOOK.read_text(encoding="utf-8")), encoding="utf-8")
