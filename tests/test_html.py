"""`ttinspect html`: the page is self-contained and safe, and it works in a real browser.

Without a browser (Debian's `chromium` + `chromium-driver`, and selenium) the browser tests are skipped
with the reason — but never in CI: with `CI` or `TTINSPECT_CI` set, a missing browser fails them.
The attribution the page embeds is compared with `ttinspect.source`, never with numbers written here.
`TTINSPECT_UPDATE_SCREENSHOT=1` rewrites docs/img/html-naive-vs-opt.png from the browser.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttinspect.cli.main import cli
from ttinspect.errors import UsageError
from ttinspect.html.write import write_html
from ttinspect.refs.resolver import RefOptions, resolve_one
from ttinspect.source import source_info

HERE = Path(__file__).parent
HOSTILE = HERE / "data" / "html" / "hostile.py"
HOSTILE_SIGNATURE = "*fp32:16, *fp32:16, i32:16, 1024"
# A folder name that is an HTML element when pasted unescaped; `/` makes it two folders on disk.
HOSTILE_FOLDER = "<svg/onload=alert(2)>"
SCREENSHOT = HERE.parent / "docs" / "img" / "html-naive-vs-opt.png"
MAX_BYTES = 3_000_000
MAX_READY_MS = 1000


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    options = RefOptions(arch="sm_90")
    builds = [resolve_one(ref, options) for ref in ("naive", "opt")]
    diff = write_html(builds, out / "naive-vs-opt.html")
    hostile_dir = out / HOSTILE_FOLDER
    hostile_dir.mkdir(parents=True)
    shutil.copy(HOSTILE, hostile_dir / HOSTILE.name)
    hostile_ref = f"{hostile_dir / HOSTILE.name}:hostile_kernel"
    hostile_build = resolve_one(hostile_ref, RefOptions(signature=HOSTILE_SIGNATURE, arch="sm_90"))
    # The label cannot hold `<` when it comes from a reference; one set by the API can.
    labelled = dataclasses.replace(hostile_build, label="<img src=x onerror=alert(7)>")
    hostile = write_html(labelled, out / "hostile.html")
    return {"diff": diff, "builds": builds, "hostile": hostile, "hostile_build": hostile_build}


def _json_blocks(text: str) -> dict[str, dict]:
    blocks = re.findall(r'<script type="application/json" id="([\w-]+)">(.*?)</script>', text, re.S)
    return {name: json.loads(body) for name, body in blocks}


# --- the file itself --------------------------------------------------------------------------------


def test_page_is_one_file_that_fetches_nothing(pages):
    text = pages["diff"].read_text()
    assert pages["diff"].stat().st_size <= MAX_BYTES
    assert not re.search(r"<(link|img|iframe|object|embed)\b", text)
    assert not re.search(r"""\s(src|srcset)\s*=""", text)
    assert "@import" not in text and "url(" not in text
    assert text.count("<script") == 2 + 2  # the class setter, the page's script, one JSON block per kernel
    for section in ("facts", "resources", "findings", "code-0", "code-1", "loop-diff", "passes"):
        assert f'id="{section}"' in text


def test_embedded_attribution_is_ttinspect_source(pages):
    blocks = _json_blocks(pages["diff"].read_text())
    for index, built in enumerate(pages["builds"]):
        data = blocks[f"attr-{index}"]
        for stage in ("ttir", "ttgir", "llir", "ptx", "sass"):
            info = source_info(stage, built.artifacts.text(stage), built.source_file)
            expected = [(a.source_line or 0) if a.code else 0 for a in info.lines]
            assert data["stages"][stage]["to"] == expected, stage
            reverse = Counter(line for line in expected if line)
            assert {int(k): len(v) for k, v in data["stages"][stage]["from"].items()} == dict(reverse), stage


def test_facts_side_by_side_with_changes_explained(pages):
    from ttinspect.compare.facts_diff import diff_reports
    from ttinspect.report.collect import report_from_build

    text = pages["diff"].read_text()
    result = diff_reports(*(report_from_build(b) for b in pages["builds"]))
    facts = text[text.index('id="facts"'):text.index('id="resources"')]
    assert facts.count('<tr class="chg">') == len(result.changes) > 0
    for change in result.changes[:5]:
        assert _html_text(change.explanation) in facts


def _html_text(value: str) -> str:
    import html

    return html.escape(value, quote=True)


def test_main_loop_diff_and_pass_timeline(pages):
    from ttinspect.passes import history
    from ttinspect.passes.align import diverge
    from ttinspect.render.passes import divergence_text

    text = pages["diff"].read_text()
    loop_diff = text[text.index('id="loop-diff"'):text.index('id="passes"')]
    assert loop_diff.count("<details") == 5 and 'class="add"' in loop_diff
    passes = text[text.index('id="passes"'):]
    # where the two part: the very summary `diff --passes` prints, then both timelines aligned by pass
    a, b = (history(built) for built in pages["builds"])
    assert _html_text(divergence_text(diverge(a, b))) in passes
    assert passes.count('<table class="passes two">') == 1 and "no pass timeline:" not in passes
    aligned = passes[passes.index('<table class="passes two">'):]
    pipeline = aligned[aligned.index("tritongpu-pipeline"):]
    pipeline = pipeline[:pipeline.index("</tr>")]
    for side in (a, b):  # one row, both kernels' pass numbers in it
        assert f"<td>{side.find('tritongpu-pipeline').index}</td>" in pipeline
    assert "↳ LowerLoops" in aligned and "↳ ExpandLoops" in aligned  # the pipeliner's own steps
    assert "+ canonicalize×" in aligned  # the inliner's folded function passes, named
    assert aligned.count('class="part"') == 1 and "first fact difference" in aligned


def test_one_kernel_page_has_its_pass_timeline_and_chosen_stages(tmp_path):
    runner = CliRunner()
    out = tmp_path / "opt.html"
    for flags in ((), ("--passes",)):  # the same rule as for two kernels: on unless --no-passes
        done = runner.invoke(cli, ["html", "opt", "--arch", "sm_90", "-o", str(out), "--force", *flags])
        assert done.exit_code == 0, done.output
        page = out.read_text()
        assert 'href="#passes"' in page and '<table class="passes">' in page and "↳ LowerLoops" in page
    done = runner.invoke(cli, ["html", "opt", "--arch", "sm_90", "-o", str(out), "--force", "--no-passes",
                               "--stages", "ttgir,ptx"])
    assert done.exit_code == 0, done.output
    page = out.read_text()
    assert 'id="passes"' not in page
    assert re.findall(r'<div class="pane[^"]*" data-stage="(\w+)"', page) == ["python", "ttgir", "ptx"]
    assert set(_json_blocks(page)["attr-0"]["stages"]) == {"ttgir", "ptx"}
    bad = runner.invoke(cli, ["html", "opt", "-o", str(tmp_path / "bad.html"), "--stages", "ptx,cubin"])
    assert bad.exit_code == 2 and "--stages" in bad.stderr and not (tmp_path / "bad.html").exists()
    llir_only = runner.invoke(cli, ["html", "opt", "--arch", "sm_90", "-o", str(out), "--force", "--no-passes",
                                    "--stages", "llir"])
    assert llir_only.exit_code == 0 and 'data-stage="llir" class=on' in out.read_text()


def test_hostile_strings_are_text(pages):
    text = pages["hostile"].read_text()
    assert not re.search(r"<(svg|img)\b", text, re.I)
    assert text.count("<script") == 3  # the page's own: class setter, one JSON block, the script
    assert "&lt;/script&gt;&lt;script&gt;alert(4)&lt;/script&gt;" in text  # the comment, as text
    assert "&lt;img src=x onerror=alert(7)&gt;" in text  # the label
    for name, block in _json_blocks(text).items():
        assert HOSTILE_FOLDER in block["file"], name  # decoded back intact from `\u003c`


def test_api_takes_references(tmp_path):
    page = write_html("opt", tmp_path / "opt.html", arch="sm_90")
    assert "ttinspect: opt (sm_90)" in page.read_text()
    with pytest.raises(UsageError, match="one kernel or two"):
        write_html(["naive", "opt", "opt"], tmp_path / "three.html")


def test_triton_cache_entries_say_what_they_lack(tmp_path, monkeypatch):
    """Entries of a real run on an H100 (tests/data/triton_cache): sources from another machine, no pass history."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(HERE / "data" / "triton_cache"))
    from ttinspect.render.triton_cache_rows import list_cache

    rows = [row for row in list_cache(HERE / "data" / "triton_cache") if row.target == "sm_90"][:2]
    page = write_html([f"cache:{row.id[:10]}" for row in rows], tmp_path / "cache.html").read_text()
    assert page.count("no pass timeline:") == 2 and "Triton&#x27;s cache" in page
    assert page.count("is not on this machine") == 2  # the Python pane says why it is empty


