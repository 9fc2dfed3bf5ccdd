"""Checks `tplab report` on `tplab bench step --pp` and `bench scaling --pp` JSON, made up here so
that the numbers are known: the pipeline section tables every run of S > 1 stages as the JSON has
it (each stage's idle share beside the bubble's formula, PP efficiency beside 1 - the formula
where the run found its one-stage baseline, the kept bytes) and links its plot. The GPT's runs
must leave the block's sections as they are without them: a file of the block's runs alone and
the same runs with the GPT's beside them give the same report but for the pipeline section, and
the same plots, byte for byte. A file of the GPT's runs alone gives the pipeline section alone.

usage: check_report_pipeline.py [REPORT.py]  (default: bench/report/report.py of this checkout)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from check_report_data_parallel import CORES, PNG_MAGIC, close, run_record, section, table

HERE = os.path.dirname(os.path.abspath(__file__))
PIPELINE = "Pipeline parallelism"
BLOCK_PLOTS = ["efficiency.png", "throughput.png", "comm_share.png", "bytes.png",
               "data_parallel.png", "summary.png"]


def gpt_record(scheme, mode, np, b, step_ms, grid, idle, kept, model=None, dp=1, micro=4,
               schedule="1f1b", layers=4, baseline=None, pp_baseline=False, dp_baseline=None):
    """One run of the GPT in len(idle) stages as bench writes it: `idle` and `kept` per stage,
    `model` the cost model's kept bytes where they differ from `kept`; `baseline` the one-stage
    run its PP efficiency divides by, `dp_baseline` the one-replica run its DP efficiency does
    (True: it is one)."""
    stages = len(idle)
    model = model or kept
    r = run_record(scheme, mode, np, b, step_ms, 0.5, grid, dp=dp, comm_ms_dp=0.25 * (dp > 1),
                   dp_baseline=dp_baseline is True)
    r.update(workload="gpt", pp=stages, micro_batches=micro, schedule=schedule, layers=layers,
             vocab=64, padded_vocab=64, bubble_formula=(stages - 1) / (micro + stages - 1),
             comm_ms_pp=0.5 * (stages > 1), comm_share_pp=0.5 * (stages > 1) / step_ms,
             bytes_per_rank_pp=16384 * (stages > 1), kept_as_modelled=kept == model,
             pp_baseline=pp_baseline,
             stages=[{"idle_share": share, "kept_bytes": k, "model_kept_bytes": m,
                      "in_flight": micro if schedule == "gpipe" else min(stages - s, micro)}
                     for s, (share, k, m) in enumerate(zip(idle, kept, model))])
    if isinstance(dp_baseline, dict):
        r.update(dp_baseline_np=dp_baseline["np"], dp_baseline_step_ms=dp_baseline["step_ms"],
                 dp_efficiency=dp_baseline["step_ms"] / step_ms)
    if baseline:
        r.update(pp_baseline_np=baseline["np"], pp_baseline_step_ms=baseline["step_ms"],
                 pp_efficiency=baseline["step_ms"] / (stages * step_ms),
                 pp_efficiency_formula=1 - r["bubble_formula"])
    return r


def block_sweep():
    """The block's runs: 1d strong on 1, 2, 4 ranks (JSON from before --pp: no workload, no pp)
    and 2d strong on 1, 4 (with them), and D = 2 replicas of 1d on 4 ranks with its baseline."""
    runs = [run_record("1d", "strong", 1, 8, 40.0, 0.0, "t=1"),
            run_record("1d", "strong", 2, 8, 22.0, 2.0, "t=2"),
            run_record("1d", "strong", 4, 8, 13.0, 2.5, "t=4"),
            dict(run_record("2d", "strong", 1, 8, 41.0, 0.0, "q=1"), workload="block", pp=1),
            dict(run_record("2d", "strong", 4, 8, 14.5, 3.5, "q=2"), workload="block", pp=1)]
    base = run_record("1d", "strong", 2, 4, 12.125, 1.25, "t=2", dp_baseline=True)
    return runs + [base, run_record("1d", "strong", 4, 8, 13.5, 1.5, "dp=2 x t=2", dp=2,
                                    comm_ms_dp=0.75, baseline=base)]


def gpt_sweep():
    """The GPT's runs, as `bench step --np 4 --dp 2 --pp 2` writes them (the run, its DP
    baseline of S = 2 on one replica's b/2, its PP baseline of one stage on np/S ranks), 2d in
    S = 2 stages under GPipe with its PP baseline and a stage that kept more than the model says,
    and 1d weak in S = 3 stages whose baseline could not run (no PP efficiency)."""
    mib = 2**20
    dp_base = gpt_record("1d", "strong", 2, 4, 7.25, "pp=2 t=1", [0.175, 0.3125],
                         [0.25 * mib, 0.125 * mib], dp_baseline=True)
    pp_base = gpt_record("1d", "strong", 2, 8, 12.5, "dp=2 t=1", [0.0125], [0.5 * mib], dp=2,
                         pp_baseline=True)
    two_d_base = gpt_record("2d", "strong", 4, 4, 12.25, "q=2", [0.0075], [0.375 * mib],
                            micro=2, schedule="gpipe", layers=2, pp_baseline=True)
    return [dp_base, pp_base, two_d_base,
            gpt_record("1d", "strong", 4, 8, 13.75, "dp=2 pp=2 t=1", [0.5425, 0.375],
                       [0.25 * mib, 0.125 * mib], dp=2, baseline=pp_base, dp_baseline=dp_base),
            gpt_record("2d", "strong", 8, 4, 15.5, "pp=2 q=2", [0.33, 0.1075],
                       [0.0625 * mib, 0.1875 * mib], model=[0.0625 * mib, 0.125 * mib], micro=2,
                       schedule="gpipe", layers=2, baseline=two_d_base),
            gpt_record("1d", "weak", 6, 12, 21.0, "pp=3 t=2", [0.3, 0.25, 0.2875],
                       [0.75 * mib, 0.5 * mib, 0.25 * mib], micro=6, layers=6)]


def write_runs(folder, runs):
    """The runs as bench's --json, in `folder`/scaling.json (one name, so that the reports'
    "Made by" lines are the same)."""
    os.makedirs(folder)
    path = os.path.join(folder, "scaling.json")
    with open(path, "w") as f:
        json.dump({"runs": runs, "pass": True, "failures": []}, f)
    return path


def start(report_py, path, out):
    """report.py on `path` into `out`, started: the reports run at once, each mostly importing
    matplotlib and drawing."""
    return subprocess.Popen([sys.executable, report_py, path, "-o", out], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(process):
    """The started report's exit status and output, once it ended."""
    stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def made(done, names):
    """Asserts the report ran and wrote `names`, as its last line counts and lists them."""
    assert done.returncode == 0, done.stderr
    want = rf"wrote .*report.md and {len(names)} plots: {re.escape(', '.join(names))}$"
    assert re.match(want, done.stdout.strip()), (done.stdout, names)


