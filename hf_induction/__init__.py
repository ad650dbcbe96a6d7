"""hf-induction: N* and the sharing factor kappa for state-tracking tasks, Hugging Face-native."""

__version__ = "0.1.0"
