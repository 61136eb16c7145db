"""Render a chat template the way ``transformers`` does, inside a bounded sandbox.

The environment matches ``transformers``' ``apply_chat_template``: jinja2's ``ImmutableSandboxedEnvironment``
with ``trim_blocks`` and ``lstrip_blocks``, the ``loopcontrols`` extension and the ``{% generation %}``
block (rendered as its body), ``tojson`` as ``json.dumps`` (no HTML escaping, ``ensure_ascii=False``,
``indent`` / ``separators`` / ``sort_keys`` passed through), ``raise_exception`` and ``strftime_now``.

A template is code written by a stranger, so a render is bounded: every call, attribute and item access,
``range`` step and string/list product goes through the sandbox's hooks, which count operations and check a
deadline; the output is accumulated piece by piece and stopped past a size limit. A template that loops,
recurses or floods is stopped with :class:`RenderError`; nothing it does reaches outside the sandbox (the
sandbox refuses private attributes and, in the immutable variant, mutating methods). jinja2 is the optional
``templates`` extra: importing this module without it works; rendering raises an :class:`ImportError`
that names the extra.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .compiled import compile_template

__all__ = ["BoundError", "Limits", "RenderError", "Renderer", "render"]

MAX_OUTPUT = 1_000_000
"""Characters one render may produce (a chat prompt is a few KB; a flood is stopped here)."""
MAX_OPS = 2_000_000
"""Sandbox operations (calls, attribute/item reads, range steps) one render may perform."""
DEADLINE = 2.0
"""Seconds one render may run."""


class RenderError(Exception):
    """The template raised, looped, flooded or used something the sandbox refuses."""


class BoundError(RenderError):
    """A render went past its bounds (operations, time, output): retrying with other inputs is pointless."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds of one render: output characters, sandbox operations, seconds."""

    output: int = MAX_OUTPUT
    ops: int = MAX_OPS
    seconds: float = DEADLINE


class _Budget:
    """Counts sandbox operations; checks the clock every 1024 of them."""

    __slots__ = ("ops", "limit", "deadline", "limits")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.ops = 0
        self.limit = limits.ops
        self.deadline = time.monotonic() + limits.seconds

    def tick(self, n: int = 1) -> None:
        self.ops += n
        if self.ops > self.limit:
            raise BoundError(f"the template ran more than {self.limit} operations (a loop that never ends?)")
        if not self.ops & 1023 and time.monotonic() > self.deadline:
            raise BoundError(f"the template ran longer than {self.limits.seconds:g} s")


_DICT_ATTRIBUTES = frozenset(dir(dict))
"""Every attribute a plain dict has (its type's and object's): any other name is an item or nothing."""


def _plain(x: Any) -> Any:
    """Mappings and sequences as JSON-serialisable values (jinja hands over its own wrappers)."""
    if isinstance(x, Mapping):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple) or hasattr(x, "__next__"):  # jinja's map/select filters yield generators
        return [_plain(v) for v in x]
    return x


def _check_widths(fmt: str, limit: int) -> None:
    """%-format widths and precisions past the output limit (``'%99999999s' % x``) are refused up front."""
    for width in re.findall(r"%[-+ #0]*(\d+)", fmt):
        if int(width) > limit:
            raise BoundError("the template asked a format for more characters than the output limit")


