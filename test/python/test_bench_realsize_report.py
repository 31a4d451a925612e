"""The real-size benchmark section's report (bench/harness/realsize_section.py): a runtime that
refuses a delegated program shows as an n/a cell with the reason, ratios are ratios of the
medians, and the section replaces its previous version in RESULTS.md without touching the rest."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "harness"))
import realsize_section as rs  # noqa: E402


def ok(ms):
    return {"status": "ok", "steady_cpu_ms": ms, "steady_ms": ms * 1.1, "load_ms": 1.0, "first_ms": ms,
            "peak_rss_kb": 10240}


REFUSED = {"status": "error", "why": "load_method failed [E 00:00:00.1 backend 'XnnpackBackend' is not "
                                     "registered (Error NotFound)]"}


def data():
    def item(variant, runtimes):
        return {"model": "resnet18", "variant": variant, "threads": 1,
                "result": {"runtimes": {rt: runtimes.get(rt, {"status": "skipped", "why": "n/a: no eager module"})
                                        for rt in rs.RUNTIMES}}}

    return {"date": "today", "loadavg": ["1", "1", "1"],
            "manifest": {"versions": {"torch": "t", "executorch": "e"},
                         "models": {"resnet18": {"description": "ResNet-18", "params": 11689512,
                                                 "variants": {"portable": {"bytes": 2**20},
                                                              "xnnpack": {"bytes": 2**20}}}}},
            "results": [item("portable", {"ours-cpp": ok(30.0), "ours-py": ok(31.0), "upstream": ok(900.0),
                                          "eager": ok(20.0)}),
                        item("xnnpack", {"ours-cpp": REFUSED, "ours-py": REFUSED, "upstream": ok(15.0)})]}


def test_refused_backend_is_an_na_cell_with_its_reason():
    assert rs.tcell(REFUSED, "steady_cpu_ms") == "n/a: backend 'XnnpackBackend' is not registered"


def test_one_thread_row_has_times_and_ratios_of_medians():
    text = "\n".join(rs.render(data(), None))
    row = next(line for line in text.splitlines() if line.startswith("| resnet18 | 30.0 ms"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:7] == ["30.0 ms", "31.0 ms", "900.0 ms", "15.0 ms",
                          "n/a: backend 'XnnpackBackend' is not registered", "20.0 ms"]
    assert cells[7:] == ["2.00", "-", "1.50"]  # ours portable / upstream XNNPACK, ours XNNPACK (n/a), / eager


def test_upstream_xnnpack_of_the_portable_rounds_is_the_headline_reference():
    d = data()
    d["results"][0]["result"]["runtimes"]["upstream@xnnpack"] = ok(12.0)
    text = "\n".join(rs.render(d, None))
    row = next(line for line in text.splitlines() if line.startswith("| resnet18 | 30.0 ms"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4] == "12.0 ms"  # not the XNNPACK row's 15.0 ms
    assert cells[7] == "2.50"


def test_splice_replaces_the_previous_section_only(tmp_path):
    out = tmp_path / "RESULTS.md"
    out.write_text("# head\n\nkept\n")
    rs.splice(out, [rs.BEGIN, "first", rs.END])
    rs.splice(out, [rs.BEGIN, "second", rs.END])
    text = out.read_text()
    assert text.startswith("# head\n\nkept\n")
    assert "second" in text and "first" not in text and text.count(rs.BEGIN) == 1
