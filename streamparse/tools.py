"""Tool definitions: the allowlist and JSON Schemas that calls are checked against (the validation rule,
docs/FORMATS.md).

Users hand us tools in whatever shape their stack already has (OpenAI or Anthropic dicts, pydantic
models, plain functions, or a name -> schema mapping); ``ToolSet`` normalises them once, at construction,
into name -> object schema. Bad definitions are programmer error and raise ``ValueError`` right there;
model output can never make ``ToolSet`` raise (``validate`` reports problems as a detail string).

Validators are compiled lazily, on a tool's first call, and shared process-wide per distinct schema
(``schema_check``): a server gets the same tools with every request, and most are never called;
a compiled pre-check (``schema_fast``) answers the calls that are valid.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, cast, get_type_hints
from urllib.parse import unquote

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from jsonschema.protocols import Validator
from pydantic import BaseModel, Field, create_model
from pydantic.json_schema import GenerateJsonSchema

from .schema_check import lazy_validator, shape_problem
from .schema_fast import DATA_KEYWORDS, surely_valid

__all__ = ["ToolSet"]

_EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_MAX_REF_HOPS = 32  # a chain of $ref longer than this is treated as unresolvable (cycles)
_MAX_DETAIL_CHARS = 300  # jsonschema messages embed the instance's repr, which can be huge
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


# --------------------------------------------------------------------------- validator cache

_VALIDATOR_CACHE_SIZE = 512
_validators: OrderedDict[str, Validator] = OrderedDict()
_validators_lock = threading.Lock()


def _canonical_json(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _validator_class(schema: dict[str, Any]) -> type[Validator]:
    # ``default=`` makes an unrecognised ``$schema`` fall back to 2020-12 silently (jsonschema only
    # warns when no default is given); tool schemas in the wild carry all sorts of ``$schema`` URIs.
    default = jsonschema.Draft202012Validator
    cls: type[Validator] = jsonschema.validators.validator_for(schema, default=default)
    return cls


def _compile_validator(schema: dict[str, Any]) -> Validator:
    """Check ``schema`` against its metaschema and build a validator (uncached: see ``_validator_for``)."""
    cls = _validator_class(schema)
    cls.check_schema(schema)  # raises jsonschema.exceptions.SchemaError
    return cls(schema)


# Type names tool authors write for Python or other languages, read as the JSON Schema type they mean
# (vLLM, SGLang and llama.cpp accept them too). Anything else stays as written and is checked as a schema.
TYPE_ALIASES: dict[str, str] = {
    "float": "number",
    "double": "number",
    "int": "integer",
    "long": "integer",
    "bool": "boolean",
    "dict": "object",
    "map": "object",
    "list": "array",
    "tuple": "array",
    "str": "string",
    "text": "string",
    "none": "null",
}


def _standard_type_names(schema: Any) -> Any:
    """A copy of ``schema`` with non-standard ``type`` names (``"float"``, ``"dict"``...) mapped to theirs."""
    if isinstance(schema, Mapping):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "type" and isinstance(value, str):
                out[key] = TYPE_ALIASES.get(value.lower(), value)
            elif key == "type" and isinstance(value, list) and all(isinstance(v, str) for v in value):
                out[key] = [TYPE_ALIASES.get(v.lower(), v) for v in value]
            elif key in DATA_KEYWORDS:
                out[key] = value
            elif key == "properties" and isinstance(value, Mapping):
                out[key] = {k: _standard_type_names(v) for k, v in value.items()}
            else:
                out[key] = _standard_type_names(value)
        return out
    if isinstance(schema, list):
        return [_standard_type_names(v) for v in schema]
    return schema


def _validator_for(schema: dict[str, Any], key: str) -> Validator:
    """The shared validator for ``schema``; ``key`` is its canonical JSON. Bounded LRU, thread-safe."""
    with _validators_lock:
        validator = _validators.get(key)
        if validator is not None:
            _validators.move_to_end(key)
            return validator
    validator = _compile_validator(schema)  # outside the lock: slow; a duplicate in a race is harmless
    with _validators_lock:
        _validators[key] = validator  # (the newest, at the end)
        while len(_validators) > _VALIDATOR_CACHE_SIZE:
            _validators.popitem(last=False)
    return validator


# --------------------------------------------------------------------------- schema helpers


def _render_path(path: Iterable[Any]) -> str:
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif isinstance(part, str) and _IDENTIFIER.match(part):
            out.append(f".{part}")
        else:
            out.append(f"[{json.dumps(str(part), ensure_ascii=False)}]")
    return "".join(out)


def _truncate(text: str, limit: int = _MAX_DETAIL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _resolve_pointer(root: Any, ref: str) -> Any:
    """Resolve a local ``$ref`` (``#`` or ``#/a/b``) against ``root``; raises LookupError."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise LookupError(ref)
    node = root
    for raw in ref[2:].split("/"):
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise LookupError(ref)
    return node


def _deref(root: dict[str, Any], schema: Any) -> Any:
    """Follow local ``$ref`` chains at the top of ``schema``; sibling keywords override the target's.

    Non-local or unresolvable refs are left as they are: coercion then sees no type information and
    keeps the text, and validation decides.
    """
    hops = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and hops < _MAX_REF_HOPS:
        try:
            target = _resolve_pointer(root, schema["$ref"])
        except LookupError:
            return schema
        if not isinstance(target, dict):
            return schema
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
        hops += 1
    return schema


def _deref_shallow(root: dict[str, Any], schema: Any, depth: int = 0) -> Any:
    """``_deref`` applied to ``schema`` and, recursively, to its anyOf/oneOf/allOf members.

    That is everything text-value rule coercion looks at (``Optional[Model]`` is ``anyOf: [{$ref}, {null}]``);
    nested ``properties``/``items`` are left to the validator.
    """
    schema = _deref(root, schema)
    if not isinstance(schema, dict) or depth >= _MAX_REF_HOPS:
        return schema
    out = schema
    for keyword in ("anyOf", "oneOf", "allOf"):
        members = schema.get(keyword)
        if isinstance(members, list):
            if out is schema:
                out = dict(schema)
            out[keyword] = [_deref_shallow(root, m, depth + 1) for m in members]
    return out


def _local_refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            yield ref
        for key, value in schema.items():
            if key not in DATA_KEYWORDS:
                yield from _local_refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _local_refs(item)


def _allows_object(schema: dict[str, Any]) -> bool:
    declared = schema.get("type")
    if declared is None:
        return True
    if isinstance(declared, str):
        return declared == "object"
    return isinstance(declared, list) and "object" in declared


class _NoAutoTitles(GenerateJsonSchema):
    """pydantic's generator without the titles it derives from field names (``minutes`` -> ``Minutes``).

    They carry no information, cost prompt tokens in ``openai_tools()``, and would make a pydantic or
    callable definition differ from the equivalent hand-written dict. Explicit ``Field(title=...)`` stays.
    """

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


# --------------------------------------------------------------------------- normalisation


@dataclass(frozen=True, slots=True)
class _Tool:
    name: str
    description: str | None
    parameters: dict[str, Any]
    function: Callable[..., Any] | None = None
    model: type[BaseModel] | None = None


def _require_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"tool definition {where} has no name (expected a non-empty string, got {name!r})")
    return name