def _tojson(
    x: Any, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None, sort_keys: bool = False
) -> str:
    # transformers' filter: json.dumps as such, so no HTML escaping and non-ASCII kept.
    return json.dumps(_plain(x), ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _environments(budget_box: list[_Budget]) -> tuple[Any, Any]:
    """The immutable sandbox (transformers' choice) and a mutable one (templates that append to lists)."""
    try:
        import jinja2
        from jinja2.ext import Extension
        from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

        from .codegen import PreparedCodeGenerator
        from .lexer import fast_lexer
        from .parsing import FastParser
    except ImportError as exc:  # pragma: no cover - exercised by the no-jinja2 test in a subprocess
        raise ImportError("rendering chat templates needs jinja2: pip install 'streamparse-llm[templates]'") from exc

    class Generation(Extension):
        """``{% generation %}...{% endgeneration %}`` (transformers marks assistant spans): its body."""

        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.Scope(body, lineno=lineno)

    def bounded(base: type) -> type:
        verdicts: dict[tuple[type, str], bool] = {}

        class Bounded(base):  # type: ignore[misc]
            intercepted_binops = frozenset({"*", "**", "%"})

            @property
            def lexer(self) -> Any:
                # jinja2's tokens, each tag lexed with one expression (streamparse.derive.lexer)
                return fast_lexer(self)

            def _parse(self, source: str, name: str | None, filename: str | None) -> Any:
                # jinja2's parse, with the environment set on the tree in one walk (streamparse.derive.parsing)
                return FastParser(self, source, name, filename).parse()

            def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
                budget_box[0].tick()
                return super().call(__context, __obj, *args, **kwargs)

            def getattr(self, obj: Any, attribute: str) -> Any:
                budget_box[0].tick()
                if type(obj) is dict and attribute not in _DICT_ATTRIBUTES and attribute in obj:
                    # jinja2 tries the attribute first: a plain dict has none by a name dict's type lacks, so
                    # its AttributeError (an exception per ``message.role``) is skipped for the same item.
                    return obj[attribute]
                return super().getattr(obj, attribute)

            def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
                # The sandbox's verdict depends on the object's type and the name only (isinstance checks
                # and the name's spelling): kept per pair, it is a dict lookup on the renders' hot path.
                key = (type(obj), attr)
                verdict = verdicts.get(key)
                if verdict is None:
                    verdict = super().is_safe_attribute(obj, attr, value)
                    if len(verdicts) < 4096:
                        verdicts[key] = verdict
                return verdict

            def getitem(self, obj: Any, argument: Any) -> Any:
                budget_box[0].tick()
                return super().getitem(obj, argument)

            def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
                budget_box[0].tick()
                if operator == "**" and isinstance(right, int) and abs(right) > 64:
                    raise BoundError("the template raised a number to a huge power")
                if operator == "%" and isinstance(left, str):
                    _check_widths(left, budget_box[0].limits.output)
                if operator == "*":
                    seq, times = (left, right) if isinstance(right, int) else (right, left)
                    huge = isinstance(seq, str | list | tuple) and isinstance(times, int)
                    if huge and len(seq) * times > budget_box[0].limits.output:
                        raise BoundError("the template built a string or list larger than the output limit")
                return super().call_binop(context, operator, left, right)

        return Bounded

    def counted_range(*args: int) -> Iterator[int]:
        budget = budget_box[0]
        if len(range(*args)) > budget.limits.ops:
            raise BoundError("the template asked for a range longer than the operation limit")
        for i in range(*args):
            budget.tick()
            yield i

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def strftime_now(fmt: str) -> str:
        return datetime.now().strftime(fmt)

    def width_guard(fn: Any) -> Any:
        # Filters that pad to a width allocate it at once, before the output bound sees anything.
        def guarded(*args: Any, **kwargs: Any) -> Any:
            limit = budget_box[0].limits.output
            if any(isinstance(a, int) and a > limit for a in (*args, *kwargs.values())):
                raise BoundError("the template asked a filter for more characters than the output limit")
            if fn is format_filter and args and isinstance(args[0], str):
                _check_widths(args[0], limit)
            return fn(*args, **kwargs)

        return guarded

    format_filter = ImmutableSandboxedEnvironment().filters["format"]
    envs = []
    for base in (ImmutableSandboxedEnvironment, SandboxedEnvironment):
        env = bounded(base)(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols", Generation])
        env.code_generator_class = PreparedCodeGenerator  # jinja2's generated source, with fewer tree walks
        # jinja2's optimizer only folds constant expressions ahead of time (the same output); skipping that
        # pass takes a sixth off the compile of a large template.
        env.optimized = False
        env.filters["tojson"] = _tojson
        for name in ("center", "indent", "wordwrap", "truncate", "format"):
            env.filters[name] = width_guard(env.filters[name])
        env.globals.pop("lipsum", None)  # lorem ipsum of any length: no chat template needs it
        env.globals["raise_exception"] = raise_exception
        env.globals["strftime_now"] = strftime_now
        env.globals["range"] = counted_range
        envs.append(env)
    return envs[0], envs[1]


class Renderer:
    """One compiled chat template. ``render(**variables)`` returns the prompt text or raises RenderError.

    ``globals``: extra template globals (replacing ``strftime_now`` makes renders reproducible).
    ``mutable``: templates that call ``list.append`` (``{% set _ = ns.ids.append(x) %}``) fail in
    transformers' immutable sandbox; with ``mutable=None`` (the default) such a template is retried in
    jinja2's ordinary sandbox, which still refuses private attributes and unsafe callables.
    """

    def __init__(
        self,
        source: str,
        *,
        limits: Limits | None = None,
        mutable: bool | None = None,
        globals: dict[str, Any] | None = None,
    ) -> None:
        self.source = source
        self.limits = limits = limits or Limits()
        self._budget: list[_Budget] = [_Budget(limits)]
        immutable, loose = _environments(self._budget)
        for env in (immutable, loose):
            env.globals.update(globals or {})  # e.g. a fixed strftime_now for reproducible fixtures
        self.mutable = bool(mutable)
        self._allow_retry = mutable is None
        self._loose_env = loose
        self._loose: Any = None
        try:
            self._code = compile_template(immutable, source)  # compiled once, for both sandboxes
        except Exception as exc:  # a syntax error: jinja2's TemplateSyntaxError and friends
            raise RenderError(f"the template does not compile: {type(exc).__name__}: {exc}") from exc
        self._immutable = immutable.template_class.from_code(immutable, self._code, immutable.make_globals(None))

    def render(self, **variables: Any) -> str:
        try:
            return self._run(self._mutable_template() if self.mutable else self._immutable, variables)
        except RenderError as exc:
            if self.mutable or not self._allow_retry or "unsafe" not in str(exc):
                raise
            self.mutable = True
            return self._run(self._mutable_template(), variables)

    def _mutable_template(self) -> Any:
        if self._loose is None:  # made on first need: most templates never mutate anything
            env = self._loose_env
            self._loose = env.template_class.from_code(env, self._code, env.make_globals(None))
        return self._loose

    def _run(self, template: Any, variables: dict[str, Any]) -> str:
        budget = self._budget[0] = _Budget(self.limits)
        out: list[str] = []
        size = 0
        try:
            for piece in template.generate(**variables):
                size += len(piece)
                if size > self.limits.output:
                    raise BoundError(f"the template wrote more than {self.limits.output} characters")
                budget.tick()
                out.append(piece)
        except RenderError:
            raise
        except RecursionError as exc:
            raise BoundError("the template recursed without end") from exc
        except Exception as exc:  # raise_exception, SecurityError, UndefinedError, TypeError in the template
            raise RenderError(f"{type(exc).__name__}: {exc}") from exc
        return "".join(out)


def render(source: str, *, limits: Limits | None = None, **variables: Any) -> str:
    """Render ``source`` once with ``variables`` (``messages``, ``tools``, ``add_generation_prompt``, ...)."""
    return Renderer(source, limits=limits).render(**variables)
