"""Status codes returned by compiled functions, and the Python exception each one becomes.

Shared by the backends and the primitives' reference implementations (an int64 overflow
raises the same error everywhere); imports nothing.

0 is success. The codes are part of the ABI of ahead-of-time kernels (see `aot.py`); 3 (a
float that did not fit an int) is retired: NaN and infinity have their own codes and a finite
float out of range is an int64 overflow, as in Python.
Messages follow CPython's and numpy's own wording where they define the error.

PENDING (13) is not in ERRORS: native code returns it after calling back into Python for an
effect of the user's code (a failed `assert` or `raise`, or a `print` that raised), which
left the exception to raise with the callback (`backends/llvm/effects.py`). SINGULAR_MATRIX (14)
and NOT_POSITIVE_DEFINITE (15), from the linear algebra, are in LINALG_ERRORS: they raise
numpy's `numpy.linalg.LinAlgError` with numpy's message. scipy.linalg's LinAlgErrors name where
the factorisation failed: SINGULAR_DIAGONAL + k ("... at diagonal k") and NOT_POSITIVE_MINOR + k
("k-th leading minor ..."); `linalg_message(status)` gives the message of any of them (None for
another status). NOT_FINITE is scipy's check of its operands (`check_finite`).
The decompositions' failures to converge (21, 22, 23) and the residuals of a
rank-deficient `lstsq` (24, where numpy's would be empty) raise LinAlgError too. ARRAY_LENGTH
(25) is returned by the entry point of an ahead-of-time kernel only (`aot.py`): an array
passed with a length other than the compiled shape's, or NULL; so is SIZE_ARGUMENT (33): a
run-time size below `ir.dims.MIN_SIZE`, or equal to another (kernels of run-time sizes).
"""

NO_MEMORY = 1
ZERO_DIVISION = 2
INDEX = 4
INT_OVERFLOW = 5
INTERRUPTED = 6
RANGE_STEP_ZERO = 7
EMPTY_MAXIMUM = 8
EMPTY_MINIMUM = 9
FLOAT_ZERO_DIVISION = 10
FLOAT_NAN_TO_INT = 11
FLOAT_INFINITY_TO_INT = 12
PENDING = 13
SINGULAR_MATRIX = 14
NOT_POSITIVE_DEFINITE = 15
NOT_FINITE = 16
SINGULAR_DIAGONAL = 1 << 20  # + the 0-based index of the zero diagonal element
NOT_POSITIVE_MINOR = 2 << 20  # + the order of the leading minor
EIGENVALUES_DID_NOT_CONVERGE = 21
SVD_DID_NOT_CONVERGE = 22
LSTSQ_DID_NOT_CONVERGE = 23
LSTSQ_RANK_DEFICIENT = 24
ARRAY_LENGTH = 25  # ahead-of-time kernels only: an array argument does not fit the kernel
OUTPUT_ARGUMENT = 26  # ahead-of-time kernels only: a NULL output, or an output overlapping
LIST_INDEX = 27  # run-time lists (`primitives/lists.py`): Python's IndexErrors
LIST_SET_INDEX = 28
POP_EMPTY = 29
POP_INDEX = 30
MATH_DOMAIN = 31  # math's functions (`library/elementwise.py`): CPython's math_1 errors
MATH_RANGE = 32
SIZE_ARGUMENT = 33  # ahead-of-time kernels only: a run-time size below MIN_SIZE, or two equal

ERRORS = {
    NO_MEMORY: (MemoryError, "out of memory in compiled code"),
    ZERO_DIVISION: (ZeroDivisionError, "integer division or modulo by zero"),
    INDEX: (IndexError, "index out of bounds in compiled code"),
    INT_OVERFLOW: (OverflowError, "integer overflow in compiled code: compiled ints are 64-bit "
                                  "(Python's are unbounded); use floats for larger values"),
    INTERRUPTED: (KeyboardInterrupt, ""),
    RANGE_STEP_ZERO: (ValueError, "range() arg 3 must not be zero"),
    EMPTY_MAXIMUM: (ValueError, "zero-size array to reduction operation maximum which has no "
                                "identity"),
    EMPTY_MINIMUM: (ValueError, "zero-size array to reduction operation minimum which has no "
                                "identity"),
    FLOAT_ZERO_DIVISION: (ZeroDivisionError, "division by zero"),
    FLOAT_NAN_TO_INT: (ValueError, "cannot convert float NaN to integer"),
    FLOAT_INFINITY_TO_INT: (OverflowError, "cannot convert float infinity to integer"),
    NOT_FINITE: (ValueError, "array must not contain infs or NaNs"),
    ARRAY_LENGTH: (ValueError, "an array argument is NULL or its length is not the one the "
                               "kernel was compiled for"),
    OUTPUT_ARGUMENT: (ValueError, "an output pointer is NULL, or an output array overlaps "
                                  "another array argument (outputs must be separate memory)"),
    LIST_INDEX: (IndexError, "list index out of range"),
    LIST_SET_INDEX: (IndexError, "list assignment index out of range"),
    POP_EMPTY: (IndexError, "pop from empty list"),
    POP_INDEX: (IndexError, "pop index out of range"),
    MATH_DOMAIN: (ValueError, "math domain error"),
    MATH_RANGE: (OverflowError, "math range error"),
    SIZE_ARGUMENT: (ValueError, "a size argument is below 8, or two size arguments are equal "
                                "(the kernel was compiled for different sizes of at least 8: "
                                "ir.dims.MIN_SIZE)"),
}

# numpy's LinAlgError (not a built-in exception: raised by `backends/llvm/jit.py` only)
LINALG_ERRORS = {
    SINGULAR_MATRIX: "Singular matrix",
    NOT_POSITIVE_DEFINITE: "Matrix is not positive definite",
    EIGENVALUES_DID_NOT_CONVERGE: "Eigenvalues did not converge",
    SVD_DID_NOT_CONVERGE: "SVD did not converge",
    LSTSQ_DID_NOT_CONVERGE: "SVD did not converge in Linear Least Squares",
    LSTSQ_RANK_DEFICIENT: "lstsq: the matrix has rank < n, where numpy returns empty residuals "
                          "(arrays in compiled code have shapes known when compiling); check "
                          "the returned rank or compute the residuals from the solution",
}


def linalg_message(status: int) -> str | None:
    """The LinAlgError message of a linear-algebra status, None for any other status."""
    if status in LINALG_ERRORS:
        return LINALG_ERRORS[status]
    if SINGULAR_DIAGONAL <= status < NOT_POSITIVE_MINOR:
        return f"singular matrix: resolution failed at diagonal {status - SINGULAR_DIAGONAL}"
    if NOT_POSITIVE_MINOR <= status < 3 << 20:
        return (f"{status - NOT_POSITIVE_MINOR}-th leading minor of the array is not positive "
                "definite")
    return None
