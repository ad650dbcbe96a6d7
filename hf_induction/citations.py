"""The papers this project implements: one citation of each, used by every card and builder."""

# ruff: noqa: E501  (BibTeX author lists stay on one line)

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    title: str
    arxiv: str
    bibtex: str

    @property
    def url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv}"


INDUCTION_BIAS = Paper(
    title="On the 'Induction Bias' in Sequence Models",
    arxiv="2602.18333",
    bibtex="""@article{ebrahimi2026induction,
  title   = {On the 'Induction Bias' in Sequence Models},
  author  = {Ebrahimi, M. Reza and Defferrard, Micha{\\"e}l and Panchal, Sunny and Memisevic, Roland},
  journal = {arXiv preprint arXiv:2602.18333},
  year    = {2026}
}""",
)

BORN_A_TRANSFORMER = Paper(
    title="Born a Transformer -- Always a Transformer?",
    arxiv="2505.21785",
    bibtex="""@article{veitsman2025born,
  title   = {Born a Transformer -- Always a Transformer?},
  author  = {Veitsman, Yana and Jobanputra, Mayank and Sarrof, Yash and Bakalova, Aleksandra and Demberg, Vera and Pavlick, Ellie and Hahn, Michael},
  journal = {arXiv preprint arXiv:2505.21785},
  year    = {2025}
}""",
)
