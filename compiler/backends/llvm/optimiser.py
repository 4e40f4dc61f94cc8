"""The optimising process of tiered compilation: LLVM IR text in, O3 object code out.

Contract: `python -m adlite.compiler.backends.llvm.optimiser` reads requests on stdin and
answers each on stdout, in order, until stdin closes. A request is the module's IR text,
UTF-8, after its length (8 bytes, little endian). An answer is one byte (1: object code,
0: an error message), the seconds spent in LLVM's passes and in code generation (two
little-endian doubles), then the payload after its length. The object code is what
`jit.optimised_object` makes in the parent (the same host CPU, features and options). The
parent's side of the exchange is `tiers.Worker`, which also says why this is a process.
"""

from __future__ import annotations

import sys

from .jit import optimised_object
from .tiers import ANSWER, LENGTH, read_exactly


def main() -> None:
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = requests.read(LENGTH.size)
        if len(head) != LENGTH.size:
            return
        text = read_exactly(requests, LENGTH.unpack(head)[0]).decode()
        try:
            code, optimising, generating = optimised_object(text)
            answer = ANSWER.pack(1, optimising, generating, len(code)) + code
        except Exception as e:  # the parent keeps the quick code and logs it
            message = f"{type(e).__name__}: {e}".encode()
            answer = ANSWER.pack(0, 0.0, 0.0, len(message)) + message
        answers.write(answer)
        answers.flush()


if __name__ == "__main__":
    main()
