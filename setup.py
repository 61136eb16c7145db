"""The compiled wheel. The project itself is declared in pyproject.toml; this file only adds extensions on request.

``STREAMPARSE_COMPILE=1 python -m build --wheel`` (or ``pip install .`` with the variable set) builds a platform
wheel whose parsing core, the modules ``scripts/compile.py --list`` names, are mypyc extension modules, made
as ``make compile`` makes them (``extensions()`` of scripts/compile.py: one list, one set of options). Without
the variable this is a plain ``setup()``: the pure-Python wheel (py3-none-any), the fallback on every platform.

With the variable, a missing mypyc or C compiler fails the build: it never falls back to a pure wheel.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tomllib
from pathlib import Path
from types import ModuleType

from setuptools import setup

HERE = Path(__file__).resolve().parent
# The commands that build code. The others a build runs (egg_info, dist_info, sdist) need no extensions:
# the frontend's "what does building a wheel require?" (egg_info) is answered with mypy instead.
BUILDS_CODE = {"build", "build_ext", "bdist", "bdist_wheel", "install"}
# An editable install would put the extensions into the source tree, where they would shadow every edit of
# the modules they were compiled from: refused (`make compile` builds a compiled copy of a clone).
EDITABLE = {"develop", "editable_wheel"}


def _compile_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("streamparse_compile_script", HERE / "scripts" / "compile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mypy_requirement() -> str:
    """mypy (which carries mypyc) as the test extra requires it."""
    project = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return next(r for r in project["optional-dependencies"]["test"] if r.startswith("mypy"))


if os.environ.get("STREAMPARSE_COMPILE") != "1":
    setup()
elif not EDITABLE.isdisjoint(sys.argv[1:]):
    raise SystemExit(
        "STREAMPARSE_COMPILE=1 builds a wheel, not an editable install (its extensions would shadow the sources): "
        "`STREAMPARSE_COMPILE=1 pip install .`, or `make compile` for a compiled copy of this tree"
    )
elif BUILDS_CODE.isdisjoint(sys.argv[1:]):
    # An isolated build (`python -m build`, `pip install .`) installs this before it builds the wheel.
    setup(setup_requires=[_mypy_requirement()])
else:
    try:
        import mypyc.build  # noqa: F401
    except ImportError as exc:
        raise SystemExit(
            f"STREAMPARSE_COMPILE=1, but mypyc cannot be imported ({exc}): install {_mypy_requirement()!r} "
            "(it carries mypyc) and a C compiler, or unset STREAMPARSE_COMPILE for the pure-Python wheel"
        ) from None
    setup(
        ext_modules=_compile_script().extensions(),
        options={"build_ext": {"parallel": os.cpu_count() or 1}},
    )
