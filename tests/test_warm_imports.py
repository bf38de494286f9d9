"""What a command imports before it answers, held by the module set rather than a time (docs/perf.md has the
times): `ttinspect --help` and a warm `dump` import only what they need — no command's module but their own, no
capture machinery, no triton, torch, rich or pygments — and a GPU command on a machine without a GPU says so
before importing torch or compiling anything.

A new import on one of these paths fails here with the module's name: make it lazy (an import inside the
function, with a comment saying what it keeps off the warm path), or, if the warm path really needs it, add it
to the allow-list below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ttinspect.cli.main import COMMAND_MODULES, cli

# Runs the CLI and prints, as JSON on the last line of stderr, the modules it imported beyond those Python's
# start-up had (site hooks differ from one environment to the next).
_PROBE = """
import json, sys
before = set(sys.modules)
try:
    from ttinspect.cli.main import main
    sys.argv = ["ttinspect", *sys.argv[1:]]
    main()
finally:
    sys.stderr.write("\\n" + json.dumps(sorted(set(sys.modules) - before)) + "\\n")
"""

# Shared by every command: the group, its error handling, the lazy command table, the process's own exit.
START = {
    "ttinspect", "ttinspect.cli", "ttinspect.cli.app", "ttinspect.cli.common", "ttinspect.cli.completion",
    "ttinspect.cli.help_text", "ttinspect.cli.lazy_commands", "ttinspect.cli.main", "ttinspect.cli.reader_left",
    "ttinspect.errors", "ttinspect.files", "ttinspect.files.import_limit", "ttinspect.files.terminal_text",
    "ttinspect.refs", "ttinspect.refs.leftover_children", "ttinspect.refs.leftover_threads", "ttinspect.render",
    "ttinspect.render.term",
}

# A warm `dump matmul_opt --stage ptx`: its command module, the resolver and the reference grammar, the store,
# the build's artifacts read back, the PTX printed (into a pipe: no highlighting library).
WARM_DUMP = START | {
    "ttinspect.caches", "ttinspect.caches.store", "ttinspect.caches.winners", "ttinspect.ci", "ttinspect.ci.model",
    "ttinspect.cli.inspect_cmds", "ttinspect.dialects", "ttinspect.dialects.operands", "ttinspect.dialects.stages",
    "ttinspect.engine", "ttinspect.engine.artifacts", "ttinspect.engine.builds", "ttinspect.engine.tools",
    "ttinspect.files.outputs", "ttinspect.files.source_files", "ttinspect.kernel", "ttinspect.kernel.argument_types",
    "ttinspect.kernel.arguments", "ttinspect.kernel.catalog", "ttinspect.kernel.options", "ttinspect.kernel.overrides",
    "ttinspect.kernel.specialize", "ttinspect.kernel.variants", "ttinspect.refs.captured",
    "ttinspect.refs.device_props", "ttinspect.refs.failed", "ttinspect.refs.kinds", "ttinspect.refs.loading",
    "ttinspect.refs.import_errors",  # where an import failed (loading.py reports it): a few regexes
    "ttinspect.refs.release_suffix",  # the reference parser's `@triton=X` (resolver.py reads every reference)
    # whether this process is a toolchain's worker, asked of the environment where a package is looked up: a few
    # lines each, no third party (a worker imports the caller's packages first)
    "ttinspect.refs.caller_packages", "ttinspect.toolchains", "ttinspect.toolchains.worker_env",
    "ttinspect.refs.memo", "ttinspect.refs.packages", "ttinspect.refs.reference", "ttinspect.refs.resolver",
    "ttinspect.refs.userfile", "ttinspect.render.highlight", "ttinspect.targets", "ttinspect.targets.amd",
    "ttinspect.targets.device_limits", "ttinspect.targets.lookup", "ttinspect.targets.nvidia",
    "ttinspect.targets.releases", "ttinspect.virtual", "ttinspect.virtual.overrides",
    "ttinspect.cli.device_options",  # diff's --device/--device-profile options: click and errors only
    "ttinspect.refs.module_kernels", "ttinspect.refs.package_names",  # the file loader's kinds and names: stdlib
}

# The packages outside Python's standard library each path may import (ttinspect_kernels: the shipped variants).
THIRD_PARTY = {"help": {"click", "ttinspect"}, "dump": {"click", "ttinspect", "ttinspect_kernels"}}
NEVER_WARM = {"triton", "torch", "rich", "pygments", "numpy"}


def imported(args: list[str], cache: os.PathLike | str) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, TTINSPECT_CACHE_DIR=str(cache), NO_COLOR="1", COLUMNS="100")
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env,
                          timeout=600)
    return done, set(json.loads(done.stderr.strip().splitlines()[-1]))


def third_party(modules: set[str]) -> set[str]:
    return {m.partition(".")[0] for m in modules} - set(sys.stdlib_module_names)


def assert_within(modules: set[str], allowed: set[str], third: set[str], what: str) -> None:
    extra = sorted(m for m in modules if m.startswith("ttinspect.") and m not in allowed)
    assert not extra, f"{what} now imports {', '.join(extra)}: make it lazy, or allow it in this test"
    outside = sorted(third_party(modules) - third)
    assert not outside, f"{what} now imports the package(s) {', '.join(outside)}"
    assert not NEVER_WARM & third_party(modules)


def test_help_imports_no_command_module(tmp_path):
    done, modules = imported(["--help"], tmp_path)
    assert done.returncode == 0 and "versions" in done.stdout, done.stderr
    assert_within(modules, START, THIRD_PARTY["help"], "`ttinspect --help`")
    assert not any(m.endswith(("_cmd", "_cmds")) for m in modules), sorted(modules)


def test_warm_dump_imports_only_its_path(tmp_path):
    args = ["dump", "matmul_opt", "--stage", "ptx"]
    cold, _ = imported(args, tmp_path)  # compiles once into the test's own cache
    assert cold.returncode == 0, cold.stderr
    warm, modules = imported(args, tmp_path)
    assert warm.returncode == 0 and warm.stdout == cold.stdout, warm.stderr
    assert_within(modules, WARM_DUMP, THIRD_PARTY["dump"], "a warm `ttinspect dump matmul_opt --stage ptx`")
    assert not any(m.startswith("ttinspect.capture") for m in modules)  # the capture machinery, by name
    commands = {m for m in modules if m.startswith("ttinspect.cli.") and m.endswith(("_cmd", "_cmds"))}
    assert commands == {"ttinspect.cli.inspect_cmds"}


def test_every_command_comes_from_its_module_in_the_table():
    """cli/main.py's table names each command's module; a module that registers a command the table lacks
    (so `--help` would not list it until loaded) fails here."""
    import importlib

    for module in set(COMMAND_MODULES.values()):
        importlib.import_module(module)
    assert set(cli.commands) == set(COMMAND_MODULES)
    for name, module in COMMAND_MODULES.items():
        assert cli.commands[name].callback.__module__ == module, name


GPU_COMMANDS = [["bench", "opt"], ["profile", "opt"], ["ladder"], ["ladder", "--profile"], ["autotune", "opt"]]


@pytest.mark.parametrize("args", GPU_COMMANDS, ids=" ".join)
def test_gpu_command_refuses_before_any_work(args, tmp_path):
    """Without a GPU driver to load, the refusal comes before torch is imported or anything is compiled."""
    from ttinspect.gpu.presence import gpu_driver_present

    if gpu_driver_present():
        pytest.skip("a GPU driver is here: torch decides")
    cache = tmp_path / "cache"
    done, modules = imported(args, cache)
    assert done.returncode == 5, done.stderr
    assert done.stderr.strip().splitlines()[0] in (
        "ttinspect: error: needs a CUDA GPU; dump/report/diff work without one",
        "ttinspect: error: needs a CUDA GPU and torch; dump/report/diff work without one")
    assert not {"torch", "triton"} & third_party(modules), sorted(third_party(modules))
    work = sorted(m for m in modules if m.startswith(("ttinspect.gpu.tuning", "ttinspect.gpu.bench",
                                                       "ttinspect.compile", "ttinspect.report", "ttinspect.compare")))
    assert not work, work
    assert not cache.exists() or not any(cache.iterdir())  # nothing compiled, nothing stored
