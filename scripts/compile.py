"""``make compile``: the parsing core built with mypyc, in a copy of the package (``--into DIR``).

streamparse is pure Python and stays importable and correct without this. Compiled, the same typed sources
(mypy strict) run as C: a chunk's path through the engine, the states and the formats' handlers costs about
a third (``make bench`` prints both builds). The copy keeps the source tree pure: ``PYTHONPATH=DIR`` imports
the compiled package (``make test-compiled`` runs the whole suite so). A copy already built from the same
sources is kept (the sources' digest is in ``DIR/.sources``).

Compiled: ``streamparse/core``, ``streamparse/states`` and ``streamparse/formats``, all together (a chunk
goes through all three; compiling one alone would make the formats it serves faster than the others). Left
out: the declaration vocabulary (``formats/declaration*.py``, ``formats/base.py``, ``formats/family.py``), frozen
dataclasses with defaults, which mypyc builds differently (they describe formats and are read once, not per
chunk).

The distribution builds the same extensions into a platform wheel: ``STREAMPARSE_COMPILE=1 python -m build
--wheel`` (``setup.py`` calls ``extensions()`` here, so the list and the options are this file's).

``--list``: only list the modules, build nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("streamparse/core", "streamparse/states", "streamparse/formats")
LEFT_OUT = {
    "streamparse/formats/base.py",
    "streamparse/formats/family.py",
}


def modules() -> list[str]:
    """The source files mypyc compiles, relative to the repository."""
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if path.name == "__init__.py" or rel in LEFT_OUT or path.name.startswith("declaration"):
                continue
            out.append(rel)
    return out


def extensions() -> list[Any]:
    """mypyc's setuptools extensions of ``modules()``, run from the directory that holds ``streamparse``.
    ``group_name`` puts mypyc's shared runtime inside the package (``streamparse/_native__mypyc*.so``)."""
    from mypyc.build import mypycify  # (a build-time tool: part of mypy, in the test extra)

    return mypycify(modules(), opt_level="3", group_name="streamparse._native")


def digest() -> str:
    """Of every source the copy is made from (any change rebuilds it) and of the Python that builds it."""
    h = hashlib.sha256(sys.version.encode())
    for path in sorted((ROOT / "streamparse").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so":
            h.update(path.relative_to(ROOT).as_posix().encode())
            h.update(path.read_bytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()


def build(into: Path) -> None:
    """Copy the package into ``into`` and compile the modules there (about a minute of CPU)."""
    stamp = into / ".sources"
    want = digest()
    if stamp.exists() and stamp.read_text() == want:
        print(f"{into}: compiled from these sources already", flush=True)
        return
    from setuptools import setup

    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    shutil.copytree(ROOT / "streamparse", into / "streamparse", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    os.chdir(into)
    setup(
        name="streamparse-compiled",
        ext_modules=extensions(),
        script_args=["-q", "build_ext", "--inplace", "--build-temp", "build", "--parallel", str(os.cpu_count() or 1)],
    )
    shutil.rmtree(into / "build", ignore_errors=True)
    stamp.write_text(want)
    print(f"{into}: compiled {len(modules())} modules with mypyc (python {sys.version.split()[0]})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--into", type=Path, default=ROOT / ".cache" / "compiled", help="where the compiled copy goes")
    ap.add_argument("--list", action="store_true", help="only list the modules that are compiled")
    args = ap.parse_args()
    if args.list:
        print("\n".join(modules()))
        return
    build(args.into.resolve())


if __name__ == "__main__":
    main()
