"""A user's Python file as a source of kernels: `my_mm.py:matmul`, `path/to/attn.py:small`.

Loading the file runs its top-level code (the user named the file: that is explicit). Everything that
can go wrong there — no such file, a syntax error, an import that raises — becomes one line naming the
file and line. A file may declare examples, ready-made launches that `list` shows and every command takes
by name:

    TTINSPECT_EXAMPLES = {
        "small": {"kernel": matmul, "args": {"a_ptr": "*fp16", "M": 512, ...}, "config": {"BLOCK_M": 64}},
        "big":   {"kernel": "matmul", "signature": "*fp16:16, ..., 128", "arch": "sm_90"},
    }
"""

from __future__ import annotations

import hashlib
import re
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.files.source_files import read_regular, sha256_or_empty
from ttinspect.refs.module_kernels import nameable
from ttinspect.refs.loading import NO_SCOPE, ImportScope, current_scope, exec_loose_file, run_user_code
from ttinspect.refs.package_names import import_package_file, kept_as
from ttinspect.refs.packages import PackageModule, locate, package_of, split_module_ref
from ttinspect.engine.builds import USER_MODULE_PREFIX

EXAMPLES_NAME = "TTINSPECT_EXAMPLES"
EXAMPLE_KEYS = ("kernel", "args", "signature", "config", "autotune_config", "arch", "description")

# my_mm.py:matmul, ./k.py:small:BLOCK_M=64,num_warps=8@sm_90, dir/kernel_file:fn (a `/` is enough)
# What follows the path: [:NAME][:KEY=VALUE,...][@ARCH]
_TAIL = r"(?::(?P<name>[^\W\d]\w*))?(?::(?P<inline>[^@]*))?(?:@(?P<arch>[^@]+))?$"
_FILE_REF = re.compile(r"^(?P<path>[^:@]*(?:\.py|/[^:@]*))" + _TAIL)
_REST = re.compile("^" + _TAIL)
_PY_END = re.compile(r"\.py(?=[:@]|$)")


def is_file_ref(text: str) -> bool:
    """A file path contains `/` or ends in `.py` (so `opt:num_stages=3` stays a variant); a file name may
    itself hold `:` or `@` (`at@sign.py:k`)."""
    head = re.split(r"[:@]", text, maxsplit=1)[0]
    return "/" in head or bool(_PY_END.search(text))


@dataclass(frozen=True)
class FileRef:
    path: Path  # absolute
    name: str | None  # a kernel or example name; None: the whole file (for `list`)
    inline: tuple[str, ...] = ()  # `:k=v,...` settings written in the reference
    arch: str | None = None
    package: PackageModule | None = None  # the file is this package's module: imported by its dotted name

    @property
    def shown(self) -> str:
        """How builds and listings name where the kernel lives: `pkg.mod` for a package's module, else
        the file's name."""
        return self.package.module if self.package is not None else self.path.name

    @property
    def own_folder(self) -> Path:
        """Every file under it is the user's code (for the memo's record and error locations)."""
        return self.package.package_folder if self.package is not None else self.path.parent


def parse_file_ref(text: str) -> FileRef:
    """PATH[:NAME][:KEY=VALUE,...][@ARCH]. A path may hold `:` and `@` (`./co:lon.py:k`, `at@sign.py:k`):
    of the ways to split the text, the longest path that exists wins; with none existing, the path ends at
    the first `:` or `@` and the error names it."""
    text = text.strip()
    split = _split_existing(text)
    if split is None:
        match = _FILE_REF.match(text)
        ends = [m.end() for m in _PY_END.finditer(text)]
        if not match and ends:  # `at@nope.py:k`: a .py path that is not there
            raise UsageError(f"{text[:ends[-1]]}: no such file")
        if not match:
            raise UsageError(f"{text!r}: a file reference is PATH.py:NAME[:KEY=VALUE,...][@ARCH]")
        path_text, rest = match["path"], _REST.match(text[len(match["path"]):])
        assert rest is not None  # the same groups as _FILE_REF's tail
    else:
        path_text, rest = split
    path = Path(path_text).expanduser()
    problem = _not_a_python_file(path)
    if problem:
        raise UsageError(f"{path_text}: {problem}")
    inline = tuple(item for item in (rest["inline"] or "").split(",") if item.strip())
    resolved = path.resolve()
    return FileRef(resolved, rest["name"], inline, rest["arch"], package_of(resolved))


