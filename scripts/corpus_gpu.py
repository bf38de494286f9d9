"""On a CUDA GPU: every sm_90 corpus entry launched once for real, its PTX (what the launch wrote into
Triton's cache) compared byte for byte with ttinspect's offline PTX for the same launch (docs/corpus.md).

    python scripts/corpus_gpu.py --wheels WHEELS/          # on the GPU machine (no network); results in $OUT
    python scripts/corpus_gpu.py --download-wheels WHEELS/ --python-version 3.12   # beforehand, with PyPI

Per entry, in a process of its own (a crash or a hang is that entry's row, not the run's end):
1. the library is imported from the wheels (installed into a folder of their own, never over the machine's
   packages), the kernel launched through its own object with real CUDA tensors of the call site's shapes
   (zeros: every index is valid), the call site's scalars and constexprs, and its grid, with TRITON_CACHE_DIR a
   fresh folder;
2. the PTX files the launch wrote for that kernel are read from that folder (an autotuned kernel's launch
   compiles every config it tries: the one the autotuner chose is the one compared);
3. `python -m ttinspect dump REF --all --out DIR --arch sm_90 ...` compiles the same launch offline, in caches of
   its own, and its PTX must be one of the launch's, byte for byte.
$OUT/corpus_gpu.json holds one row per entry (identical / differs at line N / failed, with the reason) and the
machine (GPU, driver, torch, Triton). Without a GPU it says so in one line and exits 5.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))  # the manifest reader lives beside the manifest

from corpus_manifest import Entry, Tensor, api_config, cli_words, load, python_value, real_tensor, reference  # noqa: E402

from ttinspect.kernel.options import OPTION_KEYS  # noqa: E402 - a launch's options, as ttinspect names them

TARGET = "sm_90"
EXIT_NO_GPU, EXIT_USAGE = 5, 2


def pinned() -> list[str]:
    """The pinned libraries and the small packages they import: pyproject's `corpus` extra."""
    import tomllib  # Python >= 3.11: the GPU machine's 3.12, and only when wheels are made

    with (ROOT / "pyproject.toml").open("rb") as handle:
        return list(tomllib.load(handle)["project"]["optional-dependencies"]["corpus"])


class LaunchFault(Exception):
    """The launch itself failed (after its compile): the entry is compiled again by `warmup`."""


class Refusal(Exception):
    """One line for the user, and the exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


# --- pure parts (tested on the CPU: tests/test_corpus.py) ----------------------------------------------------

def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def grid_function(expression: str) -> Callable[[dict[str, Any]], tuple]:
    """The manifest's grid expression as the callable a launch takes: evaluated over the launch's arguments
    and chosen config (Triton passes them as one mapping) with `cdiv`."""
    code = compile(expression, "<grid>", "eval")

    def grid(meta: dict[str, Any]) -> tuple:
        value = eval(code, {"cdiv": cdiv, "__builtins__": {}}, dict(meta))
        return tuple(value) if isinstance(value, (tuple, list)) else (value,)

    return grid


def launch_kwargs(entry: Entry, device: str) -> dict[str, Any]:
    """The arguments by name, tensors real (zeros) on `device`, and the call site's constexprs and options."""
    kwargs: dict[str, Any] = {}
    for name, value in entry.args_for(TARGET).items():
        kwargs[name] = real_tensor(value, device).zero_() if isinstance(value, Tensor) else python_value(value)
    kwargs.update(api_config(entry, TARGET))
    return kwargs


def leading_arguments(parameters: list[str], kwargs: dict[str, Any], tuned: frozenset[str] = frozenset(),
                      first_keyword: str | None = None) -> list[Any]:
    """Every leading parameter the call site gives — runtime arguments and its own constexprs alike — is taken
    out of `kwargs` and passed by position, as a library's call site passes them: an autotuner's pruner sees
    only those in `nargs` (gemlite's gemv pruner reads its constexprs there), and the rest as its keyword
    arguments (its gemm pruner reads `load_scales_as_block` there). The first parameter not given, one the
    autotuner's configs set (passing it would conflict with them), or the manifest's `first_keyword` (the
    first the call site passes by keyword) ends the run."""
    positional = []
    for name in parameters:
        if name not in kwargs or name in tuned or name == first_keyword:
            break
        positional.append(kwargs.pop(name))
    return positional


