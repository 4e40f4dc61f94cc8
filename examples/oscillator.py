"""A damped oscillator integrated with explicit Euler: the loss is the final position.

`adlite compile examples/oscillator.py:oscillator --grad -o build/` turns its gradient into
`build/liboscillator_grad.so` + `build/oscillator_grad.h`, used by `aot_oscillator.c`.
"""


def oscillator(k, c):
    x = 1.0
    v = 0.0
    dt = 0.01
    for _ in range(1000):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return x
