"""``streamparse serve``: check the options, set up logging, run uvicorn (one process or ``--workers``)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .logs import setup_logging
from .options import ENV_OPTIONS, check_not_self, from_args

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    # The `cli` extra's modules, imported here by name: an app module loaded earlier must not hide that one
    # is missing (the CLI turns ModuleNotFoundError into a one-line hint).
    import httpx  # noqa: F401
    import starlette  # noqa: F401
    import uvicorn

    from .app import create_app
    from .deadline import server_settings

    try:
        options = from_args(args)  # a missing --api-key-file: now
        check_not_self(args.upstream, args.host, args.port)
        app = create_app(args.upstream, options=options)  # unusable upstream URL or format name: now
    except ValueError as exc:
        print(f"streamparse serve: {exc}", file=sys.stderr)
        return 2
    setup_logging(args.log_level)
    if args.workers > 1:
        os.environ[ENV_OPTIONS] = json.dumps(
            {"upstream": args.upstream, "options": options.to_json(), "log_level": args.log_level}
        )
        uvicorn.run(
            "streamparse.server.app:app_from_env",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_level=args.log_level,
            **server_settings(options),
        )
    else:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, **server_settings(options))
    return 0