# --- the command ------------------------------------------------------------------------------------


def test_command_writes_and_refuses_bad_outputs(tmp_path):
    runner = CliRunner()
    out = tmp_path / "opt.html"
    done = runner.invoke(cli, ["html", "opt", "--arch", "sm_90", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert str(out) in done.output and out.read_text().startswith("<!DOCTYPE html>")

    out.write_text("keep me")
    refused = runner.invoke(cli, ["html", "opt", "--arch", "sm_90", "-o", str(out)])
    assert refused.exit_code == 2
    assert refused.stderr.strip().count("\n") == 0 and "already exists" in refused.stderr
    assert out.read_text() == "keep me"

    missing = runner.invoke(cli, ["html", "opt", "-o", str(tmp_path / "no" / "such" / "x.html")])
    assert missing.exit_code == 2 and "does not exist" in missing.stderr
    assert missing.stderr.strip().count("\n") == 0

    forced = runner.invoke(cli, ["html", "opt", "--arch", "sm_90", "-o", str(out), "--force"])
    assert forced.exit_code == 0 and out.read_text().startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # the temporary file was renamed


def test_command_needs_out_and_at_most_two_refs(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["html", "opt"]).exit_code == 2
    three = runner.invoke(cli, ["html", "naive", "opt", "opt", "-o", str(tmp_path / "x.html")])
    assert three.exit_code == 2 and "not 3" in three.stderr


# --- in a browser -----------------------------------------------------------------------------------


def _in_ci() -> bool:
    return bool(os.environ.get("CI") or os.environ.get("TTINSPECT_CI"))


def _driver(javascript: bool = True):
    """Headless Chromium through selenium; skipped without one, failed in CI."""
    why = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        why = "selenium is not installed (pip install selenium)"
    binary = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                  None)
    chromedriver = shutil.which("chromedriver")
    if why is None and (binary is None or chromedriver is None):
        why = "no headless Chromium (apt-get install chromium chromium-driver)"
    if why:
        if _in_ci():
            pytest.fail(f"CI must run the browser tests: {why}")
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1500,1000", "--hide-scrollbars"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    options.set_capability("unhandledPromptBehavior", "ignore")  # an alert stays open for the test to see
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(chromedriver), options=options)


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


