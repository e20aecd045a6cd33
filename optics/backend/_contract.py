"""The backend contract as code: the names an implementation module must define."""

from __future__ import annotations

from ..errors import BackendUnavailableError

#: What every backend defines (see docs/backend.md for each name's meaning).
REQUIRED = (
    # identity and dtypes
    "name array_types FLOAT_DTYPES INT64 BOOL float_dtype owns_dtype finfo is_floating astype "
    # creation (the configured backend's; dtype keyword, device string)
    "asarray zeros ones empty full arange linspace eye zeros_like ones_like empty_like full_like "
    # elementwise math, one meaning per name
    "sqrt sin cos tan arcsin arccos arctan arctan2 exp log abs sign square floor copysign hypot "
    "maximum minimum isfinite isnan logical_and logical_or logical_not where clip matmul "
    # reductions (axis=None, keepdims=False; return arrays)
    "sum mean max min all any "
    # shapes, joining, linear algebra, masked writes
    "reshape broadcast_to stack concatenate solve scatter "
    # autodiff switches (no-ops without derivatives)
    "detach detach_all requires_grad grad_enabled no_grad enable_grad as_parameter "
    "tracing compiling abstract graph_free_loop mark_trace_constant reset_compiled "
    # devices, host transfer, set-up
    "select devices device_available device_of to_numpy item quiet_float_errors"
).split()

#: What a backend with ``autodiff`` set in its BackendInfo adds.
AUTODIFF = ("value_and_grad", "jacobian")

#: What a backend with ``compile=True`` adds.
COMPILE = ("compile_function", "explain_compile")

#: Optional hooks: name -> what optics does without it.
OPTIONAL = {
    "accumulate": "total + weight * term, a fresh array (be.accumulate)",
    "add_product": "a + t * b, a fresh array (be.add_product)",
    "recompute": "the function is called as it is: its backward keeps its intermediates",
    "compile_uses_rows": "False: compile_function is not given rows=",
    "compiled_stage": "the stage runs inside the enclosing compiled function",
    "row_view": "rows start..start+size of an array as a plain slice (accel.RowParts)",
    "join_rows": "the rows (lo, hi) of each piece concatenated eagerly (accel.RowParts)",
    "block_until_ready": "results are taken as returned (accel.RowParts waits for nothing)",
    "intra_op_threads": "the backend's own threading is left as it is (no thread count chosen)",
}


def missing(module, info) -> list[str]:
    """The required names ``module`` lacks for the capabilities ``info`` declares."""
    extra = (AUTODIFF if info.autodiff is not None else ()) + (COMPILE if info.compile else ())
    return [name for name in (*REQUIRED, *extra) if not hasattr(module, name)]


def verify(module, info) -> None:
    """Refuse a module lacking required names at first load, not deep inside a trace."""
    absent = missing(module, info)
    if absent:
        raise BackendUnavailableError(
            f"the {info.name} backend's module {module.__name__} does not define "
            f"{', '.join(absent)} (optics.backend._contract.REQUIRED lists what a backend "
            "defines; see docs/backend.md, 'How to add a backend')"
        )
