"""mkdocs hook: render the Sphinx-style roles the docstrings use (``:class:`X` ``) as plain code.

The docstrings are written for readers of the source first; mkdocstrings renders them as Markdown, where a
role would show up literally (``:class:<code>~streamparse.StreamParser</code>``). This drops the role and
the ``~`` shortening marker after the HTML is rendered, so the source stays as it is.
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const):(<code>)(?:~(?:[\w.]+\.)?)?")
_LITERAL_MARKER = re.compile(r"<p>::</p>")


def on_page_content(html: str, **kwargs: Any) -> str:
    """Strip roles (keeping the last dotted name when ``~`` asked for it) and reST ``::`` markers."""
    html = _ROLE.sub(lambda m: m.group(1), html)
    return _LITERAL_MARKER.sub("", html)
