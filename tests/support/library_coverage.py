"""Which numpy and scipy functions compiled code takes: the public callables of `np`,
`np.linalg`, `np.fft`, `scipy.special` and `scipy.linalg` that the frontend resolves (aliases
such as `np.acos` counted by name; `np.einsum`, `np.add.at` and `scipy.stats`' methods are resolved
elsewhere and not counted). `python -m tests.support.library_coverage` prints the counts and names;
the README quotes the counts (tests/library/test_library_coverage.py keeps them equal)."""

from __future__ import annotations

import numpy as np


def supported(module, prefix: str) -> list[str]:
    from adlite.compiler.frontend import to_ir  # noqa: F401  (registers all)
    from adlite.compiler.frontend.library import registry

    names = []
    for name in sorted(dir(module)):
        obj = getattr(module, name)
        if not name.startswith("_") and callable(obj) and not isinstance(obj, type) and \
                registry.lookup(obj) is not None:
            names.append(prefix + name)
    return names


def numpy_names() -> list[str]:
    return supported(np, "np.") + supported(np.linalg, "np.linalg.") + \
        supported(np.fft, "np.fft.")


def scipy_names() -> list[str]:
    import scipy.linalg
    import scipy.special

    return supported(scipy.special, "scipy.special.") + supported(scipy.linalg, "scipy.linalg.")


if __name__ == "__main__":
    for title, names in (("numpy", numpy_names()), ("scipy", scipy_names())):
        print(f"{title}: {len(names)}\n  {' '.join(names)}")