def _description(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _from_dict(item: Mapping[str, Any], where: str) -> _Tool:
    if item.get("type") == "function" and isinstance(item.get("function"), Mapping):
        item = item["function"]  # OpenAI chat-completions shape
    name = _require_name(item.get("name"), where)
    # Anthropic tools carry ``input_schema``; OpenAI ones ``parameters``.
    parameters = item["input_schema"] if "input_schema" in item else item.get("parameters")
    if parameters is None:
        parameters = _EMPTY_OBJECT_SCHEMA
    return _Tool(name, _description(item.get("description")), parameters)


def _from_model(model: type[BaseModel], name: str | None = None) -> _Tool:
    title = model.model_config.get("title")
    name = name or (title if isinstance(title, str) and title else model.__name__)
    schema = model.model_json_schema(schema_generator=_NoAutoTitles)
    schema.pop("title", None)  # the class name: redundant with the tool name
    description = schema.pop("description", None)  # the docstring belongs to the tool, not its arguments
    return _Tool(name, _description(description), schema, model=model)


def _from_callable(function: Callable[..., Any], name: str | None = None) -> _Tool:
    name = _require_name(name or getattr(function, "__name__", None), f"{function!r}")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"tool {name!r}: cannot read the signature of {function!r}: {exc}") from exc
    try:
        hints = get_type_hints(function, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to the raw annotations
        hints = {}
    fields: dict[str, Any] = {}
    for index, param in enumerate(signature.parameters.values()):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, param.annotation)
        if annotation is inspect.Parameter.empty or isinstance(annotation, str):
            annotation = Any
        default = ... if param.default is inspect.Parameter.empty else param.default
        # Internal field names with an alias: parameter names such as ``json``, ``model_config`` or
        # ``_private`` would otherwise clash with BaseModel attributes or pydantic's private-name rules.
        fields[f"p{index}"] = (Annotated[annotation, Field(alias=param.name)], default)
    try:
        model = create_model(f"{name}_arguments", **fields)
        schema = model.model_json_schema(by_alias=True, schema_generator=_NoAutoTitles)
    except Exception as exc:
        raise ValueError(
            f"tool {name!r}: cannot build a JSON Schema from the signature of {function!r}: {exc}"
        ) from exc
    schema.pop("title", None)
    doc = inspect.getdoc(function)
    return _Tool(name, _description(doc), schema, function)


