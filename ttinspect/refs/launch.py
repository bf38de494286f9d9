"""A kernel object and what a launch would give it -> the builds a launch would compile.

The launch goes through the decorators from the outside in, as Triton's runtime does: an
`@triton.autotune` config (chosen with `--config N`, or every one with `--config all`) supplies its
constexprs and options, `--set` applies on top, and `@triton.heuristics` values are then computed from
the arguments and that config. As Triton's `Heuristics.run` does, each heuristic is given everything the
launch passes — a value given for its own key too (`{"REQUIRES_GRAD": lambda a: a["REQUIRES_GRAD"]}` reads
the launch's) — and its result replaces that value. So a value given for a heuristic's key is taken; one
the heuristic replaces by another is said: refused when the heuristic never read it (it changes nothing),
a warning and the build's note when it read it. A `prune_configs_by` `early_config_prune` is run as
Triton's Autotuner runs it — on the configs and the launch's arguments, before any timing — so `--config
all` lists the configs a launch would time (the caller enters the virtual device around planning: a prune
that asks the GPU sees the target's). Its `perf_model` ranks configs by estimated time for `top_k`: not
run, and the output says so.
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.caches.store import warn
from ttinspect.errors import TTInspectError, UsageError
from ttinspect.kernel.arguments import TextArgument
from ttinspect.kernel.constexpr_uses import flags
from ttinspect.kernel.options import check_option
from ttinspect.refs.type_only_arguments import reads_an_unknown, stand_ins, what_it_read
from ttinspect.kernel.variants import config_value_text

# Keys of a triton.Config that are not compile options ttinspect passes on.
_CONFIG_EXTRAS = ("ir_override", "pre_hook")


@dataclass(frozen=True)
class Launch:
    label: str
    args: Mapping[str, Any]  # runtime arguments by name
    config: Mapping[str, Any]  # constexprs and compile options
    note: str = ""  # e.g. "autotune config 2 of 4; prune_configs_by not run"
    invalid: str | None = None  # why this launch cannot compile, found before compiling (its config's fault)


def selector(which: Any) -> int | str | None:
    """`--config` / `config=`: None, "all", "best" or a 1-based config number."""
    if which is None or isinstance(which, int) and not isinstance(which, bool):
        return which
    text = str(which).strip().lower()
    if text.isdigit():
        return int(text)
    if text in ("all", "best"):
        return text
    raise UsageError(f"--config takes a config number (1-based), `all` or `best`, got {which!r}")


def plan(obj: Any, name: str, args: Mapping[str, Any], settings: Mapping[str, Any], which: Any = None,
         label: str | None = None, target: str | None = None) -> list[Launch]:
    """`name`: the kernel's, for messages; `label`: how the builds are called (default the name); `target`:
    the target whose code chose the config list, for messages (two sides of a diff may list other configs)."""
    from ttinspect.compile.jit import autotune_configs, unwrap  # imports triton

    fn, autotuner, heuristics = unwrap(obj)
    params = list(fn.arg_names)
    constexpr = {p.name for p in fn.params if p.is_constexpr}
    unknown = [k for k in args if k not in params]
    if unknown:
        raise UsageError(f"{name} has no parameter(s) {', '.join(unknown)}; its parameters: {', '.join(params)}")
    # A constexpr given as an argument is a config value; a runtime parameter given with --set an argument.
    runtime = {k: v for k, v in args.items() if k not in constexpr}
    base = {k: str(v) if isinstance(v, TextArgument) else v for k, v in args.items() if k in constexpr}
    refused = next((v for v in runtime.values() if isinstance(v, TextArgument)), None)
    if refused is not None:  # a string for a runtime parameter: the entry's own message
        raise UsageError(refused.error)
    for key, value in settings.items():
        (runtime if key in params and key not in constexpr else base)[key] = value

    which = selector(which)
    configs: list[tuple[int | None, dict[str, Any]]]  # (the config's number in the autotune list, config)
    note = ""
    if autotuner is None:
        if which is not None:
            raise UsageError(f"{name} is not @triton.autotune'd: --config picks one of an autotuned kernel's configs")
        configs = [(None, {})]
    else:
        listed = list(enumerate(autotune_configs(autotuner), start=1))
        given = {k: v for k, v in base.items() if k in params}  # constexprs a launch passes by keyword
        pruned = early_pruned(name, autotuner, listed, runtime, given, strict=not isinstance(which, int))
        note = pruned.note
        configs = _chosen(name, listed, pruned.kept, which, base, target)
        if isinstance(which, int) and pruned.ran and which not in {number for number, _ in pruned.kept}:
            note = f"early_config_prune drops it: a launch would not time it; {note}"
    launches = []
    for number, config in configs:
        merged = {k: v for k, v in config.items() if k not in _CONFIG_EXTRAS}
        merged.update(base)
        for param in fn.params:  # the `def` line's defaults, as the launch takes them
            if param.is_constexpr and param.has_default and param.name not in merged:
                merged[param.name] = param.default
        overridden: list[str] = []
        for h in heuristics:
            merged.update(_heuristic_values(name, h, {**runtime, **merged}, base, overridden, fn))
        text = (label or name) + (f"#{number}" if number is not None else "")
        shown = [f"{k}={config_value_text(v)}" for k, v in settings.items()]
        if shown:
            text += ":" + ",".join(shown)
        total = len(autotuner.configs) if autotuner is not None else 0
        launch_note = f"autotune config {number} of {total}; {note}" if number is not None else ""
        for line in overridden:
            warn(f"{text}: {line}")
        launch_note = "; ".join(part for part in (launch_note, *overridden) if part)
        launches.append(Launch(text, runtime, merged, launch_note, _invalid_option(name, number, config, base)))
    return launches


def _invalid_option(name: str, number: int | None, config: Mapping[str, Any], base: Mapping[str, Any]) -> str | None:
    """An autotune config's own bad option value, blamed on the config (a --set of the key overrides it)."""
    if number is None:
        return None
    for key, value in config.items():
        if key not in base:
            try:
                check_option(key, value, f"autotune config {number} of {name} sets")
            except UsageError as error:
                return str(error)
    return None


