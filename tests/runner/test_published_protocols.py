"""Every published folder keeps its protocol hash, and each that resumes is resumed by a
command line of today: the settings' declarations (their presets, `plain` values and the
rules of `settings.legacy`) still record what those folders recorded."""

import json
import shlex
from pathlib import Path

import pytest

from hf_induction.commands.nstar import build_parser, given_settings, parse_args
from hf_induction.results.jsonl import clean
from hf_induction.results.protocol import extend_protocol, protocol_hash

RESULTS = Path(__file__).resolve().parents[2] / "results"
FOLDERS = sorted(p.parent.name for p in RESULTS.rglob("protocol.json"))

# The hash that keys each published folder's runs and rows.
HASHES = {
    "architectures_m2": "921d4647135cb438",
    "architectures_m5": "54e0758fc91bb97b",
    "architectures_s3": "63437fd04074fdba",
    "cpu": "27e409f20cb64eb6",
    "cpu_m": "8807a4493b372611",
    "delta_parity": "01996c6ed8ae09e7",
    "deltaproduct_z5_lr": "e73c30532de2893c",
    "early_failure_2500": "3a2e783cedaf2327",
    "finetune_no_offsets": "3fd7a6a38fc2f8a2",
    "finetune_offsets": "82eaee69dabe9cda",
    "expressible_seed10": "fae598a05d2e182d",
    "expressible_seed20": "8230651ceeffd39e",
    "expressible_seed30": "c5a8d03866fec377",
    "first_campaign": "9d91abdd6a2c8d95",
    "gpt2": "73fdb6d83c8fd775",
    "gpt2_l10": "cda11cd5748246ef",
    "groups": "8807a4493b372611",
    "groups_15k": "629bcac86f23b8fe",
    "hybrid_z5_lr": "c04b6c3df2a82ef4",
    "indist_m5": "bba870798c67b09d",
    "length2_m5": "8a24319f2849c8dc",
    "lengthgen": "e2b5bd6213e6c72d",
    "lengthgen_eps1e-3": "7114c0ff3a90cdf5",
    "natural": "e2b5bd6213e6c72d",
    "no_early_failure": "14dfdf7c26e57e5e",
    "rates_deltaproduct": "3e9e67f868942fef",
    "rates_mamba3": "9f9a7c9079b0a603",
    "rates_path_attn": "0f2d2a92726eaa5c",
    "rates_pd_ssm": "d463b6e238e06c85",
    "rates_provisional": "ceb0a9073bc060f7",
    "rates_qwen3_next": "e2566cc999ee0e90",
    "rates_rwkv7": "fbd9e308f30f03b4",
    "rates_selective_ssm": "79af1b3ac0f37cae",
    "rope_uf": "5c41062270d4490a",
}

# Folders made before the token layout of today (no layout_version, and no dtype or mixed
# precision in their protocol): they are read, and no launch of today resumes them.
READ_ONLY = {"early_failure_2500", "first_campaign", "gpt2", "no_early_failure"}

# Command lines that resume a folder where none of its recorded ones does today: folders made
# under an earlier default early-failure rule name it, as the mismatch message advises.
RESUMES = {
    "cpu": ["--dataset modadd --config cot_L5 --kappa --model gpt2 --early-failure forecast-v1"],
    "length2_m5": ["--dataset modadd --config acot_L2 outcome_L2 --model dense_ssm --preset "
                   "paper --max-steps 30000 --eval-every 500 --lrs 1e-3,1e-4 --seeds 10 "
                   "--full-grid --n-start 20"],
    "lengthgen": ["--sweep scripts/sweeps/lengthgen.yaml --early-failure off",
                  "--sweep scripts/sweeps/heads.yaml --keep-checkpoints --early-failure off"],
    "lengthgen_eps1e-3": [
        "--dataset retrieval --config UR_L10_uniform UL_L10_uniform NRFirst_L10_uniform "
        "NRLast_L10_uniform --model rope --epsilon 1e-3 --max-steps 3000 --eval-every 100 "
        "--lrs 0.003,0.001 --seeds 10 --n-start 512 --early-failure off"],
}


def recorded_commands(folder: str) -> list[str]:
    """The nstar command lines of the folder's campaign.json, as the arguments after nstar."""
    commands = json.loads((RESULTS / folder / "campaign.json").read_text())["commands"]
    argvs = []
    for command in commands:
        words = shlex.split(command)
        # scripts/nstar.py, hf-induction nstar or python -m hf_induction nstar.
        at = next((i for i, w in enumerate(words) if w.endswith("nstar.py") or (
            w == "nstar" and i and words[i - 1] in ("hf-induction", "hf_induction"))), None)
        if at is not None:
            argvs.append(shlex.join(words[at + 1:]))
    return argvs


def protocol_of(command: str, out: Path) -> dict:
    """The protocol a launch of ``command`` records, read from the settings alone (no model is
    built: a folder's hf: and pretrained: models need not be here)."""
    from hf_induction.runner.run import Campaign
    from hf_induction.runner.settings import campaign_settings
    from hf_induction.runner.sweep import load_sweep

    words = shlex.split(command)
    if "--out" in words:
        del words[words.index("--out"):words.index("--out") + 2]
    parser = build_parser()
    root = Path(__file__).resolve().parents[2]
    words = [str(root / w) if w.startswith("scripts/") else w for w in words]
    args = parse_args(parser, [*words, "--out", str(out)])
    models = ([j.model for j in load_sweep(args.sweep).jobs] if args.sweep is not None
              else args.model)
    settings = campaign_settings(given_settings(args), args.budget, dict.fromkeys(models))
    return Campaign((), settings.train, settings.search, "", out,
                    by_model=settings.by_model).protocol()


def test_every_published_folder_has_its_hash_held_here():
    assert FOLDERS and sorted(HASHES) == FOLDERS
    for folder in FOLDERS:
        held = json.loads((RESULTS / folder / "protocol.json").read_text())
        assert protocol_hash(held) == HASHES[folder], folder


@pytest.mark.parametrize("folder", sorted(set(HASHES) - READ_ONLY))
def test_a_launch_of_today_resumes_the_folder_under_its_hash(folder, tmp_path):
    commands = RESUMES.get(folder) or recorded_commands(folder)
    assert commands, f"{folder}: no command line resumes it"
    held = json.loads((RESULTS / folder / "protocol.json").read_text())
    for command in commands:
        record, differences = extend_protocol(held, clean(protocol_of(command, tmp_path)))
        assert not differences, f"{folder}: {command}: {differences}"
        assert protocol_hash(record) == HASHES[folder], command
