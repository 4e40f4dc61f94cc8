"""First-call time against function size: `grad` of generated straight-line functions.

`straight_line(k, array)` writes the source of a function of K statements, each a numeric
expression of the previous value, one earlier value chosen at random (fixed seed) and the
inputs (`t5 = t4 * x + np.sin(t2)`, `t6 = np.tanh(t5 + t1 * y)`, ...); the array variant
runs the same statements on a vector `x` and returns their sum. `first_call_seconds` times
the first `grad` call of such a function in a fresh process with the compiled-code cache off
(imports and writing the source excluded). `python -m benchmarks.compile_time [K ...]` prints
the tables and the fitted exponents (least-squares slope of log time against log K);
`table()` is the `make bench` section.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import tempfile

SIZES = (250, 500, 1000, 2000, 5000)
ARRAY_SIZES = (25, 50, 100)
_FORMS = (  # (a: the previous value, b: an earlier one, c: another earlier one)
    "{a} * x + np.sin({b})",
    "np.cos({a}) * {b} - 0.5 * y",
    "np.tanh({a} + {b} * y)",
    "0.5 * {a} + {b} / (1.0 + {c} * {c})",
    "np.exp(-{a} * {a}) * {b} + x",
    "{a} * 0.9 - {b} * {c} * 0.1",
)


def straight_line(k: int, array: bool = False, name: str = "f") -> str:
    """The source of `name(x, y)`: K statements `t1 .. tK` (deterministic), returning a float
    (`np.sum` of the last value for the array variant, where `x` is a vector)."""
    rng = random.Random(k)
    lines = ["import numpy as np", "", "", f"def {name}(x, y):", "    t0 = x * y"]
    for i in range(1, k + 1):
        a, b, c = f"t{i - 1}", f"t{rng.randrange(i)}", f"t{rng.randrange(i)}"
        lines.append(f"    t{i} = " + rng.choice(_FORMS).format(a=a, b=b, c=c))
    lines.append(f"    return np.sum(t{k})" if array else f"    return t{k}")
    return "\n".join(lines) + "\n"


_CHILD = """
import importlib.util, sys, time
import numpy as np
from adlite.compiler import grad
spec = importlib.util.spec_from_file_location("generated_straight_line", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = np.linspace(0.1, 0.9, 64) if sys.argv[2] == "array" else 0.3
start = time.perf_counter()
grad(module.f, wrt=(0, 1))(x, 0.7)
print(time.perf_counter() - start)
"""


def first_call_seconds(k: int, array: bool = False, repeats: int = 1) -> float:
    """Best of `repeats` fresh processes: seconds of the first `grad` call (compilation
    included, disk cache off)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "generated_straight_line.py")
        with open(path, "w") as f:
            f.write(straight_line(k, array))
        env = {**os.environ, "ADLITE_CACHE_DIR": "off"}
        times = [float(subprocess.run([sys.executable, "-c", _CHILD, path,
                                       "array" if array else "scalar"], env=env,
                                      capture_output=True, text=True, check=True).stdout)
                 for _ in range(repeats)]
    return min(times)


def exponent(sizes: tuple[int, ...], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(K)."""
    xs, ys = [math.log(k) for k in sizes], [math.log(s) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / \
        sum((x - mx) ** 2 for x in xs)


def table(sizes: tuple[int, ...] = SIZES, array_sizes: tuple[int, ...] = ARRAY_SIZES) -> None:
    """Print first-call seconds per K (scalar code; the array variant at smaller K, where
    LLVM's O3 time still grows about as K^2 with the number of loops) and fitted exponents."""
    print("## First gradient call vs function size (straight-line code, fresh process, "
          "disk cache off)\n")
    for label, ks, array in (("scalar", sizes, False), ("array, n = 64", array_sizes, True)):
        seconds = [first_call_seconds(k, array) for k in ks]
        print(f"| K statements ({label}) | " + " | ".join(map(str, ks)) + " | exponent |")
        print("|---|" + "---:|" * (len(ks) + 1))
        print("| first call (s) | " + " | ".join(f"{s:.2f}" for s in seconds) +
              f" | {exponent(ks, seconds):.2f} |\n")


if __name__ == "__main__":
    table(tuple(int(a) for a in sys.argv[1:]) or SIZES)