def autotuner_of(kernel: Any) -> Any:
    """The autotuner under a kernel's wrappers (heuristics, flag-gems' LibEntry), or None."""
    obj = kernel
    while obj is not None and not hasattr(obj, "configs"):
        obj = getattr(obj, "fn", None)
    return obj


def tuned_keys(kernel: Any) -> frozenset[str]:
    """The names an autotuner's configs set (none for a kernel that is not autotuned)."""
    return frozenset(k for c in getattr(autotuner_of(kernel), "configs", ()) or () for k in getattr(c, "kwargs", {}))


def launched_ptx(cache_dir: Path, kernel_name: str) -> dict[str, str]:
    """Every PTX file Triton's cache holds for `kernel_name` (the cache names a kernel's files after it):
    {path relative to the cache: text}."""
    return {str(path.relative_to(cache_dir)): path.read_text()
            for path in sorted(cache_dir.rglob(f"{kernel_name}.ptx")) if path.is_file()}


def compare(offline: str, launched: dict[str, str]) -> dict[str, Any]:
    """Whether the offline PTX is, byte for byte, one the launch wrote; else where it parts from the closest."""
    if not launched:
        return {"status": "failed", "reason": "the launch wrote no PTX for this kernel into Triton's cache"}
    for where, text in launched.items():
        if text == offline:
            return {"status": "identical", "launch_ptx": where}
    best = None
    for where, text in launched.items():
        a, b = offline.splitlines(), text.splitlines()
        line = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        if best is None or line > best[0]:
            best = (line, where, a[line:line + 1], b[line:line + 1])
    assert best is not None
    line, where, ours, theirs = best
    return {"status": "differs", "launch_ptx": where,
            "reason": f"first difference at line {line + 1}: offline {ours} vs launch {theirs}"}


def autotune_choice(kernel: Any) -> int | Any | None:
    """The config the autotuner chose in the launch: its 1-based number among the listed configs (by identity,
    else by equal settings), the chosen Config itself when a pruner made it (it is in no list), None when the
    kernel is not autotuned or nothing was chosen."""
    obj = autotuner_of(kernel)
    best = getattr(obj, "best_config", None) if obj is not None else None
    if best is None:
        return None
    for number, config in enumerate(obj.configs, 1):
        if config is best or _settings(config) == _settings(best):
            return number
    return best


def _settings(config: Any) -> tuple:
    return (sorted(getattr(config, "kwargs", {}).items()), *(getattr(config, k, None) for k in OPTION_KEYS))


def config_words(chosen: int | Any) -> list[str]:
    """How `ttinspect dump` is told the config the launch ran: `--config N`, or every value of a Config a
    pruner made (`--set KEY=VALUE` each; it has no number in the kernel's list)."""
    if isinstance(chosen, int):
        return ["--config", str(chosen)]
    values = dict(getattr(chosen, "kwargs", {}))
    values.update({k: getattr(chosen, k) for k in OPTION_KEYS if getattr(chosen, k, None) is not None})
    return [word for k, v in values.items() for word in ("--set", f"{k}={v}")]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    compared = [r for r in rows if r["status"] in ("identical", "differs")]
    return {"entries": len(rows), "compared": len(compared),
            "identical": sum(r["status"] == "identical" for r in rows),
            "differs": sum(r["status"] == "differs" for r in rows),
            "failed": sum(r["status"] == "failed" for r in rows)}


# --- the GPU parts --------------------------------------------------------------------------------------------

def require_gpu() -> None:
    try:
        import torch  # the launches need it; asked only once the options are good
    except ImportError:
        raise Refusal("corpus_gpu: needs torch with CUDA (torch is not installed)", EXIT_NO_GPU) from None
    if not torch.cuda.is_available():
        raise Refusal("corpus_gpu: needs a CUDA GPU (torch.cuda.is_available() is False); the offline corpus is "
                      "scripts/corpus.py", EXIT_NO_GPU)


