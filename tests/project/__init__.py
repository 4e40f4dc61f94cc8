"""The project as shipped: packaging, the README's layout, docstring examples, examples, Python
removals, deterministic test ids."""
