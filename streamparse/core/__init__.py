"""The machine: the push-based engine, the marker matcher, the look-ahead helpers every handler uses and the
incremental JSON reader. It knows no format, no scope and no configuration (see docs/ENGINE.md, "Layers")."""
