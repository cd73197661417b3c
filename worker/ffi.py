"""Arguments for the Workers' JavaScript bindings (D1, AI, Vectorize, rate limits).

A binding reaches the Worker in one of two forms. Wrapped by the Workers SDK (>= 1.3,
`_BindingWrapper`), it is a Python object that converts its Python arguments to JS itself
(None → null, dicts → objects). Raw (older or runtime-bundled SDK), it is a JsProxy, and
Pyodide's implicit conversion is wrong for it: a dict or list crosses as a PyProxy, not
a JS object or array (the binding reads no fields from it), and None as `undefined`,
which D1 refuses. So arguments are converted here exactly when the binding is a JsProxy;
any other binding, the SDK's wrapper or a Python stand-in, gets plain Python.
"""

from __future__ import annotations

from typing import Any


def is_js(binding: Any) -> bool:
    """Whether `binding` is a raw JavaScript object (a JsProxy)."""
    try:
        from pyodide.ffi import JsProxy  # type: ignore[import-not-found]
    except ImportError:  # CPython: nothing is JavaScript
        return False
    return isinstance(binding, JsProxy)


def js_arg(binding: Any, value: Any) -> Any:
    """`value` as `binding` should receive it: JS objects, arrays and a Uint8Array for
    bytes (pyodide.ffi.to_js), null for None, for a raw JS binding; plain Python for any
    other. None nested in a dict or list still becomes `undefined` (to_js's rule), which
    is why D1 parameters are converted one by one."""
    if not is_js(binding):
        return value
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import jsnull, to_js  # type: ignore[import-not-found]

    if value is None:
        return jsnull
    return to_js(value, dict_converter=js.Object.fromEntries)