def without_section(markdown, title):
    """The Markdown's lines with its `## title` section cut out."""
    lines = markdown.splitlines()
    start = lines.index(f"## {title}")
    return lines[:start] + lines[start + len(section(markdown, title)):]


def check_pipeline_table(markdown, gpt):
    """The section links its plot, and has a row per run of S > 1 stages with the JSON's
    numbers; none for the one-stage baselines."""
    lines = section(markdown, PIPELINE)
    assert "![pipeline bubble](pipeline_bubble.png)" in lines, "the section links no plot"
    pipelined = [r for r in gpt if r["pp"] > 1]
    rows = table(lines)
    assert len(rows) == len(pipelined), f"{len(rows)} rows for {len(pipelined)} pipelined runs"
    mib = 2**20
    for r in pipelined:
        row = next(row for row in rows if (row["scheme"], row["mode"], row["p"], row["D"])
                   == (r["scheme"], r["mode"], str(r["np"]), str(r["dp"])))
        assert (row["S"], row["M"], row["schedule"], row["grid"]) == (
            str(r["pp"]), str(r["micro_batches"]), r["schedule"], r["grid"]), row
        assert f"L={r['layers']}" in row["shape"] and f"V={r['vocab']}" in row["shape"], row
        close(row["step ms"], r["step_ms"], 1)
        idle = row["idle % per stage"].split(", ")
        assert len(idle) == r["pp"], row
        for text, stage in zip(idle, r["stages"]):
            close(text, 100 * stage["idle_share"], 1)
        close(row["formula %"], 100 * r["bubble_formula"], 1)
        if "pp_efficiency" in r:
            assert row["baseline p/S"] == str(r["pp_baseline_np"]), row
            close(row["baseline ms"], r["pp_baseline_step_ms"], 1)
            close(row["PP efficiency"], r["pp_efficiency"], 2)
            close(row["1 - formula"], r["pp_efficiency_formula"], 2)
        else:
            assert row["baseline p/S"] == row["PP efficiency"] == row["1 - formula"] == "", row
        kept = row["kept MiB per stage"].split(", ")
        assert len(kept) == r["pp"], row
        for text, stage in zip(kept, r["stages"]):
            close(text, stage["kept_bytes"] / mib, 3)
        if r["kept_as_modelled"]:
            assert row["as modelled"] == "yes", row
        else:
            assert row["as modelled"].startswith("NO: model "), row
            model = row["as modelled"][len("NO: model "):].split(", ")
            for text, stage in zip(model, r["stages"]):
                close(text, stage["model_kept_bytes"] / mib, 3)
        assert ("oversubscribed" in row["note"]) == (r["np"] > CORES), row
        assert ("DP baseline" in row["note"]) == r["dp_baseline"], row
    return len(rows)


