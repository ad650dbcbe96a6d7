"""What one accelerator does with this project's training, in one JSON, in minutes.

    scripts/device_check.sh                     # installs the package if needed, then:
    python scripts/device_check.py --device cuda --json build/device_check.json
    python scripts/device_check.py --device cpu --preset tiny --quick   # the same path on a CPU

Six measurements, each guarded so that a failure or the time budget ends that one only:
- step_time: seconds per Adam step of every registered model at the preset, batch 64,
  length 20 (the paper's), and tokens per second;
- delta_rule: the chunked delta rule (DeltaNet, Gated DeltaNet) against its recurrent
  reference, training steps at T = 64 and 256;
- grid: the paper's 15-run grid (3 learning rates x 5 seeds) trained as one stacked model
  against one run timed alone (x15), same steps;
- stacking: the stacked grid's step time at k = 1, 2, 4, ... runs, and the largest k whose
  step costs at most 1.5x one run's (the runs a device holds "for free");
- processes: trained runs x steps per second of the Dense-SSM, the LSTM, GPT-2 and DeltaNet
  with 1, 2, 4 and 8 processes on the one device, each training the paper's stacked grid
  (what `estimate-grid --device-check` reads);
- paper_probe: one real probe of the paper's protocol (`nstar.py --preset paper` with the
  forecast early-failure rule) on modadd acot_L10_uniform, its wall time and training steps.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import PAPER_LENGTH, VOCAB, echo_data, stacked_and_one, timing_settings

ROOT = Path(__file__).resolve().parents[1]


def synchronise(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize(device)


def seconds_per_step(model, device: str, steps: int, batch: int = 64,
                     length: int = PAPER_LENGTH) -> float:
    """Best of ``steps`` Adam steps after one untimed warm-up, device-synchronised."""
    import torch

    from hf_induction.training import causal_lm_loss
    from hf_induction.training.steps import logits_of

    ids = torch.randint(0, VOCAB - 4, (batch, length),
                        generator=torch.Generator().manual_seed(0)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    best = float("inf")
    for i in range(steps + 1):
        synchronise(device)
        start = time.perf_counter()
        loss = causal_lm_loss(logits_of(model(input_ids=ids)), ids)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        synchronise(device)
        if i:  # the first step pays for allocation and kernel selection
            best = min(best, time.perf_counter() - start)
    return best


def step_time(args) -> dict:
    from hf_induction.models import MODEL_NAMES, build_model

    out = {}
    for name in MODEL_NAMES:
        model = build_model(name, VOCAB, args.preset).to(args.device)
        seconds = seconds_per_step(model, args.device, 2 if args.quick else 10)
        out[f"{name}_step_s"] = seconds
        out[f"{name}_tokens_per_s"] = 64 * PAPER_LENGTH / seconds
        out[f"{name}_parameters"] = sum(p.numel() for p in model.parameters())
    return out


def delta_rule(args) -> dict:
    """The chunked delta rule against its step-by-step reference on this device (the CPU
    figures: bench/delta_rule_chunked_vs_recurrent.py), batch 16, T = 64 and 256."""
    from hf_induction.models import build_model

    out = {}
    for name in ("deltanet", "gated_deltanet"):
        for length in (64, 256):
            for kernel in ("chunked", "recurrent"):
                model = build_model(name, VOCAB, args.preset,
                                    delta_rule_kernel=kernel).to(args.device)
                out[f"{name}_{kernel}_T{length}_step_s"] = seconds_per_step(
                    model, args.device, 2 if args.quick else 5, batch=16, length=length)
            out[f"{name}_chunked_vs_recurrent_T{length}"] = (
                out[f"{name}_recurrent_T{length}_step_s"] / out[f"{name}_chunked_T{length}_step_s"])
    return out


def grid(args) -> dict:
    """15 stacked runs against one run alone (x15): what stacking buys on this device."""
    from hf_induction.models import build_model

    data = echo_data()
    steps = 2 if args.quick else 50
    out = {}
    for name in ("dense_ssm", "lstm", "gpt2", "rope"):
        settings = timing_settings(steps, (1e-3, 1e-4, 1e-5), device=args.device)

        def factory(name=name):
            return build_model(name, VOCAB, args.preset)

        stacked, alone = stacked_and_one(factory, data, settings)
        out[f"{name}_grid_steps"] = steps
        out[f"{name}_stacked_15_s"] = stacked
        out[f"{name}_sequential_15_s"] = 15 * alone
        out[f"{name}_grid_speedup"] = 15 * alone / stacked
    return out


def stacking(args) -> dict:
    """Step time of k stacked runs until it grows past 1.5x one run's, per model."""
    from hf_induction.models import build_model
    from hf_induction.training import train_grid

    data = echo_data()
    steps = 3 if args.quick else 20
    ks = (1, 2, 4) if args.quick else (1, 2, 4, 8, 15, 30, 60, 120)
    out = {}
    for name in ("dense_ssm", "gpt2"):
        def factory(name=name):
            return build_model(name, VOCAB, args.preset)

        per_step = {}
        for k in ks:
            settings = timing_settings(steps, (1e-3,), range(10, 10 + k), args.device)
            start = time.perf_counter()
            train_grid(factory, data, 1024, settings)
            per_step[k] = (time.perf_counter() - start) / steps
            out[f"{name}_stacked_{k}_step_s"] = per_step[k]
            if per_step[k] > 1.5 * per_step[ks[0]]:
                break
        out[f"{name}_free_runs"] = max(k for k, s in per_step.items()
                                       if s <= 1.5 * per_step[ks[0]])
    return out


