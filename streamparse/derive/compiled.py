"""Compiled chat templates, kept on disk by a hash of the template text so a repeat run skips jinja2's compile.

jinja2 compiles a template in four steps, all pure Python: lex, parse, generate Python source, and Python's
own ``compile``. For the large templates (GigaChat 3.5's 40 KB) that is most of a derivation's cost, and
it is the same for every run with the same template text. The Python code object jinja2 produced is
stored with jinja2's own :class:`~jinja2.bccache.Bucket` format (its header names jinja2's bytecode
version and the Python version, so a stale file is ignored), under a key made of the template text,
jinja2's version and :data:`LAYOUT`, in ``$STREAMPARSE_TEMPLATE_CACHE`` (default
``$XDG_CACHE_HOME/streamparse/jinja2`` or ``~/.cache/streamparse/jinja2``; ``off`` disables it).

The code object is loaded back with :mod:`marshal`, as Python loads a ``.pyc``: a directory someone else
could write to is therefore never used (owned by this user, not writable by group or others), the same
rule jinja2 applies to its own default cache directory. The compiled code runs in the same bounded sandbox
(the sandbox's checks are calls the generated code makes at render time, not compiled in).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "compile_template", "without_cyclic_gc"]

LAYOUT = "1"
"""Bumped when the environment's compile-time options change (they shape the generated code)."""


def cache_dir() -> Path | None:
    """The directory compiled templates are kept in, or None when disabled or not safe to use."""
    configured = os.environ.get("STREAMPARSE_TEMPLATE_CACHE")
    if configured is not None and configured.strip().lower() in ("", "0", "off", "false", "no"):
        return None
    if configured:
        path = Path(configured)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "streamparse" / "jinja2"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
    except OSError:
        return None
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (st.st_uid != getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
        return None  # code is loaded from here: only a directory no one else can write to
    return path


@contextlib.contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block, as it was before afterwards.

    jinja2's compile of a large template allocates tens of thousands of objects (tokens, nodes, frames) that
    all live until the compile ends: the collections they trigger find nothing to free, and survivors of two
    collections are promoted towards a full collection of the whole process, which then comes every other
    derivation and costs 15-30 ms here (a third to a half of GigaChat 3.5's compile). Memory is still freed by
    reference counting meanwhile; what the compile leaves in cycles is collected after it, as before. The
    block runs jinja2's compiler only (bounded by the template's size: no template code runs in it). If
    another thread pauses and resumes the collector meanwhile, it ends enabled when either found it so.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def compile_template(env: Any, source: str) -> Any:
    """jinja2's code object for ``source`` in ``env``: from the disk cache, else compiled (and stored)."""
    from jinja2 import __version__ as version
    from jinja2.bccache import Bucket

    folder = cache_dir()
    if folder is None:
        with without_cyclic_gc():
            return env.compile(source)
    checksum = hashlib.sha256(source.encode("utf-8")).hexdigest()
    key = hashlib.sha256(f"{version}|{LAYOUT}|{checksum}".encode()).hexdigest()
    bucket = Bucket(env, key, checksum)
    path = folder / f"{key}.jinja2c"
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError), path.open("rb") as f:
        bucket.load_bytecode(f)  # a stale or foreign header leaves bucket.code None
    if bucket.code is not None:
        return bucket.code
    with without_cyclic_gc():
        code = env.compile(source)
    bucket.code = code
    tmp = folder / f"{key}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        with tmp.open("wb") as f:
            bucket.write_bytecode(f)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)
    return code
