"""A capture made on another machine with the same Triton release (refs/triton_release.py): Triton's own files
its compiles were made of (triton/language/standard.py, for `tl.cdiv`) sit under another prefix there, and
another build of one release may differ in bytes. They are the release, not the user's sources: compared as
a release (the header's version against this one), a difference said in one warning line, never refused.
A user's file that changed is still refused as before.

The captures are the synthetic example of tests/data/captures/make_example.py (its kernels file beside it,
unchanged), with Triton files added to each compile's `sources` as a run elsewhere records them."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
import triton

from cli_helpers import assert_one_line_error, run_cli
from ttinspect.capture.format import CaptureError, read
from ttinspect.errors import EXIT_USAGE
from ttinspect.refs.triton_release import compare, installed_root, release_part
from ttinspect.targets.releases import installed_version

sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

pytestmark = pytest.mark.skipif(installed_root() is None, reason="needs an installed triton package")

ELSEWHERE = "/opt/conda/envs/train/lib/python3.12/site-packages/triton"  # the other machine's triton package
STANDARD = "language/standard.py"
OTHER_BUILD = "1a2a7b" + "0" * 58  # a digest no file of this release has


def installed_digest(part: str) -> str:
    return hashlib.sha256((installed_root() / part).read_bytes()).hexdigest()


def rewrite(path: Path, sources: dict[str, str], **header: object) -> Path:
    """The capture at `path` with `sources` added to every compile's and `header` set in its header. The
    header's `triton_root` (this machine's, as a capture made here records it) is dropped unless `header`
    sets one: a capture from before it was recorded, whose Triton files are told by their layout."""
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "compile":
            record["sources"] = {**record["sources"], **sources}
        elif record["type"] == "header":
            record.pop("triton_root", None)
            record.update(header)
        lines.append(json.dumps(record, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_triton_s_files_of_another_build_are_the_release_not_a_refusal(tmp_path):
    capture = rewrite(write_example(tmp_path), {f"{ELSEWHERE}/{STANDARD}": OTHER_BUILD})
    result = run_cli("report", f"{capture}:scale_add#2", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["label"] == "example.ttcap:scale_add#2"
    notes = result.stderr.splitlines()
    assert len(notes) == 1 and f"Triton {installed_version()} here as in the run, but another build" in notes[0]
    assert f"triton/{STANDARD}" in notes[0] and OTHER_BUILD[:12] not in notes[0]
    listing = json.loads(run_cli("list", capture, "--json").stdout)
    assert {row["source"] for row in listing["compiles"]} == {"same"}  # the user's file is unchanged


def test_a_user_s_file_that_changed_is_still_refused(tmp_path):
    capture = rewrite(write_example(tmp_path), {f"{ELSEWHERE}/{STANDARD}": OTHER_BUILD})
    kernels = tmp_path / "example_kernels.py"
    kernels.write_text(kernels.read_text().replace("alpha * x + y", "tl.exp(alpha * x) + y"))
    line = assert_one_line_error(run_cli("report", f"{capture}:scale_add#2"), EXIT_USAGE, str(kernels),
                                 "changed since the capture", "--source captured")
    assert "standard.py" not in line and "more file" not in line  # Triton's own file is not the user's
    assert_one_line_error(run_cli("check", capture), EXIT_USAGE, "4 captured compile(s) concerned", str(kernels))


@pytest.mark.parametrize("recorded, why", [
    ("/src/proj/triton/my_kernels.py", "a folder named triton, but no file of Triton's"),
    ("/src/proj/helpers/language/standard.py", "a file named as Triton's, in no triton folder"),
])
def test_a_helper_only_named_like_triton_s_is_the_user_s(tmp_path, recorded, why):
    capture = rewrite(write_example(tmp_path), {recorded: OTHER_BUILD})
    assert release_part(recorded, None) is None, why
    assert_one_line_error(run_cli("report", f"{capture}:scale_add#2"), EXIT_USAGE, recorded,
                          "changed since the capture", "not on this machine now")


def comparison_note(tmp_path: Path, sources: dict[str, str], **header: object) -> str | None:
    return compare(read(rewrite(write_example(tmp_path), sources, **header))).note()


def test_the_same_build_elsewhere_says_nothing(tmp_path):
    same = {f"{ELSEWHERE}/{STANDARD}": installed_digest(STANDARD)}
    assert comparison_note(tmp_path, same) is None


def test_another_release_is_said_as_such(tmp_path):
    other = "3.6.0" if installed_version() != "3.6.0" else "3.5.1"  # a release that is not this machine's
    note = comparison_note(tmp_path, {f"{ELSEWHERE}/{STANDARD}": OTHER_BUILD}, triton=other)
    assert note is not None and f"the run compiled with Triton {other}" in note and installed_version() in note


def test_the_header_s_triton_root_decides_where_the_layout_cannot(tmp_path):
    root = "/builds/tr-7f3c/python/pkg"  # a build whose package folder is not named triton
    note = comparison_note(tmp_path, {f"{root}/{STANDARD}": OTHER_BUILD}, triton_root=root)
    assert note is not None and f"triton/{STANDARD}" in note
    assert release_part(f"{root}/{STANDARD}", None) is None  # the layout alone would call it the user's


@pytest.mark.parametrize("value", ["relative/triton", "/a/../triton", 7, "/a/triton/"])
def test_a_triton_root_that_is_no_path_is_refused_in_one_line(tmp_path, value):
    with pytest.raises(CaptureError, match="'triton_root' of the header record is .*expected"):
        read(rewrite(write_example(tmp_path), {}, triton_root=value))


def test_a_capture_made_here_records_where_its_triton_is_and_another_machines_root_is_read(tmp_path):
    capture = write_example(tmp_path)
    assert read(capture).header.extra["triton_root"] == str(Path(triton.__file__).resolve().parent)
    moved = rewrite(capture, {f"{ELSEWHERE}/{STANDARD}": OTHER_BUILD}, triton_root=ELSEWHERE)
    result = run_cli("report", f"{moved}:scale_add#2", "--json")
    assert result.exit_code == 0, result.output  # the file under the recorded root is Triton's: not refused
    assert "another build" in compare(read(moved)).note()
