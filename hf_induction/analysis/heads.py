"""Attention heads of checkpoints as rows of a results folder (``hf-induction heads``).

    folder = ResultsFolder(out)
    checkpoints, notes = kept_checkpoints_of(folder, models=["rope"])   # checkpoints/
    # or: [given_checkpoint("path/to/model", [parse("copy", "UF_L10")])]
    score_checkpoints(folder, checkpoints, HeadsOptions(n_prompts=256, patch=True))

Each checkpoint is read on its prompt sets (``analysis.sets``): a kept one on its family's
tasks at its own cell and on repeated random sequences over its symbols, a given one on the
cells named and the same repeated sequences. Every (checkpoint, prompt config, layer, head)
is one `HeadsRow` (``analysis.head_scores``), and with ``patch`` every (..., kind) one
`PatchingRow` (``analysis.edge_patching``), keyed by `run_key` so that a rerun skips what
is recorded; ``heads.json`` is rewritten from the tables at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tqdm.auto import tqdm

from ..models.build import transformers_bars_off
from ..results import (
    HeadsRow,
    PatchingRow,
    ResultsFolder,
    kept_checkpoints,
    read_trained_on,
    run_key,
)
from ..results.heads_json import write_heads_json
from ..tasks import TaskCell, parse_or_none
from . import (
    KINDS,
    SCORES,
    HeadPrompts,
    PromptSet,
    cell_sets,
    checkpoint_sets,
    edge_patching,
    head_scores,
)


@dataclass(frozen=True)
class Checkpoint:
    """A model folder and what it is read on. ``name`` is the rows' ``checkpoint`` column
    (a kept checkpoint's folder name, or the path as given); ``trained_on`` is
    ``dataset/config``, "" where unknown."""

    path: Path
    name: str
    model: str
    trained_on: str
    sets: tuple[PromptSet, ...]


@dataclass(frozen=True)
class HeadsOptions:
    """How many prompts of each set, drawn with which seed; patching or not; rows per
    forward."""

    n_prompts: int = 256
    seed: int = 0
    patch: bool = False
    batch_size: int = 64


def kept_checkpoints_of(folder: ResultsFolder, models: Sequence[str] | None = None
                        ) -> tuple[list[Checkpoint], list[str]]:
    """The checkpoints the folder keeps (of ``models`` only, where given), and one line for
    each one, or prompt set, left out: no record of its training cell, or a task of its
    family its symbols cannot draw."""
    found, notes = [], []
    for path in kept_checkpoints(folder.path):
        record = read_trained_on(path) or {}
        cell = parse_or_none(str(record.get("dataset")), str(record.get("config")))
        if cell is None:
            notes.append(f"{path.name}: left out, no readable trained_on.json (score it with "
                         "--checkpoint PATH --dataset D --config C)")
            continue
        if models is not None and record.get("model") not in models:
            continue
        sets, left_out = checkpoint_sets(cell)
        notes += [f"{path.name}: {line}" for line in left_out]
        found.append(Checkpoint(path, path.name, str(record["model"]),
                                f"{cell.dataset}/{cell}", tuple(sets)))
    return found, notes


def given_checkpoint(path: str, cells: Sequence[TaskCell]) -> Checkpoint:
    """A model folder from anywhere, read on ``cells`` and their repeated sequences; its
    model and training cell come from a trained_on.json where it has one (one of ours)."""
    record = read_trained_on(path) or {}
    trained = parse_or_none(str(record.get("dataset")), str(record.get("config")))
    model = record.get("model") or _model_type(path)
    return Checkpoint(Path(path), str(path), str(model),
                      "" if trained is None else f"{trained.dataset}/{trained}",
                      tuple(cell_sets(cells)))


def _model_type(path: str) -> str:
    from transformers import AutoConfig

    return AutoConfig.from_pretrained(path, trust_remote_code=True).model_type


def load_checkpoint(path: str | Path):
    """``AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)``; OSError, one
    line, where the folder holds no model transformers can load."""
    from transformers import AutoModelForCausalLM

    try:
        with transformers_bars_off():
            return AutoModelForCausalLM.from_pretrained(str(path), trust_remote_code=True)
    except (OSError, ValueError, KeyError) as e:
        why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise OSError(f"cannot load {path} as a causal LM: {why}") from None


def check_vocabulary(model, checkpoint: Checkpoint, prompt_set: PromptSet,
                     prompts: Sequence[HeadPrompts]) -> None:
    """ValueError where the prompts use a token id the model has no embedding for."""
    size = model.get_input_embeddings().num_embeddings
    top = max(int(p.input_ids.max()) for p in prompts)
    if top >= size:
        raise ValueError(
            f"{checkpoint.name} embeds {size} token ids, but the prompts of "
            f"{prompt_set.dataset}/{prompt_set.config} use ids up to {top}: name a cell with "
            f"fewer symbols (V <= {size - 4}, the symbols then BOS, SEP, EOS, PAD)")


def ready_model(checkpoint: Checkpoint, options: HeadsOptions):
    """The checkpoint's model, loaded and checked against its prompt sets before anything is
    written: OSError where it holds no model, ValueError where a set's prompts use a token it
    cannot embed or hold no scored position, `NoAttention` where it has no attention."""
    model = load_checkpoint(checkpoint.path)
    for prompt_set in checkpoint.sets:
        prompts = prompt_set.build(options.n_prompts, options.seed)
        check_vocabulary(model, checkpoint, prompt_set, prompts)
        if not sum(p.n_positions for p in prompts):
            raise ValueError(f"the prompts of {prompt_set.dataset}/{prompt_set.config} hold no "
                             "scored position (no symbol whose one earlier occurrence has "
                             "neighbours): a task with repeating symbols has none")
    # Two rows of the last set (repeated sequences: every row has scored positions).
    head_scores(model, checkpoint.sets[-1].build(2, options.seed))
    return model


def _shape(model) -> tuple[int, int] | None:
    """(layers, heads) as the config states them, None where it states no heads."""
    config = model.config
    layers = getattr(config, "num_hidden_layers", None)
    heads = getattr(config, "num_attention_heads", None)
    return (layers, heads) if isinstance(layers, int) and isinstance(heads, int) else None


class SetScorer:
    """Scores one prompt set of one checkpoint into the folder, skipping recorded rows."""

    def __init__(self, folder: ResultsFolder, checkpoint: Checkpoint, prompt_set: PromptSet,
                 options: HeadsOptions) -> None:
        self.folder, self.checkpoint, self.set, self.options = (folder, checkpoint,
                                                                prompt_set, options)
        self.fields = {"checkpoint": checkpoint.name, "dataset": prompt_set.dataset,
                       "config": prompt_set.config, "prompts": options.n_prompts,
                       "seed": options.seed}

    def heads_key(self, layer: int, head: int) -> str:
        return run_key(kind="heads", layer=layer, head=head, **self.fields)

    def patching_key(self, kind: str, layer: int, head: int) -> str:
        return run_key(kind="patching", patch=kind, layer=layer, head=head, **self.fields)

    def todo(self, shape: tuple[int, int] | None) -> tuple[bool, bool]:
        """(scores needed, patching needed): whether some head of the model's ``shape``
        (layers, heads; None where unknown, then everything is) has no recorded row."""
        if shape is None:
            return True, self.options.patch
        grid = [(layer, head) for layer in range(shape[0]) for head in range(shape[1])]
        scores = any(self.folder.find(HeadsRow, self.heads_key(*lh)) is None for lh in grid)
        patch = self.options.patch and any(
            self.folder.find(PatchingRow, self.patching_key(kind, *lh)) is None
            for kind in KINDS for lh in grid)
        return scores, patch

    def run(self, model) -> tuple[int, int]:
        """Score (and patch) what is not recorded; returns the rows added (heads, patching)."""
        need_scores, need_patch = self.todo(_shape(model))
        if not (need_scores or need_patch):
            return 0, 0
        opts = self.options
        prompts = self.set.build(opts.n_prompts, opts.seed)
        check_vocabulary(model, self.checkpoint, self.set, prompts)
        common = {"model": self.checkpoint.model, "checkpoint": self.checkpoint.name,
                  "dataset": self.set.dataset, "config": self.set.config,
                  "trained_on": self.checkpoint.trained_on,
                  "n_prompts": sum(len(p) for p in prompts), "seed": opts.seed}
        added = [0, 0]
        if need_scores:
            scores = head_scores(model, prompts, batch_size=opts.batch_size)
            layers, heads = scores[SCORES[0]].shape
            for layer in range(layers):
                for head in range(heads):
                    key = self.heads_key(layer, head)
                    if self.folder.find(HeadsRow, key) is None:
                        self.folder.append(HeadsRow(
                            key=key, layer=layer, head=head, n_positions=scores["n_positions"],
                            finished_at=_now(), **common,
                            **{name: float(scores[name][layer, head]) for name in SCORES}))
                        added[0] += 1
        if need_patch:
            added[1] = self._patch(model, prompts, common)
        return added[0], added[1]

    def _patch(self, model, prompts, common) -> int:
        # Ranked by the rise in loss already (`edge_patching`): a kind's rows keep that order.
        rows = edge_patching(model, prompts, batch_size=self.options.batch_size)
        added = 0
        for kind in KINDS:
            ranked = [r for r in rows if r["kind"] == kind]
            for rank, r in enumerate(ranked, start=1):
                key = self.patching_key(kind, r["layer"], r["head"])
                if self.folder.find(PatchingRow, key) is None:
                    self.folder.append(PatchingRow(
                        key=key, rank=rank, finished_at=_now(), **common, **r))
                    added += 1
        return added


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class HeadsSummary:
    """What a call recorded: rows added, sets answered from the folder, checkpoints skipped."""

    heads_added: int
    patching_added: int
    sets_recorded_before: int
    skipped: tuple[str, ...]
    heads_json: Path


def score_checkpoints(folder: ResultsFolder, checkpoints: Sequence[Checkpoint],
                      options: HeadsOptions = HeadsOptions(), progress: bool = True,
                      skip_without_attention: bool = False,
                      loaded: Mapping[str, object] | None = None) -> HeadsSummary:
    """Score every prompt set of every checkpoint into ``folder`` (module docstring), then
    rewrite its ``heads.json``. A checkpoint without attention raises `NoAttention`, or, with
    ``skip_without_attention``, is left out with a line in the summary; a prompt that uses a
    token the model cannot embed raises ValueError; a folder that holds no model, OSError.
    ``loaded`` holds models already loaded (`ready_model`), by checkpoint name."""
    from . import NoAttention

    added, before, skipped = [0, 0], 0, []
    bar = tqdm(total=sum(len(c.sets) for c in checkpoints), desc="heads", unit="set",
               disable=not progress, dynamic_ncols=True)
    try:
        for checkpoint in checkpoints:
            model = (loaded or {}).get(checkpoint.name) or load_checkpoint(checkpoint.path)
            for prompt_set in checkpoint.sets:
                bar.set_postfix_str(f"{checkpoint.name} {prompt_set.config}")
                try:
                    heads, patching = SetScorer(folder, checkpoint, prompt_set, options).run(model)
                except NoAttention as e:
                    if not skip_without_attention:
                        raise NoAttention(f"{checkpoint.name}: {e}") from None
                    skipped.append(f"{checkpoint.name}: left out, {e}")
                    bar.update(len(checkpoint.sets) - checkpoint.sets.index(prompt_set))
                    break
                added[0] += heads
                added[1] += patching
                before += heads == patching == 0
                bar.update()
    finally:
        bar.close()
    return HeadsSummary(added[0], added[1], before, tuple(skipped), write_heads_json(folder))


__all__ = ["Checkpoint", "HeadsOptions", "HeadsSummary", "given_checkpoint",
           "kept_checkpoints_of", "load_checkpoint", "ready_model", "score_checkpoints"]