def install_wheels(wheels: Path, into: Path) -> list[str]:
    """The pinned libraries from local wheels, into a folder of their own (no index, no dependency resolution:
    the machine's torch and Triton stay as they are). Each wheel on its own: one made for another Python is
    named in the result (its library's rows then fail on the import), the others still install."""
    files = sorted(p for p in wheels.iterdir() if p.suffix == ".whl")
    if not files:
        raise Refusal(f"corpus_gpu: no .whl files in {wheels} (make them with --download-wheels {wheels})")
    refused = []
    for wheel in files:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                               "--target", str(into), str(wheel)], capture_output=True, text=True)
        if done.returncode:
            refused.append(f"{wheel.name}: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return refused


def download_wheels(folder: Path, python_version: str | None) -> None:
    """Wheels of the pinned packages for the GPU machine's Python (`python_version`, e.g. 3.12; default: this
    one's): binary wheels where PyPI has them, else built here from the source (pure Python: gemlite)."""
    folder.mkdir(parents=True, exist_ok=True)
    tags = ["--python-version", python_version, "--implementation", "cp", "--platform", "manylinux_2_28_x86_64",
            "--platform", "manylinux2014_x86_64"] if python_version else []
    for requirement in pinned():
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                               "-d", str(folder), *tags, requirement], capture_output=True, text=True)
        if done.returncode:  # no wheel on PyPI: build one (a pure-Python sdist makes a py3-none-any wheel)
            done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(folder),
                                   requirement], capture_output=True, text=True)
        if done.returncode:
            raise Refusal(f"corpus_gpu: no wheel for {requirement}: "
                          f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")


def launch_parts(entry: Entry) -> tuple[Any, Any, list[Any], dict[str, Any], Callable[[dict[str, Any]], tuple]]:
    """In the child: the library's kernel object, the JITFunction under it, and the launch's positional and
    keyword arguments (tensors real, on the GPU) and grid, as the call site passes them."""
    import importlib  # the library, on the GPU machine only

    from triton.runtime.jit import JITFunction  # the kernel's own name: its cache files carry it

    kernel = getattr(importlib.import_module(entry.module), entry.name)
    jit = kernel
    while not isinstance(jit, JITFunction):  # through autotuners, heuristics, flag-gems' LibEntry
        jit = jit.fn
    kwargs = launch_kwargs(entry, "cuda")
    positional = leading_arguments(jit.arg_names, kwargs, tuned_keys(kernel), entry.first_keyword)
    return kernel, jit, positional, kwargs, grid_function(entry.grid_for(TARGET))


def run_one(entry: Entry, form: str, warmup: bool = False) -> dict[str, Any]:
    """In the child: launch (or, `warmup`, compile through the launch's own path without running: Triton's
    `warmup`, for a launch that faulted on the script's zero inputs), read the cache, compile offline, compare
    (see the module docstring)."""
    import torch  # the launch

    row: dict[str, Any] = {"id": entry.id, "kernel": entry.module_ref}
    kernel, jit, positional, kwargs, grid = launch_parts(entry)
    if warmup:
        kernel.warmup(*positional, grid=grid, **kwargs)
        row["compiled_by"] = "warmup"
    else:
        try:
            kernel[grid](*positional, **kwargs)
            torch.cuda.synchronize()
        except Exception as error:  # the kernel ran and failed: the child's row says so, and the parent retries
            raise LaunchFault(f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]}") from error
    launched = launched_ptx(Path(os.environ["TRITON_CACHE_DIR"]), jit.__name__)
    chosen = autotune_choice(kernel)
    row["autotune_config"] = chosen if chosen is None or isinstance(chosen, int) else str(chosen)
    words = cli_words(entry, TARGET)
    if chosen is not None:  # the config the launch ran, whichever the manifest names
        at = words.index("--config") if "--config" in words else None
        words = (words[:at] + words[at + 2:]) if at is not None else words
        words += config_words(chosen)
    with tempfile.TemporaryDirectory(prefix="corpus-gpu-offline-") as own:
        env = {**os.environ, "TTINSPECT_CACHE_DIR": f"{own}/ttinspect", "TRITON_CACHE_DIR": f"{own}/triton"}
        done = subprocess.run([sys.executable, "-m", "ttinspect", "dump", reference(entry, form), "--all", "--out",
                               f"{own}/stages", *words], capture_output=True, text=True, env=env, timeout=600)
        if done.returncode:
            row.update(status="failed", reason=f"ttinspect dump exit {done.returncode}: "
                                               f"{(done.stderr.strip().splitlines() or ['?'])[-1][:300]}")
            return row
        offline = Path(own, "stages", "kernel.ptx").read_text()  # the stage as stored: no header
    row.update(compare(offline, launched))
    return row


