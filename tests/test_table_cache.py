"""Parser tables are cached per configuration (``config.tables``): a process that cycles through every
format of the catalog (a proxy serving each model, make bench's section 4) builds each one's tables once,
not once per parser (an LRU smaller than the cycle evicts exactly the configuration asked for next)."""

from __future__ import annotations

from streamparse import StreamParser, config
from streamparse import formats as catalog


def test_every_catalog_format_in_turn_builds_its_tables_once() -> None:
    names = list(catalog.names())
    config.tables.cache_clear()
    for _ in range(2):
        for name in names:
            StreamParser(formats=[name])
    info = config.tables.cache_info()
    assert info.misses == len(names)  # the second turn found every one
    assert info.hits >= len(names)
