"""Python that ttinspect writes from someone else's data (`repro`'s script from a capture, `sweep
--autotune-configs` from a sweep's configs) runs only what its template says: a family of hostile strings put
in every place a captured or configured value goes. Each script must compile; its calls, names and attributes
must be those a benign script of the same shape has (the template's own); the hostile string must survive only
as string data (a constant, or the docstring holding it exactly); a name that must be written as a keyword and
is not an identifier is refused in one line."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_helpers import assert_one_line_error, run_cli

from ttinspect.capture.replay_plan import ReplayPlan, TensorSpec
from ttinspect.capture.repro import script
from ttinspect.errors import UsageError
from ttinspect.sweep.output import autotune_configs

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "captures"))
from make_example import write_example  # noqa: E402  (the synthetic capture's writer, beside its data)

HOSTILE = [
    '"""', "'''", '""""', "x\"\"\"\nimport os; os.system('touch PWNED')\n\"\"\"", "\\", "ends in a backslash\\",
    '\\"""', "a\nb", "a\r\nb", "__import__('os').system('touch PWNED')", "'); __import__('os').system('x'); ('",
    "tl.float16); __import__('os').system('x'", "float16); __import__('os').system('x'", "# comment", "1abc",
    "class", "a b", "ünïcödé", "名前", "nul\x00byte", "\x1b]0;title\x07\x1b[2J", "\u202egnp.exe", "\u2028\u2029",
    "{}{0}{label}", "%s%(x)s", "\x0c\x0b", "",
]
IDS = [ascii(text)[:40] for text in HOSTILE]
IDENTIFIER_LIKE = [text for text in HOSTILE if text.isidentifier() and text != "class"]


def plan(**fields) -> ReplayPlan:
    base = dict(label="step.ttcap:k", site="train.py:12", count=3, capture_name="step.ttcap", file="/w/k.py",
                module="k", name="k", grid=(4, 1, 1),
                args={"x_ptr": TensorSpec((8, 4), (4, 1), "float16"), "n": 32, "scale": 0.5, "tag": "text"},
                keywords={"BLOCK": 16, "DTYPE": "tl.float16", "num_warps": 4})
    return ReplayPlan(**{**base, **fields})


def same_shape(source: str, benign: str) -> bool:
    """`source` makes no call, touches no name or attribute, and has no statement that `benign` lacks."""
    (calls, names, attributes, statements), (ok_calls, ok_names, ok_attributes, ok_statements) = \
        shape(source), shape(benign)
    return calls <= ok_calls and names <= ok_names and attributes <= ok_attributes and statements == ok_statements