def _open(driver, page: Path) -> float:
    """Load the page; the milliseconds from navigation start until its script made it interactive."""
    driver.get(page.as_uri())
    deadline = time.monotonic() + 10
    while driver.execute_script("return window.ttinspectReady") is None:
        assert time.monotonic() < deadline, "the page's script never finished"
        time.sleep(0.02)
    return driver.execute_script("return window.ttinspectReady")


def test_browser_loads_fast_without_errors_or_requests(browser, pages):
    browser.get_log("performance")  # drop what came before
    ready_ms = _open(browser, pages["diff"])
    print(f"naive vs opt sm_90: {pages['diff'].stat().st_size / 1e6:.2f} MB, interactive after {ready_ms:.0f} ms")
    assert ready_ms < MAX_READY_MS
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    requested = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = {m["params"]["request"]["url"] for m in requested if m["method"] == "Network.requestWillBeSent"}
    assert urls <= {pages["diff"].as_uri()}
    assert browser.title == "ttinspect: naive vs opt (sm_90)"


def _count(driver, selector: str) -> int:
    return driver.execute_script(f"return document.querySelectorAll({json.dumps(selector)}).length")


def test_clicking_a_python_line_marks_what_it_produced(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["diff"])
    built = pages["builds"][1]  # opt: kernel 1 on the page
    maps = {stage: source_info(stage, built.artifacts.text(stage), built.source_file)
            for stage in ("ttir", "ttgir", "llir", "ptx", "sass")}
    line, ptx_lines = _busiest_ptx_line(built)
    browser.find_element(By.CSS_SELECTOR, f"#code-1 .pane.py pre.code > :nth-child({line})").click()
    assert _count(browser, "#code-1 .pane.py .l.sel") == 1
    for stage, info in maps.items():
        expected = sum(1 for a in info.lines if a.code and a.source_line == line)
        assert _count(browser, f'#code-1 .pane[data-stage="{stage}"] .l.hit') == expected, stage
    assert ptx_lines == _count(browser, '#code-1 .pane[data-stage="ptx"] .l.hit') > 0
    assert _count(browser, "#code-0 .l.hit") == 0  # the other kernel is left alone

    instruction = next(a for a in maps["ptx"].lines if a.code and a.source_line and a.source_line != line)
    browser.find_element(By.CSS_SELECTOR, f'#code-1 .pane[data-stage="ptx"] pre.code > :nth-child({instruction.line})'
                         ).click()
    selected = browser.find_elements(By.CSS_SELECTOR, "#code-1 .pane.py pre.code > .sel")
    assert len(selected) == 1
    index = browser.execute_script("var e = arguments[0]; return [].indexOf.call(e.parentNode.children, e) + 1",
                                   selected[0])
    assert index == instruction.source_line


