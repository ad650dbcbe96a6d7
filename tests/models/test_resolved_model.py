"""A model name resolved once: one object holds its config, tokenizer, hash and factory, and
the builder and the pretrained loader do not import each other."""

import ast
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "hf_induction" / "models"


def imported_siblings(module: str) -> set[str]:
    """The modules of the models package that ``module`` imports, at its top or in a function."""
    tree = ast.parse((MODELS / f"{module}.py").read_text())
    return {node.module.split(".")[0] for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}


def test_the_builder_and_the_pretrained_loader_do_not_import_each_other():
    assert "build" not in imported_siblings("pretrained")
    assert "pretrained" in imported_siblings("build")


def test_a_resolved_model_holds_what_its_jobs_need():
    from hf_induction.models.build import build_config, model_config_hash, resolve_model
    from hf_induction.tasks import WordProblemCell

    cell = WordProblemCell.parse("modadd", "acot_L4_m3")
    resolved = resolve_model("lstm", cell.vocab, "tiny")
    assert resolved.name == resolved.source.name == "lstm"
    assert resolved.tokenizer is None
    assert resolved.config.vocab_size == cell.vocab.size
    assert resolved.config_hash == model_config_hash(build_config("lstm", cell.vocab, "tiny"))
    model = resolved.factory()
    assert model.config.to_dict() == resolved.config.to_dict()
    assert resolved.factory is resolved.factory
