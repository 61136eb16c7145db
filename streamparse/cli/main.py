"""The ``streamparse`` command: ``demo``, ``parse``, ``formats``, ``serve``, ``template``.

Heavy optional dependencies (rich, starlette, uvicorn, httpx) are imported by the subcommand that needs
them, so ``streamparse parse`` and ``streamparse formats`` work with the core install alone.
"""

from __future__ import annotations

import argparse
import codecs
import json
import socket
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .. import COMPILED
from .._version import __version__
from ..events import Event, event_to_json
from ..parser import build_parser, describe

INPUT_KINDS = ("text", "openai-sse", "ollama", "anthropic-sse")


# --------------------------------------------------------------------------------------------------
# parse


def _read_chunks(stream: IO[bytes], chunk_size: int | None) -> Iterator[bytes]:
    if not chunk_size:
        yield stream.read()
        return
    while True:
        piece = stream.read(chunk_size)
        if not piece:
            return
        yield piece


class _Decoded:
    """UTF-8 decoding of the input, counting the bytes that were not UTF-8 (replaced by U+FFFD, once
    reported) and whether anything but whitespace came in."""

    def __init__(self) -> None:
        self.replaced = 0
        self.seen_text = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")

    def __call__(self, chunks: Iterator[bytes]) -> Iterator[str]:
        for chunk in chunks:
            text = self._decode(chunk, False)
            if text:
                yield text
        tail = self._decode(b"", True)
        if tail:
            yield tail

    def _decode(self, data: bytes, final: bool) -> str:
        out: list[str] = []
        while True:
            try:
                out.append(self._decoder.decode(data, final))
                break
            except UnicodeDecodeError as exc:  # count, replace, go on after the bad bytes
                out.append(exc.object[: exc.start].decode("utf-8") + "\ufffd")
                self.replaced += exc.end - exc.start
                self._decoder.reset()
                data = exc.object[exc.end :]
        text = "".join(out)
        if not self.seen_text and text.strip():
            self.seen_text = True
        return text


def _load_tools(path: str | None) -> Any:
    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"--tools {path}: {exc}") from None
    if isinstance(data, dict) and "tools" in data:  # a whole request body works too
        data = data["tools"]
    if not isinstance(data, list):
        raise ValueError(f"--tools {path}: expected a JSON list of tool definitions (or an object with 'tools')")
    return data


def _build(args: argparse.Namespace) -> Any:
    options: dict[str, Any] = {}
    tools = _load_tools(args.tools)
    if tools is not None:
        options["tools"] = tools
    if args.keep_separators:
        options["separators"] = "keep"
    try:
        parser = build_parser(args.model, args.format, **options)
    except ValueError as exc:
        if tools is not None and "unknown format" not in str(exc):
            raise ValueError(f"--tools {args.tools}: {exc}") from None  # a bad definition: name the file
        raise
    if args.model and args.format is None and parser.preset is not None and not parser.preset.matched:
        print(f"streamparse parse: no preset for model {args.model!r}: using formats=auto", file=sys.stderr)
    return parser


def _events(args: argparse.Namespace, stream: IO[bytes], decoded: _Decoded) -> Iterator[Event]:
    parser = _build(args)
    chunks = decoded(_read_chunks(stream, args.chunk_size))
    if args.input == "text":
        for chunk in chunks:
            yield from parser.feed(chunk)
        yield from parser.close()
        return
    from .. import providers

    if args.input == "openai-sse":
        reader: Any = providers.OpenAISSEReader()
        yield from providers.openai_sse_events(chunks, parser=parser, reader=reader)
    elif args.input == "ollama":
        reader = providers.OllamaNDJSONReader()
        yield from providers.ollama_ndjson_events(chunks, parser=parser, reader=reader)
    else:
        reader = providers.AnthropicSSEReader()
        yield from providers.anthropic_sse_events(chunks, parser=parser, reader=reader)
    if decoded.seen_text and not reader.payloads:
        raise ValueError(
            f"the input is not a {args.input} stream (no event in it); for plain model output use --input text"
        )


def cmd_parse(args: argparse.Namespace, out: IO[str]) -> int:
    if args.chunk_size is not None and args.chunk_size < 1:
        print("streamparse parse: --chunk-size must be at least 1", file=sys.stderr)
        return 2
    from ..providers.base import ProviderError

    src: IO[bytes]
    if args.file == "-":
        src = sys.stdin.buffer
    else:
        try:
            src = open(args.file, "rb")  # noqa: SIM115 - closed below, after the generator is drained
        except OSError as exc:
            print(f"streamparse parse: {exc}", file=sys.stderr)
            return 1
    decoded = _Decoded()
    try:
        for ev in _events(args, src, decoded):
            out.write(event_to_json(ev) + "\n")
    except (ValueError, OSError, ProviderError) as exc:  # unknown format, bad tools file, upstream error
        out.flush()
        hint = " (`streamparse formats` lists them)" if "unknown format" in str(exc) else ""
        print(f"streamparse parse: {exc}{hint}", file=sys.stderr)
        return 1
    finally:
        if src is not sys.stdin.buffer:
            src.close()
        if decoded.replaced:
            print(
                f"streamparse parse: the input is not valid UTF-8: {decoded.replaced} byte(s) replaced by U+FFFD",
                file=sys.stderr,
            )
    out.flush()
    return 0


# --------------------------------------------------------------------------------------------------
# formats


