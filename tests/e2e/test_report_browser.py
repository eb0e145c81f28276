"""report.html and comparison.html from real eval runs, loaded in headless Chromium (Debian's
package; `.ci/run` installs it): no console errors, the tables sort when a header is clicked,
every plot has axis labels, and a screenshot of each page is written as a test artefact
(``outputs/test-artefacts/``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_cli import arr

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
ARTEFACTS = REPO / "outputs" / "test-artefacts"

# Appended to a copy of the page: clicks the first numeric header twice (descending, then
# ascending) and writes what each click produced into the DOM, which --dump-dom prints.
PROBE = """
<script>
window.addEventListener('load', function () {
  var table = document.querySelector('table.sortable, #comparison');
  var th = Array.from(table.querySelectorAll('th')).find(function (h) {
    return h.dataset.type === 'num';
  });
  var column = Array.from(th.parentNode.children).indexOf(th);
  function values() {
    return Array.from(table.tBodies[0].rows).map(function (r) {
      return parseFloat(r.cells[column].dataset.value);
    });
  }
  th.click(); var first = values();
  th.click(); var second = values();
  var labels = document.querySelectorAll('svg .axis-label').length;
  var out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({desc: first, asc: second, svgs:
    document.querySelectorAll('svg').length, labels: labels});
  document.body.appendChild(out);
});
</script>
"""


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    return subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_page(page: Path, name: str) -> None:
    probe = page.with_name(f"probe-{page.name}")
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    done = chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and "rror" in line]
    assert not errors, errors
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stdout[-2000:]
    import html
    import json

    result = json.loads(html.unescape(found.group(1)))
    assert result["desc"] == sorted(result["desc"], reverse=True)
    assert result["asc"] == sorted(result["asc"])
    assert result["labels"] >= result["svgs"] >= 1  # every plot carries axis labels
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / f"{name}.png"
    done = chromium("--window-size=1200,2400", f"--screenshot={shot}", page.as_uri())
    assert done.returncode == 0 and shot.stat().st_size > 10_000


@pytest.mark.skipif(BROWSER is None, reason="chromium is not installed (.ci/run installs it)")
def test_reports_in_a_real_browser(demo_overrides: list[str], tmp_path: Path) -> None:
    for pipeline in ("bm25_only", "memory_only"):
        done = arr("eval", *demo_overrides, f"pipeline={pipeline}", "eval.k_values=[5,20]")
        assert done.returncode == 0, done.stderr
    runs = sorted((tmp_path / "outputs" / "eval" / "runs").iterdir())
    report = (runs[0] / "report.html").read_text()
    assert "nDCG@5" in report and "nDCG@10" not in report  # only the k that was computed
    check_page(runs[0] / "report.html", "report")
    assert arr("report", *map(str, runs)).returncode == 0
    (out,) = (tmp_path / "outputs" / "eval" / "runs" / "comparisons").iterdir()
    check_page(out / "comparison.html", "comparison")