def _busiest_ptx_line(built) -> tuple[int, int]:
    """The Python line that produced the most PTX lines (opt's `tl.dot`), and how many."""
    info = source_info("ptx", built.artifacts.text("ptx"), built.source_file)
    return Counter(a.source_line for a in info.lines if a.code and a.source_line).most_common(1)[0]


def test_tabs_switch_stage_panes(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["diff"])
    browser.find_element(By.CSS_SELECTOR, '#code-0 .tabs button[data-stage="sass"]').click()
    for kernel in ("code-0", "code-1"):  # both kernels follow
        panes = browser.find_elements(By.CSS_SELECTOR, f"#{kernel} .stages .pane")
        shown = [p.get_attribute("data-stage") for p in panes if p.is_displayed()]
        assert shown == ["sass"]


def test_browser_runs_nothing_from_a_hostile_kernel(browser, pages):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    _open(browser, pages["hostile"])
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018 -- the lookup itself is the check
    assert browser.find_elements(By.TAG_NAME, "img") == [] and browser.find_elements(By.TAG_NAME, "svg") == []
    assert len(browser.find_elements(By.TAG_NAME, "script")) == 3
    assert browser.title == "ttinspect: <img src=x onerror=alert(7)> (sm_90)"
    header = browser.find_element(By.CSS_SELECTOR, "table.meta").text
    assert HOSTILE_FOLDER in header  # the path, shown as the text it is
    source = browser.find_element(By.CSS_SELECTOR, ".pane.py pre.code").text
    assert "</script><script>alert(4)</script>" in source


def test_facts_show_with_javascript_off(pages):
    from selenium.webdriver.common.by import By

    driver = _driver(javascript=False)
    try:
        driver.get(pages["diff"].as_uri())
        assert "js" not in (driver.find_element(By.TAG_NAME, "html").get_attribute("class") or "")
        table = driver.find_element(By.CSS_SELECTOR, "#facts table.facts")
        assert table.is_displayed() and "pipeline depth" in table.text
        assert driver.find_element(By.CSS_SELECTOR, "#findings").is_displayed()
        # without the tabs, every stage pane shows, one under the other
        panes = driver.find_elements(By.CSS_SELECTOR, "#code-1 .stages .pane")
        assert len(panes) == 5 and all(p.is_displayed() for p in panes)
    finally:
        driver.quit()


def test_screenshot(browser, pages, tmp_path):
    from selenium.webdriver.common.by import By

    _open(browser, pages["diff"])
    browser.set_window_size(1400, 1000)
    opt = pages["builds"][1]
    produced = {a.source_line for a in source_info("ptx", opt.artifacts.text("ptx"), opt.source_file).lines}
    line = next(n for n, text in enumerate(Path(opt.source_file).read_text().split("\n"), 1)
                if "tl.dot(" in text and n in produced)  # opt's dot line (naive's is in the same file)
    python = browser.find_element(By.CSS_SELECTOR, f"#code-1 .pane.py pre.code > :nth-child({line})")
    # clicked from JavaScript: selenium's own click scrolls the wide line sideways to its middle
    browser.execute_script("var line = arguments[0], box = line.closest('.scroll'); line.click();"
                           "box.scrollTop = line.offsetTop - box.clientHeight / 3;"
                           "document.getElementById('code-1').scrollIntoView()", python)
    target = SCREENSHOT if os.environ.get("TTINSPECT_UPDATE_SCREENSHOT") else tmp_path / SCREENSHOT.name
    assert browser.save_screenshot(str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size < 400_000