def _chosen(name: str, listed: list[tuple[int, dict[str, Any]]], kept: list[tuple[int, dict[str, Any]]], which: Any,
            base: Mapping[str, Any], target: str | None = None) -> list[tuple[int | None, dict[str, Any]]]:
    """`listed`: every config, numbered; `kept`: those a launch would time (what early_config_prune kept)."""
    count, total = len(kept), len(listed)
    if which == "all":
        return [(number, config) for number, config in kept]
    if which == "best":
        raise UsageError(f"--config best is for the shipped variants timed by `ttinspect autotune`; {name} is "
                         f"@triton.autotune'd over {total} configs: pick one with --config N, or --config all")
    if isinstance(which, int):
        made = [(n, c) for n, c in kept if n > total]  # configs the pruner made, numbered after the listed ones
        if made and any(n == which for n, _ in made):
            return [next((n, c) for n, c in made if n == which)]
        if not 1 <= which <= total:
            first = " (--config 1 is configs[0]: numbers are 1-based, as `--config all` lists them and as an " \
                "example's autotune_config takes them)" if which == 0 else ""
            on = f" for {target}" if target else ""
            raise UsageError(f"--config {which}: {name} has {total} autotune config(s){on}, numbered from 1 to "
                             f"{total}" + first)
        return [listed[which - 1]]
    configs = [c for _, c in kept]
    keys = {k for c in configs for k in c if k not in _CONFIG_EXTRAS}
    same = {k: configs[0][k] for k in keys if all(k in c and c[k] == configs[0][k] for c in configs)}
    tuned = sorted(keys - set(same) - set(base))
    if count == 1:  # one config left: a launch uses it without timing anything
        return [kept[0]]
    if not tuned:  # every key the configs differ in was set explicitly: the launch is fully described
        return [(None, same)]
    kept_text = f", {count} of them kept by its early_config_prune" if count != total else ""
    raise UsageError(f"{name} is @triton.autotune'd over {total} configs{kept_text} (a launch times them on a GPU): "
                     f"choose one with --config N (1-{total}), every one with --config all (report) or ranked "
                     f"by predicted time (sweep --grid config=all --sort time), or set {', '.join(tuned)} with --set")