def _one_line(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def cmd_formats(args: argparse.Namespace, out: IO[str]) -> int:
    from .. import formats

    names = formats.names()
    width = max(len(n) for n in names) + 2
    for name in names:
        info = describe(name)
        if args.long:
            out.write(f"{name}\n  models:     {info['models']}\n  delimiters: {_one_line(info['delimiters'])}\n")
            out.write(f"  example:    {_one_line(info['example'])}\n")
            for call in info["parses_to"]:
                out.write(f"  parses to:  {call['name']} {json.dumps(call['arguments'], ensure_ascii=False)}\n")
            if info.get("opt_in"):
                out.write("  opt-in:     not part of formats='auto'\n")
        else:
            out.write(f"{name:<{width}}{_one_line(info['example'])}\n")
    return 0


# --------------------------------------------------------------------------------------------------
# demo


def cmd_demo(args: argparse.Namespace, out: IO[str]) -> int:
    from .demo import find_recording, load_recordings, run_demo

    if args.list:
        for rec in load_recordings():
            out.write(f"{rec.name:<15}{rec.model:<36}{rec.title}\n")
        return 0
    try:
        rec = find_recording(model=args.model, name=args.recording)
    except LookupError as exc:
        print(f"streamparse demo: {exc}", file=sys.stderr)
        return 2
    run_demo(rec, speed=args.speed, plain=True if args.plain else None, out=out)
    return 0


# --------------------------------------------------------------------------------------------------
# serve


def port_in_use(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (bound the way uvicorn binds it), or None when it can."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        return str(exc)
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def _check_port(command: str, host: str, port: int) -> bool:
    problem = port_in_use(host, port)
    if problem is not None:
        print(
            f"streamparse {command}: cannot listen on {host}:{port} ({problem}): choose another --port", file=sys.stderr
        )
    return problem is None


def cmd_serve(args: argparse.Namespace, out: IO[str]) -> int:
    from ..server.serve import run

    return run(args)


def cmd_playground(args: argparse.Namespace, out: IO[str]) -> int:
    from ..playground import serve

    if not _check_port("playground", args.host, args.port):
        return 2  # before the URL is printed: nothing would answer there
    serve(args.host, args.port)
    return 0


def _template(args: argparse.Namespace, out: IO[str]) -> int:
    from .template import cmd_template

    return cmd_template(args, out)


# --------------------------------------------------------------------------------------------------


def make_argparser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="streamparse",
        description="Parse LLM output while it streams: visible text, reasoning and tool calls.",
    )
    build = "compiled core" if COMPILED else "pure Python"  # which build runs, for bug reports
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__} ({build})")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="replay a bundled model stream live, dispatching its tool calls")
    demo.add_argument("--speed", type=float, default=1.0, help="replay speed factor; 0 = no delays")
    demo.add_argument("--model", help="model family or id to pick the recording (qwen3, qwen3-coder, kimi, ...)")
    demo.add_argument("--recording", help="recording name (see --list)")
    demo.add_argument("--plain", action="store_true", help="plain line-oriented output (default when not a TTY)")
    demo.add_argument("--list", action="store_true", help="list the bundled recordings")

    prs = sub.add_parser("parse", help="parse a file (or - for stdin) to events as JSON lines")
    prs.add_argument("file", help="input file, or - for stdin")
    prs.add_argument("--format", action="append", metavar="NAME", help="format name (repeatable); default auto")
    prs.add_argument("--model", metavar="ID", help="model id: use its preset (formats, primed reasoning)")
    prs.add_argument("--tools", metavar="FILE.json", help="OpenAI-style tool definitions to validate against")
    prs.add_argument("--chunk-size", type=int, metavar="N", help="feed N bytes at a time (default: all at once)")
    prs.add_argument("--input", choices=INPUT_KINDS, default="text", help="what the file holds (default: text)")
    prs.add_argument(
        "--keep-separators",
        action="store_true",
        help="keep the whitespace templates write around markup in content and reasoning (default: dropped)",
    )

    fmts = sub.add_parser("formats", help="list the format catalog with a one-line example each")
    fmts.add_argument("--long", action="store_true", help="models, delimiters and parsed result too")

    srv = sub.add_parser("serve", help="OpenAI-compatible proxy that turns text tool calls into tool_calls")
    from ..server.options import add_arguments

    add_arguments(srv)

    tpl = sub.add_parser("template", help="derive a model's format from its chat template (file or model folder)")
    from .template import add_arguments as template_arguments

    template_arguments(tpl)

    pg = sub.add_parser("playground", help="a local page: paste model output, replay it, watch what the parser decides")
    pg.add_argument("--host", default="127.0.0.1")
    pg.add_argument("--port", type=int, default=8765)
    return ap


_COMMANDS = {
    "demo": cmd_demo,
    "parse": cmd_parse,
    "formats": cmd_formats,
    "serve": cmd_serve,
    "playground": cmd_playground,
    "template": _template,
}


# Third-party modules that only the `cli` extra installs: a command that needs one says which extra to add.
CLI_EXTRA_MODULES = frozenset({"rich", "httpx", "httpx_sse", "starlette", "uvicorn"})


def missing_extra_message(command: str, exc: ModuleNotFoundError) -> str | None:
    """The one line to print when ``command`` failed for want of a `cli`-extra module (else None)."""
    top = (exc.name or "").partition(".")[0]
    if top not in CLI_EXTRA_MODULES:
        return None
    return f"streamparse {command}: needs the 'cli' extra ({top} is not installed): pip install 'streamparse-llm[cli]'"


def main(argv: Sequence[str] | None = None) -> int:
    args = make_argparser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args, sys.stdout)
    except ModuleNotFoundError as exc:
        message = missing_extra_message(args.command, exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2
    except BrokenPipeError:  # `streamparse parse big.txt | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
