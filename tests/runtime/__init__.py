"""The eager tape (`adlite.runtime`): per-op gradchecks, the seed examples, tape semantics, its
import layers, PyTorch as a reference."""
