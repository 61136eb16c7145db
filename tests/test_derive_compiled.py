"""Compiled chat templates kept on disk by the hash of their text (streamparse.derive.compiled): a repeat
run loads the code jinja2 compiled instead of compiling again; a directory others could write to, a
damaged file or ``off`` never changes what a template renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamparse.derive.compiled import cache_dir
from streamparse.derive.render import Renderer

TEMPLATE = (
    "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<a>{% endif %}"
)
MESSAGES = [{"role": "user", "content": "hi"}]


def test_a_template_compiled_once_is_loaded_from_disk_and_renders_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STREAMPARSE_TEMPLATE_CACHE", str(tmp_path))
    first = Renderer(TEMPLATE).render(messages=MESSAGES, add_generation_prompt=True)
    stored = list(tmp_path.glob("*.jinja2c"))
    assert len(stored) == 1
    stamp = stored[0].stat().st_mtime_ns
    again = Renderer(TEMPLATE)
    assert again.render(messages=MESSAGES, add_generation_prompt=True) == first == "<user>hi<a>"
    assert stored[0].stat().st_mtime_ns == stamp  # read, not compiled and written again
    Renderer(TEMPLATE + " ")
    assert len(list(tmp_path.glob("*.jinja2c"))) == 2  # another text, another entry


def test_a_damaged_cache_file_is_ignored_and_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAMPARSE_TEMPLATE_CACHE", str(tmp_path))
    Renderer(TEMPLATE)
    (stored,) = tmp_path.glob("*.jinja2c")
    stored.write_bytes(b"not a jinja2 bucket")
    assert Renderer(TEMPLATE).render(messages=MESSAGES) == "<user>hi"
    assert stored.read_bytes() != b"not a jinja2 bucket"


def test_a_cache_directory_others_can_write_to_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("STREAMPARSE_TEMPLATE_CACHE", str(shared))
    assert cache_dir() is None
    assert Renderer(TEMPLATE).render(messages=MESSAGES) == "<user>hi"
    assert list(shared.iterdir()) == []


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAMPARSE_TEMPLATE_CACHE", "off")
    assert cache_dir() is None
    monkeypatch.setenv("STREAMPARSE_TEMPLATE_CACHE", str(tmp_path / "new"))
    assert cache_dir() == tmp_path / "new" and (tmp_path / "new").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("cache", ["off", "dir"])
def test_the_compile_runs_with_the_cyclic_collector_paused_and_leaves_it_as_it_found_it(
    cache: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from streamparse.derive.compiled import compile_template, without_cyclic_gc

    monkeypatch.setenv("STREAMPARSE_TEMPLATE_CACHE", "off" if cache == "off" else str(tmp_path))
    seen: list[bool] = []

    class Env:  # what compile_template asks of a jinja2 environment, recording the collector's state
        def compile(self, source: str) -> object:
            seen.append(gc.isenabled())
            return compile("x = 1", "<template>", "exec")

    assert gc.isenabled()
    compile_template(Env(), TEMPLATE if cache == "off" else TEMPLATE + cache)
    assert seen == [False] and gc.isenabled()
    gc.disable()  # paused by someone else: left paused
    try:
        with without_cyclic_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ValueError), without_cyclic_gc():  # an error in the block: enabled again
        raise ValueError
    assert gc.isenabled()