def parse_module_ref(text: str) -> FileRef:
    """MODULE[:NAME][:KEY=VALUE,...][@ARCH]: `liger_kernel.ops.rms_norm:_rms_norm_forward_kernel`. The
    module's file is found without running it (refs/packages.py)."""
    match = split_module_ref(text)
    if match is None:
        raise UsageError(f"{text!r}: a module reference is PACKAGE.MODULE:NAME[:KEY=VALUE,...][@ARCH]")
    module = match["module"]
    path = locate(module)
    depth = module.count(".") + (1 if path.name == "__init__.py" else 0)
    root = path.parents[depth]
    inline = tuple(item for item in (match["inline"] or "").split(",") if item.strip())
    return FileRef(path, match["name"], inline, match["arch"], PackageModule(module, root, by_name=True))


def _split_existing(text: str) -> tuple[str, re.Match] | None:
    """(path, the match of what follows) for the longest prefix that names something on disk and is
    followed by a well-formed rest; None if no prefix exists."""
    ends = sorted([i for i, char in enumerate(text) if char in ":@"] + [len(text)], reverse=True)
    candidates = [(text[:end], _REST.match(text[end:])) for end in ends]
    candidates = [(head, rest) for head, rest in candidates if head and rest]
    for wanted in (os.path.isfile, os.path.lexists):  # a file first: `k.py:small` beside a folder `k.py:small`
        for head, rest in candidates:
            if wanted(os.path.expanduser(head)):
                assert rest is not None
                return head, rest
    return None


def _not_a_python_file(path: Path) -> str | None:
    """Why `path` cannot be loaded as a kernel file (None: it can)."""
    import stat

    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "is a symbolic link to nothing (dangling)" if path.is_symlink() else "no such file"
    except OSError as error:  # a link loop, a name too long, no permission on a folder
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISDIR(mode):
        return "is a directory, not a Python file"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a named pipe, a device or a socket); give a Python file"
    if not os.access(path, os.R_OK):
        return "cannot be read (permission denied)"
    return None


def module_name(path: Path) -> str:
    """Per path and content: a file edited while the process runs (a test, a notebook) is loaded anew."""
    digest = hashlib.sha256(str(path).encode() + b"\0" + path.read_bytes()).hexdigest()
    return USER_MODULE_PREFIX + digest[:16]


def load_module(path: Path, package: PackageModule | None = None, scope: ImportScope = NO_SCOPE,
                definitions_only: bool = False) -> ModuleType:
    """Run the user's code once per process and scope (as `import` would): a loose file as a module of its
    own, a file of a package as that package's module (`package`; found by `package_of` when not given), under
    names of its own when a path named it (package_names.py).
    `definitions_only`: the file is a program's own script, loaded without running the program
    (program_script.py)."""
    package = package if package is not None else package_of(path)
    if package is not None and not definitions_only:
        def forget() -> None:  # this file's module, under whichever name it was loaded (never another's)
            for name in (package.module, kept_as(package, package.module)):
                if os.path.realpath(getattr(sys.modules.get(name), "__file__", "") or "") == os.path.realpath(path):
                    del sys.modules[name]

        return run_user_code(path, [package.package_folder], scope,
                             lambda: import_package_file(package, path), forget)
    name = module_name(path) + ("_definitions" if definitions_only else "")
    if name in sys.modules and scope.key == current_scope():
        return sys.modules[name]

    def forget_file() -> None:
        sys.modules.pop(name, None)

    return run_user_code(path, [path.parent], scope, lambda: exec_loose_file(name, path, definitions_only),
                         forget_file)


@dataclass(frozen=True)
class Example:
    name: str
    kernel: Any  # the kernel object
    kernel_name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    signature: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    autotune_config: int | str | None = None
    arch: str | None = None
    description: str = ""


def kernels_in(module: ModuleType) -> dict[str, Any]:
    """Module-level names bound to a kernel Triton compiles (jit, autotune, heuristics), in definition order;
    the kernels of every kind a reference can name are module_kernels.nameable's."""
    from ttinspect.compile.jit import kernel_kind  # imports triton

    return {name: obj for name, obj in vars(module).items()
            if not name.startswith("__") and kernel_kind(obj) in ("jit", "gluon", "autotune", "heuristics")}


def examples_in(module: ModuleType, path: Path) -> dict[str, Example]:
    raw = getattr(module, EXAMPLES_NAME, None)
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise UsageError(f"{path}: {EXAMPLES_NAME} must be a dict of name -> example, got {type(raw).__name__}")
    kernels = nameable(module)  # an example may name a kernel of any kind (a Helion kernel's too)
    return {name: _example(name, spec, kernels, path) for name, spec in raw.items()}