@dataclass(frozen=True)
class Pruned:
    kept: list[tuple[int, dict[str, Any]]]  # the numbered configs a launch would time
    note: str  # what was (not) run, for the output
    ran: bool  # early_config_prune ran and chose


_PERF_MODEL = "perf_model not run (its time estimates pick the top_k on a GPU)"


def early_pruned(name: str, autotuner: Any, listed: list[tuple[int, dict[str, Any]]], runtime: Mapping[str, Any],
                 given: Mapping[str, Any], strict: bool) -> Pruned:
    """The configs `prune_configs_by`'s early_config_prune keeps, called as Triton's Autotuner calls it —
    `early_config_prune(configs, named_args, **kwargs)`, the launch's positional arguments by name and its
    keyword (constexpr) ones — and only when there is more than one config to choose from. `strict`: a prune
    that cannot run on the arguments given is an error (the list depends on it), else a note."""
    from ttinspect.compile.jit import autotune_configs  # imports triton

    prune = getattr(autotuner, "early_config_prune", None)
    model = _PERF_MODEL if getattr(autotuner, "perf_model", None) is not None else ""
    if prune is None:
        return Pruned(listed, f"{model}: every config is shown" if model else
                      "no prune_configs_by declared: every config a launch would time is shown", False)
    if len(listed) <= 1:
        return Pruned(listed, "one config: early_config_prune has nothing to choose from", False)
    # Triton's `nargs` holds what a launch passes by position and `kwargs` what it passes by keyword — which
    # is which is the call site's choice (gemlite passes constexprs by position and reads a runtime flag from
    # kwargs): every argument given is offered in both
    offered = stand_ins({**runtime, **given})
    named, keywords = dict(offered), {k: v for k, v in offered.items() if k not in ("configs", "named_args", "nargs")}
    try:
        result = list(prune(list(autotuner.configs), named, **keywords) or ())
    except TTInspectError:  # the virtual device's refusal, already one line naming the user's line
        raise
    except Exception as error:  # it reads an argument given only by type, or one not given, or fails itself
        reason = f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}{raised_at(error)}"
        if strict and reads_an_unknown(error):
            raise UsageError(f"{name}: its early_config_prune could not run on the arguments given"
                             f"{raised_at(error)}: {what_it_read(error, {**runtime, **given})}; or pick a config "
                             f"with --config N") from error
        if strict:
            raise UsageError(f"{name}: its early_config_prune raised {reason}; pick a config with --config N") \
                from error
        return Pruned(listed, f"early_config_prune could not run ({reason})" + (f"; {model}" if model else ""),
                      False)
    if not result:
        raise UsageError(f"{name}: its early_config_prune kept no config for these arguments (a launch fails: "
                         f"Triton needs at least one)")
    kept: list[tuple[int, dict[str, Any]]] = []
    made = len(listed)
    for config in autotune_configs(_Configs(result)):
        number = next((n for n, c in listed if c == config), None)
        if number is None:  # a config the prune made (e.g. fewer stages): numbered after the listed ones
            made += 1
            number = made
        kept.append((number, config))
    from_list = [str(n) for n, _ in kept if n <= len(listed)]
    new = [n for n, _ in kept if n > len(listed)]
    text = (f"early_config_prune kept config(s) {', '.join(from_list)} of {len(listed)}" if from_list else
            f"early_config_prune kept none of the {len(listed)} listed config(s)")
    if new:
        span = f"#{new[0]}" if len(new) == 1 else f"#{new[0]}-#{new[-1]}"
        text += f" and made {len(new)} of its own ({span}, numbered after the listed ones)"
    return Pruned(kept, text + (f"; {model}: every kept config is shown" if model else ""), True)