def check_mixed(blocks_done, mixed_done, out, gpt):
    """The report of the block's runs alone, then the report of the same with the GPT's runs
    beside them."""
    alone = os.path.join(out, "blocks")
    made(blocks_done, BLOCK_PLOTS)
    assert not os.path.exists(os.path.join(alone, "pipeline_bubble.png"))
    markdown_alone = open(os.path.join(alone, "report.md")).read()
    assert f"## {PIPELINE}" not in markdown_alone, "a pipeline section without pipelined runs"

    mixed = os.path.join(out, "mixed")
    made(mixed_done, BLOCK_PLOTS[:-1] + ["pipeline_bubble.png", "summary.png"])
    markdown = open(os.path.join(mixed, "report.md")).read()
    assert without_section(markdown, PIPELINE) == markdown_alone.splitlines(), (
        "the GPT's runs changed the block's sections")
    for name in BLOCK_PLOTS:
        with open(os.path.join(alone, name), "rb") as a, open(os.path.join(mixed, name), "rb") as m:
            assert a.read() == m.read(), f"the GPT's runs changed {name}"
    with open(os.path.join(mixed, "pipeline_bubble.png"), "rb") as f:
        assert f.read(8) == PNG_MAGIC, "pipeline_bubble.png is not a PNG"
    rows = check_pipeline_table(markdown, gpt)
    print(f"ok: the pipeline section tables {rows} runs as the JSON has them and links its plot; "
          f"the block's sections and {len(BLOCK_PLOTS)} plots are the same without the GPT's runs")


def check_gpt_only(done, out, gpt):
    """The report of the GPT's runs alone: the pipeline section and its plot, nothing of the
    block's."""
    folder = os.path.join(out, "gpt")
    made(done, ["pipeline_bubble.png"])
    assert sorted(os.listdir(folder)) == ["pipeline_bubble.png", "report.md"], os.listdir(folder)
    markdown = open(os.path.join(folder, "report.md")).read()
    headings = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert headings == [f"## {PIPELINE}"], headings
    check_pipeline_table(markdown, gpt)
    print("ok: the GPT's runs alone give the pipeline section alone")


def main():
    report_py = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "..", "..", "bench", "report", "report.py")
    blocks, gpt = block_sweep(), gpt_sweep()
    with tempfile.TemporaryDirectory() as out:
        running = {name: start(report_py, write_runs(os.path.join(out, f"{name}-in"), runs),
                               os.path.join(out, name))
                   for name, runs in (("blocks", blocks), ("mixed", blocks + gpt), ("gpt", gpt))}
        check_mixed(finish(running["blocks"]), finish(running["mixed"]), out, gpt)
        check_gpt_only(finish(running["gpt"]), out, gpt)


if __name__ == "__main__":
    main()