def _process_worker(rank: int, name: str, preset: str, device: str, steps: int, barrier,
                    answers) -> None:
    """One of P processes sharing the device: the paper's 15-run grid of ``name``, stacked
    where the trainer stacks it, for ``steps`` steps, timed from a common start."""
    import torch

    from hf_induction.models import build_model
    from hf_induction.training import train_grid

    torch.set_num_threads(1)
    settings = timing_settings(steps, (1e-3, 1e-4, 1e-5), device=device)
    data = echo_data()

    def factory():
        return build_model(name, VOCAB, preset)

    train_grid(factory, data, 1024, dataclasses.replace(settings, max_steps=1))  # warm-up
    barrier.wait()
    start = time.perf_counter()
    train_grid(factory, data, 1024, settings)
    synchronise(device)
    answers.put((rank, time.perf_counter() - start))


def processes(args) -> dict:
    """Trained runs x steps per second with P = 1, 2, 4, 8 processes on the one device, each
    training the paper's 15-run grid: what `--nproc_per_node` above the device count buys
    (with CUDA MPS running, their kernels overlap; without it they time-slice)."""
    import torch.multiprocessing as mp

    steps = 2 if args.quick else 30
    counts = (1, 2) if args.quick else (1, 2, 4, 8)
    # Quick: the path only (each process start imports torch and transformers, seconds).
    models = ("dense_ssm",) if args.quick else ("dense_ssm", "lstm", "gpt2", "deltanet")
    out = {}
    ctx = mp.get_context("spawn")
    for name in models:
        rates = {}
        for count in counts:
            if args.left() <= 0:
                break
            barrier, answers = ctx.Barrier(count), ctx.Queue()
            procs = [ctx.Process(target=_process_worker, args=(
                r, name, args.preset, args.device, steps, barrier, answers))
                for r in range(count)]
            for proc in procs:
                proc.start()
            walls = [answers.get(timeout=max(60.0, args.left()))[1] for _ in procs]
            for proc in procs:
                proc.join()
            rates[count] = count * 15 * steps / max(walls)
            out[f"{name}_P{count}_run_steps_per_s"] = rates[count]
        if rates:
            best = max(rates, key=rates.get)
            out[f"{name}_best_processes"] = best
            out[f"{name}_run_steps_per_s"] = rates[best]
            out[f"{name}_processes_gain"] = rates[best] / rates[counts[0]]
    return out


def paper_probe(args) -> dict:
    """One probe of the paper's protocol with early failure, through the command line."""
    with tempfile.TemporaryDirectory() as tmp:
        budget = (["--max-steps", "20", "--eval-every", "10", "--early-failure", "forecast"]
                  if args.quick else ["--early-failure", "forecast"])
        cmd = [sys.executable, str(ROOT / "scripts" / "nstar.py"), "--dataset", "modadd",
               "--config", "acot_L10_uniform", "--model", "dense_ssm", "--preset",
               "paper" if args.preset == "paper" else "cpu", "--device", args.device,
               "--max-search-steps", "1", "--n-start", "1000", *budget, "--no-progress",
               "--out", str(Path(tmp) / "probe")]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=max(60.0, args.left()))
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        journal = [json.loads(line) for f in (Path(tmp) / "probe" / "journal").glob("*.jsonl")
                   for line in f.read_text().splitlines() if line.strip()]
    return {"paper_probe_wall_s": wall, "paper_probe_runs": len(journal),
            "paper_probe_steps": sum(r["steps"] for r in journal),
            "paper_probe_success": any(r["success"] for r in journal),
            "paper_probe_command": " ".join(cmd[1:])}


MEASUREMENTS = {"step_time": step_time, "delta_rule": delta_rule, "grid": grid,
                "stacking": stacking, "processes": processes, "paper_probe": paper_probe}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu (default: cuda)")
    p.add_argument("--preset", choices=("paper", "tiny"), default=None,
                   help="model sizes (default: paper on cuda, tiny on cpu)")
    p.add_argument("--quick", action="store_true", help="a few steps of each: the path only")
    p.add_argument("--budget-s", type=float, default=480.0,
                   help="stop starting measurements after this many seconds (default 480)")
    p.add_argument("--only", nargs="+", choices=list(MEASUREMENTS), default=list(MEASUREMENTS))
    p.add_argument("--json", type=Path, default=Path("build/device_check.json"),
                   help="where the figures go (default: build/device_check.json)")
    args = p.parse_args(argv)
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error(f"--device {args.device}: no CUDA device here; use --device cpu")
    args.preset = args.preset or ("paper" if args.device.startswith("cuda") else "tiny")
    torch.set_num_threads(1 if args.device == "cpu" else torch.get_num_threads())
    started = time.perf_counter()
    args.left = lambda: args.budget_s - (time.perf_counter() - started)
    result = {"device": (torch.cuda.get_device_name(args.device)
                         if args.device.startswith("cuda") else platform.machine() + " cpu"),
              "preset": args.preset, "quick": args.quick, "torch": torch.__version__}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    for name in args.only:
        if args.left() <= 0:
            result[f"{name}_skipped"] = "time budget spent"
            continue
        print(f"[{name}]", flush=True)
        start = time.perf_counter()
        try:
            figures = MEASUREMENTS[name](args)
        except Exception as e:  # one measurement's failure is a figure too; go on
            figures = {f"{name}_error": f"{type(e).__name__}: {str(e)[:300]}"}
        figures[f"{name}_s"] = time.perf_counter() - start
        for key, value in figures.items():
            print(f"  {key:40s} {value:,.4g}" if isinstance(value, float)
                  else f"  {key:40s} {value}", flush=True)
        result.update(figures)
        # Written after every measurement: a device lost mid-way keeps what was measured.
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
