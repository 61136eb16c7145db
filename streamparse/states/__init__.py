"""Shared building blocks the formats are made of: JSON call bodies, tag/parameter bodies, sections, value
coercion, the text scope (reasoning, code fences, control tokens) and the start scope with its gates. No
format is named here (see docs/ENGINE.md, "Layers")."""