def _is_model_class(item: Any) -> bool:
    return isinstance(item, type) and issubclass(item, BaseModel)


def _from_item(item: Any, where: str) -> _Tool:
    if isinstance(item, Mapping):
        return _from_dict(item, where)
    if _is_model_class(item):
        return _from_model(item)
    if callable(item):
        return _from_callable(item)
    raise ValueError(
        f"tool definition {where} is not supported: {item!r} (expected an OpenAI or Anthropic tool dict, "
        "a pydantic model class, or a function)"
    )


def _looks_like_single_definition(tools: Mapping[str, Any]) -> bool:
    """A lone tool dict passed where a collection was expected (rather than a name -> schema mapping)."""
    return isinstance(tools.get("name"), str) or (
        tools.get("type") == "function" and isinstance(tools.get("function"), Mapping)
    )


def _from_mapping(tools: Mapping[str, Any]) -> list[_Tool]:
    out = []
    for name, value in tools.items():
        _require_name(name, f"key {name!r}")
        if _is_model_class(value):
            out.append(_from_model(value, name))
        elif isinstance(value, Mapping) and ("parameters" in value or "input_schema" in value):
            out.append(_from_dict({**value, "name": value.get("name", name)}, f"key {name!r}"))
        elif isinstance(value, Mapping):
            out.append(_Tool(name, _description(value.get("description")), dict(value)))
        elif callable(value):
            out.append(_from_callable(value, name))
        else:
            raise ValueError(f"tool {name!r}: expected a JSON Schema dict, got {value!r}")
    return out


# --------------------------------------------------------------------------- ToolSet


