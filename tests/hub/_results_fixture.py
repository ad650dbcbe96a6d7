"""A small known results folder: κ rows for two models × two formats of modadd, and one of S_5."""

from pathlib import Path

from hf_induction.results import KappaRow, NstarRow, ResultsFolder

# (dataset, format, model) -> (N*_n for n = 2..L, N*_joint); None = not found.
NSTARS = {
    ("modadd", "acot", "lstm"): ([40, 80, 120], 60),           # κ = 240 / 60 = 4
    ("modadd", "acot", "gpt2"): ([50, 100, 150], 600),         # κ = 0.5
    ("modadd", "cot", "lstm"): ([30, 30, 30], 45),             # κ = 2
    ("modadd", "cot", "gpt2"): ([100, None, 100], 150),        # κ undefined
    ("permutation", "acot", "dense_ssm"): ([64, 128, 256], 112),  # κ = 4
}
L = 4
# The one cell whose search pushed its checkpoint (--push-checkpoints), and the repo.
CHECKPOINTED = ("modadd", "acot", "lstm")
CHECKPOINT_REPO = "org/lstm-modadd-acot_L4_uniform"


def nstar_row(dataset, config, model, n_star):
    return NstarRow(
        key=f"search-{dataset}-{config}-{model}", dataset=dataset, config=config, model=model,
        model_config_hash="h" + model, search_mode="refined", pool_size=10**6, n_cap=10**6,
        n_star=n_star, largest_failing=None if n_star is None else n_star // 2,
        search_end="bracket closed" if n_star is not None else "probe limit reached",
        num_probes=5, total_steps=1000, probes="[]",
        search_settings="{}", epsilon=1e-4, protocol_hash="p0", package_version="0.1.0",
        git_commit="deadbeef", hardware="cpu", wall_s=1.0,
        finished_at="2026-01-01T00:00:00+00:00",
    )


def write_results(path: Path, **train) -> ResultsFolder:
    """A results folder of κ rows over `NSTARS`; ``train`` adds to its protocol's training
    settings (``validation="in-distribution"``)."""
    folder = ResultsFolder(path)
    # Every folder nstar.py writes records its protocol; readers check it is there.
    folder.check_protocol({"train": {"max_steps": 10, "lrs": [0.01], "seeds": [1, 2],
                                     "epsilon": 1e-4, **train}, "search": {"mode": "refined"}})
    for (dataset, fmt, model), (by_n, joint) in NSTARS.items():
        rows = {n: nstar_row(dataset, f"{fmt}_L{n}", model, v)
                for n, v in zip(range(2, L + 1), by_n, strict=True)}
        joint_row = nstar_row(dataset, f"{fmt}_L{L}_uniform", model, joint)
        for row in [*rows.values(), joint_row]:
            folder.append(row)
        if (dataset, fmt, model) == CHECKPOINTED:
            folder.append_push(f"push-{joint_row.key}", CHECKPOINT_REPO, joint_row.key)
        folder.append(KappaRow.build(
            key=f"kappa-{dataset}-{fmt}-{model}", by_length=rows, joint=joint_row,
            finished_at="2026-01-01T00:00:00+00:00"))
    return folder


def folder_snapshot(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes, to show a push left the folder untouched."""
    files = sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p.relative_to(path)): p.read_bytes() for p in files}
