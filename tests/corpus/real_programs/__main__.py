"""`python -m tests.corpus.real_programs`: the table of the corpus (program, compiles as written?,
gradient right?, adlite's error) and "N of M compile as written"."""

from __future__ import annotations

from . import NOT_COMPILING, PROGRAMS, TAPE_LIMITATIONS, TAPE_WRONG
from .checks import FD_RTOL, TAPE_RTOL, VALUE_RTOL, program


def gradient_verdict(name: str) -> str:
    """'ok', or what disagrees (value, finite differences, tape)."""
    p = program(name)
    bad = []
    if abs(float(p.compiled.value) - float(p.plain)) > VALUE_RTOL * abs(float(p.plain)):
        bad.append(f"value {float(p.compiled.value)!r} != {float(p.plain)!r}")
    if p.compiled.printed != p.plain_run[1]:
        bad.append(f"printed {p.compiled.printed!r}, Python {p.plain_run[1]!r}")
    fd = p.finite_difference_error()
    if fd > FD_RTOL:
        bad.append(f"finite differences off by {fd:.1e}")
    if name not in TAPE_LIMITATIONS and name not in TAPE_WRONG:
        for compiled, tape in zip(p.gradient_leaves(), p.tape_gradient(), strict=True):
            scale = max(float(abs(tape).max(initial=0.0)), 1e-300)
            if float(abs(compiled - tape).max(initial=0.0)) > TAPE_RTOL * scale:
                bad.append("differs from the eager tape")
                break
    return "ok" if not bad else "WRONG: " + "; ".join(bad)


def first_line(error: Exception) -> str:
    return f"{type(error).__name__}: {str(error).splitlines()[0]}"


def main() -> int:
    rows, compiled = [], 0
    for name in PROGRAMS:
        error = program(name).compiled.error
        if error is None:
            compiled += 1
            verdict = gradient_verdict(name)
            mark = " (still marked NOT_COMPILING)" if name in NOT_COMPILING else ""
            rows.append((name, "yes", verdict, mark.strip()))
        else:
            clear = "" if program(name).is_clear_refusal(error) else "UNCLEAR "
            rows.append((name, "no", "-", clear + first_line(error)))
    width = max(len(r[0]) for r in rows)
    print(f"{'program':{width}}  compiles  gradient  reason")
    for name, compiles, verdict, reason in rows:
        print(f"{name:{width}}  {compiles:8}  {verdict:8}  {reason}")
    print(f"{compiled} of {len(PROGRAMS)} compile as written "
          f"({100 * compiled / len(PROGRAMS):.0f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