def shape(source: str) -> tuple[set, set, set, int]:
    """What a script does, apart from its data: the calls it makes, the names and attributes it touches, and
    how many statements it has."""
    tree = ast.parse(source)
    calls = {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    statements = sum(isinstance(node, ast.stmt) for node in ast.walk(tree))
    return calls, names, attributes, statements


def strings(source: str) -> list[str]:
    return [node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


BENIGN = script(plan())


@pytest.mark.parametrize("hostile", HOSTILE, ids=IDS)
@pytest.mark.parametrize("field", ["label", "site", "capture_name", "file", "module", "name", "value", "nested",
                                   "keyword value"])
def test_a_captured_string_is_only_data_in_the_repro_script(hostile, field):
    if field == "value":
        replay = plan(args={**plan().args, "tag": hostile})
    elif field == "nested":
        replay = plan(args={**plan().args, "tag": [hostile, {hostile: (hostile, 1.5, None)}]})
    elif field == "keyword value":
        replay = plan(keywords={**plan().keywords, "BLOCK": hostile, "DTYPE": "tl." + hostile})
    else:
        replay = plan(**{field: hostile})
    source = script(replay)
    compile(source, "repro.py", "exec")
    assert same_shape(source, BENIGN)  # the template's calls, names and statements, nothing else
    constants = strings(source)
    if field in ("label", "site", "capture_name"):  # quoted in the docstring: it holds the text exactly
        docstring = ast.get_docstring(ast.parse(source), clean=False) or ""
        assert hostile in docstring
    elif hostile:
        assert any(hostile in text for text in constants), constants


@pytest.mark.parametrize("hostile", [t for t in HOSTILE if not t.isidentifier() or t == "class"],
                         ids=[ascii(t)[:40] for t in HOSTILE if not t.isidentifier() or t == "class"])
@pytest.mark.parametrize("where", ["argument", "keyword"])
def test_a_name_the_script_would_write_as_code_is_refused(hostile, where):
    args, keywords = dict(plan().args), dict(plan().keywords)
    (args if where == "argument" else keywords)[hostile] = 1
    with pytest.raises(UsageError) as refused:
        script(plan(args=args, keywords=keywords))
    assert "is not a Python identifier" in str(refused.value) and repr(hostile) in str(refused.value)


@pytest.mark.parametrize("name", IDENTIFIER_LIKE, ids=[ascii(t)[:40] for t in IDENTIFIER_LIKE])
def test_an_identifier_name_is_written_as_a_keyword(name):
    source = script(plan(args={**plan().args, name: 7}))
    compile(source, "repro.py", "exec")
    assert f"    {name}=7," in source


@pytest.mark.parametrize("field, value", [
    ("grid", ("1); __import__('os').system('x'; (", 1)), ("grid", (1.5,)), ("shape", ["8"]),
    ("strides", [True]), ("dtype", "float16'); __import__('os').system('x"), ("dtype", "a b"),
])
def test_a_captured_number_or_dtype_that_is_not_one_is_refused(field, value):
    if field == "grid":
        replay = plan(grid=value)
    else:
        spec = {"shape": (8, 4), "strides": (4, 1), "dtype": "float16", field: value}
        replay = plan(args={"x_ptr": TensorSpec(**spec)})
    with pytest.raises(UsageError):
        script(replay)


def edit_compile_and_launches(capture: Path, change_compile, change_launches) -> None:
    records = [json.loads(line) for line in capture.read_text().splitlines()]
    first = next(r["id"] for r in records if r.get("type") == "compile" and r["name"] == "scale_add")
    for index, record in enumerate(records):
        if record.get("type") == "compile" and record["id"] == first:
            records[index] = change_compile(record)
        elif record.get("type") == "launches" and record["compile"] == first:
            records[index] = change_launches(record)
    capture.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.parametrize("hostile", ['""" + __import__("os").system("touch PWNED") + """', "ends in \\",
                                     "\x1b]52;c;cHduZWQ=\x07"], ids=["triple-quote", "backslash", "osc52"])
def test_a_hostile_capture_through_the_command_writes_a_script_that_runs_nothing_of_it(tmp_path, hostile):
    example = write_example(tmp_path)
    edit_compile_and_launches(example, lambda r: r, lambda r: {**r, "site": f"train.py:3 {hostile}"})
    out = tmp_path / "repro.py"
    result = run_cli("repro", f"{example}:scale_add#1", "-o", out)
    if result.exit_code != 0:  # the capture's reader refused the string: one line, nothing written
        assert_one_line_error(result, 2)
        assert not out.exists()
        return
    source = out.read_text()
    assert same_shape(source, BENIGN) or shape(source)[0] <= shape(BENIGN)[0]
    assert hostile in (ast.get_docstring(ast.parse(source), clean=False) or "")
    assert not (tmp_path / "PWNED").exists()


def test_a_hostile_parameter_name_in_a_capture_is_one_line(tmp_path):
    example = write_example(tmp_path)
    bad = "n=1, **{'x': __import__('os').system('touch PWNED')}, m"

    def rename(record, key):
        return {**record, key: [bad if p == "n" else p for p in record[key]]} if key in record else record

    def launches(record):
        return {**record, "args": [{(bad if k == "n" else k): v for k, v in a.items()} for a in record["args"]]}

    edit_compile_and_launches(example, lambda r: rename(r, "params"), launches)
    out = tmp_path / "repro.py"
    result = run_cli("repro", f"{example}:scale_add#1", "-o", out)
    if result.exit_code == 0:  # the capture reader took it: then the script must hold it as data only
        assert shape(out.read_text())[0] <= shape(BENIGN)[0]
    else:
        assert_one_line_error(result, 2)
        assert not out.exists()


# --- sweep --autotune-configs ---------------------------------------------------------------------------------

def rows(key: str, value, target: str) -> list[dict]:
    return [{"config": {"BLOCK": 64, key: value, "num_warps": 4}, "target": target,
             "facts": {"registers": 40, "spills": 0, "occupancy": 50, "fits": True}}]


def run_configs(text: str) -> list:
    """The pasted lines, run with a stand-in for triton.Config that only records what it was given."""
    tree = ast.parse("configs = [\n" + text + "]")
    assert {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)} <= {"triton.Config",
                                                                                                  "float"}
    assert {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} <= {"configs", "triton", "tl", "float"}
    namespace: dict = {"triton": SimpleNamespace(Config=lambda *a, **k: (a, k)), "tl": SimpleNamespace(
        **{name: f"tl.{name}" for name in ("float16", "bfloat16", "float32", "int32")})}
    exec(compile(tree, "<configs>", "exec"), namespace)
    return namespace["configs"]


@pytest.mark.parametrize("hostile", HOSTILE, ids=IDS)
@pytest.mark.parametrize("place", ["key", "value", "target"])
def test_autotune_config_lines_hold_a_hostile_string_as_data(hostile, place):
    key, value, target = ("K", "V", "sm_90")
    if place == "key":
        key = hostile or "K"
    elif place == "value":
        value = hostile
    else:
        target = hostile
    text = autotune_configs(rows(key, value, target))
    (config,) = run_configs(text)
    args, options = config
    assert args[0] == {"BLOCK": 64, key: value} and options == {"num_warps": 4}
    assert all(line.startswith(("#", "triton.Config(")) for line in text.splitlines())


@pytest.mark.parametrize("value", ["float16", "bfloat16", "int32"])
def test_a_dtype_name_is_still_written_as_a_triton_dtype(value):
    (config,) = run_configs(autotune_configs(rows("DTYPE", value, "sm_90")))
    assert config[0][0]["DTYPE"] == f"tl.{value}"