@dataclass(frozen=True)
class _Configs:
    """What autotune_configs() reads of an autotuner: its configs."""

    configs: list[Any]


class _ReadsRecorded(dict):
    """The dict a heuristic is called with (Triton's is a plain dict of the same items), recording the keys
    it reads: whether a value given for the heuristic's own key was read or only replaced."""

    def __init__(self, items: Mapping[str, Any]):
        super().__init__(items)
        self.read: set[Any] = set()

    def __getitem__(self, key: Any) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: Any) -> bool:
        self.read.add(key)
        return super().__contains__(key)


def _same(a: Any, b: Any) -> bool:
    """A constexpr's value as a compile sees it: True and 1 compile differently."""
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # an object whose == does not answer a bool: not provably the same
        return False


def _heuristic_values(name: str, heuristics: Any, given: Mapping[str, Any], launch_given: Mapping[str, Any],
                      overridden: list[str], fn: Any) -> dict[str, Any]:
    """Each value of one `@triton.heuristics`, computed as `Heuristics.run` does: from everything the launch
    passes (`given`, with the values computed before it), its result replacing a value given for its key
    (`launch_given`: the constexprs given with --set / --arg). A given value replaced after being read is
    appended to `overridden`; one replaced without being read is refused (giving it changed nothing)."""
    known = stand_ins(given)
    out: dict[str, Any] = {}
    for key, rule in heuristics.values.items():
        seen = _ReadsRecorded({**known, **out})
        try:
            out[key] = rule(seen)
        except TTInspectError:  # the virtual device's refusal, already one line naming the user's line
            raise
        except Exception as error:
            if not reads_an_unknown(error):  # the rule itself fails: where, not advice about arguments
                reason = f"{type(error).__name__}: {error}{raised_at(error)}"
                raise UsageError(f"{name}: the @triton.heuristics value for {key} raised {reason}") from error
            raise UsageError(f"{name}: the @triton.heuristics value for {key} could not be computed from the "
                             f"arguments given{raised_at(error)}: "
                             f"{what_it_read(error, given, constexpr_examples(fn))}") from error
        if key in launch_given and not _same(launch_given[key], out[key]):
            was, now = config_value_text(launch_given[key]), config_value_text(out[key])
            if key in seen.read:
                overridden.append(f"{key}={was} was given; {name}'s @triton.heuristics computes {key}={now} from "
                                  f"it, and a launch compiles that")
                continue
            reads = ", ".join(sorted(str(k) for k in seen.read)) or "nothing"
            raise UsageError(f"{key}: computed by {name}'s @triton.heuristics (from {reads}: {key}={now} here); a "
                             f"launch overrides the {key}={was} given without reading it — leave it out, or give "
                             f"the arguments it reads (--arg NAME=VALUE)")
    return out


def constexpr_examples(fn: Any) -> dict[str, str | None]:
    """Each constexpr parameter of the kernel -> the value advice writes for it: `True` for a flag (the kernel
    only tests it), None where the kind of value is not known from the code (the launch site's is the one)."""
    constexprs = [p.name for p in fn.params if p.is_constexpr]
    tested = flags(getattr(fn, "src", "") or "", constexprs)
    return {name: "True" if name in tested else None for name in constexprs}


_OWN_FOLDER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # ttinspect/


def raised_at(error: BaseException) -> str:
    """` (file:line)` of the innermost frame outside ttinspect — the user's (or library's) line that raised,
    or that touched an argument known only by its type — or nothing when there is none."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not os.path.realpath(f.filename).startswith(_OWN_FOLDER + os.sep) and not f.filename.startswith("<")]
    return f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
