"""The benchmark harness's own logic (benchmarks/*.py, ``make bench``): its verdicts, what it counts and
what it runs. No test here measures or asserts a time: the verdicts are fed the CPU seconds a run would
have measured."""

from __future__ import annotations

import gc
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


patho = _load("pathological")
run = _load("run")
bench = _load("bench")


def test_linear_halves_pass() -> None:
    assert patho.linearity(1.0, 1.05, 2.1) == []


def test_a_second_half_three_times_the_first_is_not_linear() -> None:
    assert patho.linearity(1.0, 3.0, 4.0) == ["2nd half 3.0x the 1st"]


def test_a_slow_second_half_that_doubles_with_the_size_is_one_time_work_at_the_end() -> None:
    assert patho.linearity(1.0, 2.5, 3.5, doubling=2.1) == []


def test_a_slow_second_half_that_quadruples_with_the_size_is_not_linear() -> None:
    assert patho.linearity(1.0, 2.5, 3.5, doubling=4.0) == ["2nd half 2.5x the 1st, x4.0 at 2x size"]


def test_runs_too_short_to_time_are_never_judged() -> None:
    assert patho.linearity(0.01, 0.05, 0.06) == []


def test_one_feed_past_its_budget_is_not_linear() -> None:
    assert patho.linearity(1.0, 1.0, None) == ["one feed over its budget of 6.0s"]


def test_one_feed_much_slower_than_the_chunked_run_is_not_linear() -> None:
    assert patho.linearity(1.0, 1.0, 4.5) == ["one feed 2.2x the chunked run"]
    assert patho.linearity(0.05, 0.05, 0.4) == []  # under half a second: noise


def test_the_budget_is_a_multiple_of_the_chunked_run_with_a_floor() -> None:
    assert patho.budget_for(2.0) == 6.0
    assert patho.budget_for(0.01) == 1.0


def test_the_budget_signal_is_not_an_exception_the_parser_could_swallow() -> None:
    assert not issubclass(patho.OverBudget, Exception)


@pytest.mark.parametrize(
    ("case", "outcome"),
    [("nested", "calls=0 rejected=1 malformed"), ("one_string", "calls=1 rejected=0")],
)
def test_the_outcome_column_counts_the_timed_runs_events(case: str, outcome: str) -> None:
    _, _, counts = patho.halves(patho.CASES[case](20_000), 4096, 1, formats="auto")
    assert str(counts) == outcome


def test_spread_prints_the_median_and_the_range() -> None:
    assert run.spread([1.3, 0.9, 1.0, 1.1, 2.0]) == "1.10 (0.90-2.00)"


def test_paired_gives_one_ratio_per_round_and_case() -> None:
    calls: list[str] = []
    cases = {
        "a": (lambda: sum(range(1000)), lambda: sum(range(1000))),
        "b": (lambda: calls.append("ref") or sum(range(1000)), lambda: calls.append("fn") or sum(range(1000))),
    }
    try:
        ratios = run.paired(cases, 3)
    finally:
        gc.unfreeze()  # the harness freezes its workloads between runs: not the rest of this test session
    assert {k: len(v) for k, v in ratios.items()} == {"a": 3, "b": 3}
    assert calls == ["ref", "fn"] * 4  # one untimed warm-up, then each round the reference just before


def test_verdict_says_ok_or_missed_with_the_goal() -> None:
    assert run.verdict(1.2, 1.2) == "goal <= 1.2: ok"
    assert run.verdict(2.05, 2.0) == "goal <= 2: MISSED"


def test_the_summary_lists_the_lines_that_missed_a_goal() -> None:
    lines = [
        "   hermes 1000 1.0 2.1  goal <= 2: MISSED\n",
        "   plain text 16k / 1k tokens: 0.96  goal <= 1.2: ok\n",
        "open x  <-- NOT LINEAR: one feed over its budget of 3.0s\n",
    ]
    assert bench.misses(lines) == [lines[0].rstrip(), lines[2].rstrip()]


def test_quick_runs_every_benchmark_but_the_proxy_in_quick_mode() -> None:
    steps = bench.plan(quick=True, templates=None)
    assert [(script, flags) for script, flags, _, _ in steps] == [
        ("run.py", ["--quick"]),
        ("run.py", ["--compiled", "--quick"]),  # the same on the core compiled with mypyc
        ("pathological.py", ["--quick"]),
        ("call_memory.py", ["--quick"]),
        ("call_memory.py", ["--compiled", "--quick"]),  # the bytes a character in the build that ships
        ("derive.py", []),
    ]
    full = bench.plan(quick=False, templates="tpl")
    assert [(script, flags) for script, flags, _, _ in full][-2:] == [
        ("proxy.py", []),
        ("derive.py", ["--templates", "tpl"]),
    ]