def machine() -> dict[str, Any]:
    import torch  # the GPU machine's, for the record
    import triton  # likewise

    done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                          capture_output=True, text=True)
    return {"gpu": torch.cuda.get_device_name(0), "nvidia_smi": done.stdout.strip(), "torch": torch.__version__,
            "triton": triton.__version__}


def parse_options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", type=Path, help="install the corpus libraries from the wheels in this folder")
    parser.add_argument("--download-wheels", type=Path, metavar="DIR", help="make the wheels (needs PyPI) and stop")
    parser.add_argument("--python-version", metavar="X.Y", help="with --download-wheels: the GPU machine's Python")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT", help="entries whose id contains TEXT")
    parser.add_argument("--refs", choices=("module", "file"), default="module")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per entry")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child: one entry id
    parser.add_argument("--warmup", action="store_true", help=argparse.SUPPRESS)  # the child: compile, no run
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    try:
        if options.download_wheels:
            download_wheels(options.download_wheels, options.python_version)
            print(f"corpus_gpu: wheels in {options.download_wheels}")
            return 0
        entries = [e for e in load() if TARGET in e.targets]
        if options.one:
            entry = next(e for e in entries if e.id == options.one)
            try:
                row = run_one(entry, options.refs, options.warmup)
            except Exception as error:  # the row says what went wrong
                message = (str(error).strip().splitlines() or [""])[0]
                row = {"id": entry.id, "kernel": entry.module_ref, "status": "failed",
                       "reason": message if isinstance(error, LaunchFault) else f"{type(error).__name__}: {message}",
                       **({"stage": "launch"} if isinstance(error, LaunchFault) else {})}
            print(json.dumps(row))
            return 0
        out = os.environ.get("OUT")
        if not out:
            raise Refusal("corpus_gpu: set OUT to the folder the results go to")
        require_gpu()
        return run_all(entries, options, Path(out))
    except Refusal as refusal:
        print(refusal, file=sys.stderr)
        return refusal.code


def child(entry: Entry, options: argparse.Namespace, pythonpath: str, warmup: bool) -> dict[str, Any]:
    """One entry in a process of its own, with a fresh Triton cache: its row."""
    with tempfile.TemporaryDirectory(prefix="corpus-gpu-launch-") as cache:
        env = {**os.environ, **entry.env_for(TARGET), "PYTHONPATH": pythonpath, "TRITON_CACHE_DIR": cache,
               "TTINSPECT_CACHE_DIR": f"{cache}-ttinspect"}
        try:
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one", entry.id, "--refs",
                                   options.refs, *(["--warmup"] if warmup else [])], capture_output=True, text=True,
                                  env=env, timeout=options.timeout)
        except subprocess.TimeoutExpired:
            return {"id": entry.id, "kernel": entry.module_ref, "status": "failed",
                    "reason": f"no answer in {options.timeout} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {
        "id": entry.id, "kernel": entry.module_ref, "status": "failed",
        "reason": f"exit {done.returncode}: {(done.stderr.strip().splitlines() or ['?'])[-1][:300]}"}


def run_all(entries: list[Entry], options: argparse.Namespace, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix="corpus-gpu-site-"))
    refused = install_wheels(options.wheels, site) if options.wheels else []
    pythonpath = os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")])
    rows = []
    for entry in entries:
        if options.only and not any(text in entry.id for text in options.only):
            continue
        start = time.perf_counter()
        row = child(entry, options, pythonpath, warmup=False)
        if row["status"] == "failed" and row.get("stage") == "launch":
            # the launch ran and faulted (the script's zeros as index inputs): the compile it made is still
            # what a launch compiles; Triton's warmup takes the same path without running, in a fresh process
            faulted = row["reason"]
            row = child(entry, options, pythonpath, warmup=True)
            row["launch_fault"] = faulted
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows.append(row)
        print(f"{entry.id}: {row['status']} {row.get('reason', '')}", file=sys.stderr, flush=True)
    result = {"machine": machine(), "wheels_not_installed": refused, "summary": summary(rows), "rows": rows}
    (out / "corpus_gpu.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