class ToolSet:
    """An immutable allowlist of tools with their argument schemas and shared, precompiled validators."""

    __slots__ = ("_tools", "_validators", "_properties", "names")

    names: frozenset[str]

    def __init__(self, tools: Iterable[Any] | Mapping[str, Any]) -> None:
        if isinstance(tools, (str, bytes)):
            raise ValueError(f"tools must be a list of tool definitions, got the string {tools!r}")
        if _is_model_class(tools) or (callable(tools) and not isinstance(tools, Iterable)):
            tools = [tools]  # a lone model or function
        if isinstance(tools, Mapping):
            items = [_from_dict(tools, "#0")] if _looks_like_single_definition(tools) else _from_mapping(tools)
        else:
            try:
                iterator = iter(tools)
            except TypeError:
                raise ValueError(f"tools must be a list of tool definitions, got {tools!r}") from None
            items = [_from_item(item, f"#{i}") for i, item in enumerate(iterator)]

        self._tools: dict[str, _Tool] = {}
        self._validators: dict[str, Validator] = {}
        self._properties: dict[str, dict[str, Any]] = {}
        for tool in items:
            if tool.name in self._tools:
                raise ValueError(f"duplicate tool name {tool.name!r}")
            self._add(tool)
        self.names = frozenset(self._tools)

    def _add(self, tool: _Tool) -> None:
        name, schema = tool.name, tool.parameters
        if not isinstance(schema, Mapping):
            raise ValueError(f"tool {name!r}: parameters must be a JSON Schema object, got {schema!r}")
        schema = _standard_type_names(schema)
        try:
            key = _canonical_json(schema)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"tool {name!r}: parameters are not JSON-serialisable: {exc}") from exc
        # Our own deep copy (in the caller's key order, which the model sees in ``openai_tools()``):
        # a caller mutating their dict later must not desynchronise schema and cache.
        schema = json.loads(json.dumps(schema))
        problem = shape_problem(schema)
        if problem is not None:
            raise ValueError(f"tool {name!r}: invalid JSON Schema at {_render_path(problem[0])}: {problem[1]}")
        validator = lazy_validator(schema, key, _validator_for, _render_path)  # compiled on first use
        for ref in _local_refs(schema):
            try:
                _resolve_pointer(schema, ref)
            except LookupError:
                raise ValueError(f"tool {name!r}: $ref {ref!r} does not resolve inside the schema") from None
        if not _allows_object(schema):
            raise ValueError(
                f"tool {name!r}: parameters must be an object schema (arguments are a JSON object), "
                f"got type {schema.get('type')!r}"
            )
        self._tools[name] = _Tool(name, tool.description, schema, tool.function, tool.model)
        self._validators[name] = cast(Validator, validator)
        props = schema.get("properties")
        self._properties[name] = (
            {k: _deref_shallow(schema, v) for k, v in props.items()} if isinstance(props, dict) else {}
        )

    @classmethod
    def from_any(cls, tools: ToolSet | Iterable[Any] | Mapping[str, Any] | None) -> ToolSet | None:
        """Normalise the ``tools=`` option. ``None`` or an empty collection means: no allowlist."""
        if tools is None or isinstance(tools, ToolSet):
            return tools
        if isinstance(tools, Mapping):
            return cls(tools) if tools else None
        if isinstance(tools, (str, bytes)):
            raise ValueError(f"tools must be a list of tool definitions, got the string {tools!r}")
        if _is_model_class(tools) or callable(tools):
            return cls(tools)
        if not isinstance(tools, (list, tuple)):
            try:
                tools = list(tools)  # materialise generators once
            except TypeError:
                raise ValueError(f"tools must be a list of tool definitions, got {tools!r}") from None
        return cls(tools) if tools else None

    # ------------------------------------------------------------------ queries

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __repr__(self) -> str:
        return f"ToolSet({sorted(self._tools)!r})"

    def parameters(self, name: str) -> dict[str, Any]:
        """A copy of the tool's (object) JSON Schema. ``KeyError`` for an undeclared name."""
        return copy.deepcopy(self._tools[name].parameters)

    def description(self, name: str) -> str | None:
        return self._tools[name].description

    def property_schema(self, name: str, key: str) -> dict[str, Any] | None:
        """The schema of argument ``key`` of tool ``name`` with local ``$ref`` resolved (also inside
        anyOf/oneOf/allOf), or None when the tool or the key is undeclared. Shared: do not mutate."""
        props = self._properties.get(name)
        if props is None:
            return None
        schema = props.get(key)
        return schema if isinstance(schema, dict) else None

    def validate(self, name: str, arguments: dict[str, Any]) -> str | None:
        """None when ``arguments`` satisfy the tool's schema; else one detail, e.g.
        ``"$.minutes: 'four' is not of type 'integer'"``. Never raises, never fills defaults."""
        validator = self._validators.get(name)
        if validator is None:
            return f"$: unknown tool {name!r}"
        if surely_valid(validator, arguments):  # the compiled pre-check (schema_fast); none for a bad schema
            return None
        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
        except Exception as exc:  # e.g. a remote $ref or a pathological recursion: fail closed
            return f"$: the schema could not be evaluated ({type(exc).__name__}: {_truncate(str(exc), 120)})"
        if error is None:
            return None
        return f"{_render_path(error.absolute_path)}: {_truncate(error.message)}"

    def model_for(self, name: str) -> type[BaseModel] | None:
        """The pydantic model class behind ``name`` when the tool was given as one (``ToolCall.parsed``)."""
        tool = self._tools.get(name)
        return tool.model if tool is not None else None

    def callable_for(self, name: str) -> Callable[..., Any] | None:
        """The Python function behind ``name`` when the tool was given as one (for early dispatch)."""
        tool = self._tools.get(name)
        return tool.function if tool is not None else None

    def openai_tools(self) -> list[dict[str, Any]]:
        """Every tool as an OpenAI chat-completions tool definition (fresh copies)."""
        out = []
        for tool in self._tools.values():
            function: dict[str, Any] = {"name": tool.name}
            if tool.description:
                function["description"] = tool.description
            function["parameters"] = copy.deepcopy(tool.parameters)
            out.append({"type": "function", "function": function})
        return out
