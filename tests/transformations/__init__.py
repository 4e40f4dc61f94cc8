"""The transformations and their API: vmap, Jacobians, custom derivatives, checkpointing,
structured arguments (pytrees), JAX's names, entry arguments."""
