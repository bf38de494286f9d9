"""The corpus of public kernel libraries (tests/corpus/manifest.toml) through ttinspect, as a table:
library, kernel, target, status, cold and warm time, and the reason for any failure (docs/corpus.md).

    python scripts/corpus.py                       # every entry on each of its targets
    python scripts/corpus.py --subset ci           # the CI subset (tests/test_corpus.py runs the same rows)
    python scripts/corpus.py --target sm_90 --only liger-kernel/ --json -o rows.json
    python scripts/corpus.py --triton 3.6.0        # under another release (REF@triton=3.6.0, a toolchain)
    python scripts/corpus.py --from-json all.json flag-gems.json   # one table of saved runs (later rows win)

Each run uses empty ttinspect and Triton caches of its own (so cold times are cold) and removes them after;
`--keep-cache DIR` keeps them in DIR instead. An entry whose library is not installed is a row saying so.
Exit 0 when the run finished (whatever the rows say), 2 on bad options; `--fail-under PCT` exits 1 when
fewer rows than PCT % are ok.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))  # the corpus's manifest reader and runner live beside it

from corpus_manifest import MANIFEST, TARGETS, Entry, ManifestError, load, package_folder  # noqa: E402
from corpus_runner import Row, fresh_caches, run_row, run_row_other_triton  # noqa: E402

REF_FORMS = ("module", "file")


def parse_options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subset", choices=("all", "ci"), default="all",
                        help="all: every entry on each of its targets; ci: the entries' `ci` targets only")
    parser.add_argument("--target", action="append", choices=TARGETS, help="only these targets (repeatable)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only entries whose id contains TEXT (repeatable: any of them)")
    parser.add_argument("--triton", metavar="X.Y.Z", help="compile with this Triton release (REF@triton=X.Y.Z)")
    parser.add_argument("--refs", choices=REF_FORMS, default="module",
                        help="give ttinspect module references (pkg.mod:kernel) or file paths (site-packages/...)")
    parser.add_argument("--json", action="store_true", help="the rows as JSON")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE")
    parser.add_argument("--from-json", nargs="+", type=Path, metavar="FILE",
                        help="no run: the table of saved --json runs, a later file's row replacing an earlier one's")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    parser.add_argument("--keep-cache", type=Path, metavar="DIR", help="keep the run's caches in DIR")
    parser.add_argument("--fail-under", type=float, metavar="PCT",
                        help="exit 1 when fewer than PCT %% of the rows (of releases the entries list) are ok")
    return parser.parse_args(argv)


def selected(entries: list[Entry], options: argparse.Namespace) -> list[tuple[Entry, str]]:
    pairs = []
    for entry in entries:
        if options.only and not any(text in entry.id for text in options.only):
            continue
        targets = entry.ci if options.subset == "ci" else entry.targets
        pairs += [(entry, target) for target in targets if not options.target or target in options.target]
    return pairs


def not_installed(entry: Entry) -> str | None:
    if package_folder(entry.package) is None:
        return f"{entry.library} is not installed (pip install the corpus extra: docs/corpus.md)"
    return None


def run(pairs: list[tuple[Entry, str]], options: argparse.Namespace, progress) -> list[Row]:
    rows = []
    for number, (entry, target) in enumerate(pairs, start=1):
        missing = not_installed(entry)
        if missing:
            row = Row(entry.id, entry.library, entry.module_ref, target, reason=missing, triton=options.triton)
        elif options.triton:
            row = run_row_other_triton(entry, target, options.triton, options.refs)
        else:
            row = run_row(entry, target, options.refs)
        rows.append(row)
        progress(f"[{number}/{len(pairs)}] {row.id} {row.target}: {row.status}"
                 + (f" ({row.reason})" if row.reason else ""))
    return rows


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def table(rows: list[Row], title: str) -> str:
    """A Markdown table (docs/corpus.md holds one), then the rate per target and the failures' reasons."""
    lines = [title, "", "| library | kernel | target | status | cold s | warm s | depths | reason |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        depths = ",".join("?" if d is None else str(d) for d in row.depths) or "-"
        lines.append(f"| {row.library} | `{row.kernel.partition(':')[2]}` | {row.target} | {row.status} | "
                     f"{seconds(row.cold_s)} | {seconds(row.warm_s)} | {depths} | {row.reason.replace('|', '/')} |")
    lines += ["", summary(rows)]
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    """The rate per target and overall, over the rows of releases the entries list (the goal's measure);
    rows that failed under a release an entry does not list are counted apart."""
    parts = [f"{target}: {rate([row for row in rows if row.target == target])}" for target in TARGETS
             if any(row.target == target for row in rows)]
    return "; ".join(parts + [f"all: {rate(rows)}"])


def rate(rows: list[Row]) -> str:
    counted = [row for row in rows if row.status != "unsupported"]
    ok = sum(row.status == "ok" for row in counted)
    text = f"{ok}/{len(counted)} ok ({100 * ok / len(counted):.0f} %)" if counted else "no rows"
    unsupported = len(rows) - len(counted)
    return text + (f", {unsupported} unsupported" if unsupported else "")


def ok_percent(rows: list[Row]) -> float:
    counted = [row for row in rows if row.status != "unsupported"]
    return 100 * sum(row.status == "ok" for row in counted) / len(counted) if counted else 100.0


def saved_rows(files: list[Path]) -> tuple[list[Row], list[str]]:
    """The rows of saved runs, in first-seen order, a later file's row replacing an earlier one's (same entry,
    target and release); and the runs' titles."""
    rows: dict[tuple, Row] = {}
    titles = []
    for path in files:
        data = json.loads(path.read_text())
        titles.append(data["title"])
        for raw in data["rows"]:
            row = Row(**raw)
            rows[(row.id, row.target, row.triton)] = row
    return list(rows.values()), titles


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    if options.from_json:
        try:
            rows, titles = saved_rows(options.from_json)
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"corpus: cannot read the saved runs: {error}", file=sys.stderr)
            return 2
        print(table(rows, "; ".join(titles)))
        return 0
    try:
        entries = load(options.manifest)
    except (ManifestError, OSError) as error:
        print(f"corpus: {error}", file=sys.stderr)
        return 2
    pairs = selected(entries, options)
    if not pairs:
        print("corpus: no entry matches the options", file=sys.stderr)
        return 2
    root = options.keep_cache or Path(tempfile.mkdtemp(prefix="ttinspect-corpus-"))
    os.environ.update(fresh_caches(root))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    start = time.perf_counter()
    try:
        rows = run(pairs, options, lambda line: print(line, file=sys.stderr, flush=True))
    finally:
        if options.keep_cache is None:
            shutil.rmtree(root, ignore_errors=True)
    from importlib.metadata import version  # the release that compiled, for the title

    release = options.triton or version("triton")
    command = " ".join(["python scripts/corpus.py", *(argv if argv is not None else sys.argv[1:])])
    title = f"Corpus: {len(rows)} rows, Triton {release}, `{command}` ({time.perf_counter() - start:.0f} s)"
    text = (json.dumps({"title": title, "summary": summary(rows), "rows": [row.as_dict() for row in rows]}, indent=2)
            if options.json else table(rows, title))
    if options.output:
        Path(options.output).write_text(text + "\n")
    else:
        print(text)
    if options.fail_under is not None:
        return 1 if ok_percent(rows) < options.fail_under else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
