"""adlite.runtime: the eager tape (dynamic, define-by-run graphs) with PyTorch's semantics.

    from adlite.runtime import tensor
    w = tensor([1.0], requires_grad=True); x = tensor([2.0], requires_grad=True)
    y = (w + x) * (w + 1); y.backward()      # w.grad == [5.], x.grad == [2.]

Tensors implement numpy's protocols, so functions written with `np.*` run on them unchanged.
The modules import each other in layers (tests/runtime/test_runtime_layers.py). This one, the top,
imports the modules that register primitives (so the table `PRIMITIVES` is complete), and binds
the modules that lower ones run: those of `Tensor`'s operators and methods
(`tensor.bind_above`) and the vocabulary of `functional`'s composites
(`functional.bind_vocabulary`). Python runs it before any module of the package is used.
"""

from . import (  # noqa: F401  (the modules that register primitives)
    autograd,
    complex_numbers,
    convolution,
    decompositions,
    fft,
    functional,
    linalg,
    numpy_protocol,
    optim,
    primitives,
    sorting,
    special,
    special_ufuncs,
    vocabulary,
)
from . import tensor as _tensor
from .autograd import Function, FunctionCtx
from .dot import to_dot
from .functional import (
    clip,
    concatenate,
    cos,
    dot,
    exp,
    log,
    log_softmax,
    logsumexp,
    matmul,
    maximum,
    mean,
    minimum,
    prod,
    relu,
    sigmoid,
    sin,
    softmax,
    sqrt,
    stack,
    tan,
    tanh,
    where,
)
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck
from .graph import AccumulateGrad, Node
from .primitive import PRIMITIVES
from .tensor import (
    NumberConversionWarning,
    Tensor,
    arange,
    from_numpy,
    full,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)

_tensor.bind_above(functional, sorting, numpy_protocol, autograd)
functional.bind_vocabulary(vocabulary.TENSOR_OPS)

__all__ = [
    "PRIMITIVES", "AccumulateGrad", "Function", "FunctionCtx", "GradcheckError", "Node",
    "NumberConversionWarning",
    "Tensor", "arange", "autograd", "clip", "concatenate", "cos", "dot", "enable_grad", "exp",
    "from_numpy", "full", "functional", "gradcheck", "is_grad_enabled", "log", "log_softmax",
    "logsumexp",
    "manual_seed", "matmul", "maximum", "mean", "minimum", "no_grad", "ones", "ones_like",
    "optim", "prod", "rand", "randn", "relu", "set_grad_enabled", "sigmoid", "sin", "softmax",
    "sqrt", "stack", "tan", "tanh", "tensor", "to_dot", "where", "zeros", "zeros_like",
]
