"""Status codes returned by compiled functions, and the Python exception each one becomes.

0 is success. The codes are part of the ABI of ahead-of-time kernels (see `aot.py`).
"""

NO_MEMORY = 1
ZERO_DIVISION = 2
FLOAT_TO_INT = 3
INDEX = 4

ERRORS = {
    NO_MEMORY: (MemoryError, "out of memory in compiled code"),
    ZERO_DIVISION: (ZeroDivisionError, "integer division or modulo by zero"),
    FLOAT_TO_INT: (ValueError, "cannot convert float NaN or infinity (or a too large float) "
                               "to integer"),
    INDEX: (IndexError, "index out of bounds in compiled code"),
}