def _example(name: str, spec: Any, kernels: Mapping[str, Any], path: Path) -> Example:
    where = f"{path}: {EXAMPLES_NAME}[{name!r}]"
    if not isinstance(spec, Mapping):
        raise UsageError(f"{where} must be a dict with a 'kernel' and its 'args' or 'signature'")
    unknown = [k for k in spec if k not in EXAMPLE_KEYS]
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}; keys: {', '.join(EXAMPLE_KEYS)}")
    kernel = spec.get("kernel")
    kernel_name: str | None
    if isinstance(kernel, str):
        if kernel not in kernels:
            raise UsageError(f"{where}: no kernel {kernel!r} in the file; kernels: {', '.join(kernels) or 'none'}")
        kernel_name, kernel = kernel, kernels[kernel]
    else:
        kernel_name = next((k for k, v in kernels.items() if v is kernel), None)
        if kernel_name is None:
            raise UsageError(f"{where}: 'kernel' must be one of the file's kernels "
                             f"({', '.join(kernels) or 'none'}), by object or by name")
    for key, kind in (("args", Mapping), ("config", Mapping), ("signature", str), ("arch", str)):
        if key in spec and not isinstance(spec[key], kind):
            raise UsageError(f"{where}: {key!r} must be a {'dict' if kind is Mapping else 'string'}"
                             + (' such as "sm_90"' if key == "arch" else ""))
    if "args" in spec and "signature" in spec:
        raise UsageError(f"{where}: give 'args' (by name) or 'signature' (positional), not both")
    return Example(name, kernel, kernel_name, dict(spec.get("args", {})), spec.get("signature"),
                   dict(spec.get("config", {})), spec.get("autotune_config"), spec.get("arch"),
                   str(spec.get("description", "")))


def find(module: ModuleType, path: Path, name: str) -> Any:
    """The kernel object or Example called `name` in the file."""
    from ttinspect.compile.jit import kernel_kind  # imports triton

    kernels = kernels_in(module)
    if name in kernels:  # a kernel does not depend on the file's examples being well-formed
        return kernels[name]
    examples = examples_in(module, path)
    if name in examples:
        return examples[name]
    if hasattr(module, name):
        obj = getattr(module, name)
        if kernel_kind(obj) == "interpreted":
            raise UsageError(f"{path}:{name} was made by @triton.jit under TRITON_INTERPRET=1, which cannot be "
                             "compiled: unset TRITON_INTERPRET")
        raise UsageError(f"{path}:{name} is a {type(obj).__name__}, not a @triton.jit kernel; "
                         f"kernels in the file: {', '.join(nameable(module)) or 'none'}")
    every = nameable(module)  # of every kind: a Helion kernel is named like a Triton one
    listed = f"kernels: {', '.join(every) or 'none'}" + (f"; examples: {', '.join(examples)}" if examples else "")
    raise UsageError(f"{path}: no kernel or example {name!r} ({listed})")


def user_files(path: Path, own_folder: Path | None = None) -> dict[str, str]:
    """The user's own Python files loaded now, path -> sha256: the kernel's file, every module it imported
    that is not installed (helpers in subfolders or a parent package included), and every module loaded
    from `own_folder` (the kernel's package — installed or not: an upgrade of the package changes them).
    A record of what a reference resolved to is valid only while these are unchanged."""
    import sysconfig  # only when a cold resolution is recorded

    installed = {os.path.realpath(p) for p in {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                                                  "platlib")} if p}
    ours = os.path.realpath(str(Path(__file__).resolve().parent.parent))
    package = os.path.realpath(own_folder) if own_folder is not None else None
    found: dict[str, str] = {}
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not file or not file.endswith(".py"):
            continue
        real = os.path.realpath(file)
        in_package = package is not None and (real == package or real.startswith(package + os.sep))
        if not in_package and (real.startswith(ours) or any(real.startswith(p + os.sep) for p in installed)
                               or "site-packages" in real or "dist-packages" in real):
            continue
        data = read_regular(real)
        if data is not None:
            found[real] = hashlib.sha256(data).hexdigest()
    found.setdefault(os.path.realpath(path), sha256_or_empty(path))
    return found


def files_unchanged(files: dict[str, str]) -> bool:
    """Whether every recorded file still has its content (a file now a FIFO or a folder: changed)."""
    return all(sha256_or_empty(p) == digest for p, digest in files.items())
