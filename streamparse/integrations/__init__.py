"""Serving-engine integrations: streamparse as vLLM's and SGLang's tool and reasoning parser.

Each engine module imports its engine lazily at the top of the module, so importing
``streamparse.integrations`` alone needs neither engine. The engine-neutral mapping from events to
per-chunk deltas lives in :mod:`streamparse.integrations.session` and is what both adapters share.
See docs/integrations.md for the recommended server setup.
"""

from __future__ import annotations

from .session import CallPiece, Piece, RequestSession, one_shot

__all__ = ["CallPiece", "Piece", "RequestSession", "one_shot"]
