"""rapidyaml's C++ functions called directly, and where a buffer's bytes live in memory.

Why a module of its own: the hot paths (the reference walk, every scalar read) call the SWIG
functions without ryml.py's one-line Python wrappers, with the tree's SWIG object
(``Doc.raw``, ``tree.this``) rather than the ``ryml.Tree`` proxy: SWIG recognises its own
object at once, while for a proxy it first formats the type's name to compare it (~0.4 us a
call: a tenth of a whole run's time). And :meth:`Doc.offset` needs the address of the input
buffer and of each scalar's view into it, read through ctypes.
"""

from __future__ import annotations

import ctypes
import sys

import ryml
from ryml.ryml import _ryml as _c

NONE = ryml.NONE
find_child = _c.Tree_find_child
first_child = _c.Tree_first_child
next_sibling = _c.Tree_next_sibling
is_map = _c.Tree_is_map
is_seq = _c.Tree_is_seq
is_val_ref = _c.Tree_is_val_ref
is_key_ref = _c.Tree_is_key_ref
is_key_quoted = _c.Tree_is_key_quoted
has_val_anchor = _c.Tree_has_val_anchor
has_val = _c.Tree_has_val
val = _c.Tree_val
key = _c.Tree_key
has_key = _c.Tree_has_key
last_child = _c.Tree_last_child
is_block = _c.Tree_is_block
is_val_plain = _c.Tree_is_val_plain
parent = _c.Tree_parent
child_pos = _c.Tree_child_pos
is_stream = _c.Tree_is_stream
val_tag = _c.Tree_val_tag
rem_val_ref = _c.Tree_rem_val_ref
has_val_tag = _c.Tree_has_val_tag
is_val_quoted = _c.Tree_is_val_quoted
is_val_squo = _c.Tree_is_val_squo
val_is_null = _c.Tree_val_is_null
set_val_style = _c.Tree_set_val_style
set_val = _c.Tree___set_val
to_arena = _c._to_arena_buf_cpp
VAL_PLAIN, VAL_SQUO, VAL_DQUO = ryml.VAL_PLAIN, ryml.VAL_SQUO, ryml.VAL_DQUO


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


_get_buffer = ctypes.pythonapi["PyObject_GetBuffer"]  # our own function object: argtypes are per object
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_release_buffer = ctypes.pythonapi["PyBuffer_Release"]
_release_buffer.argtypes = [ctypes.POINTER(_PyBuffer)]


def buffer_address(obj: object) -> int:
    """The address of a buffer's first byte: rapidyaml's read-only views point into our input."""
    view = _PyBuffer()
    _get_buffer(obj, ctypes.byref(view), 0)
    try:
        return view.buf or 0
    finally:
        _release_buffer(ctypes.byref(view))


def _find_view_address_slot() -> int | None:
    """Where, inside a CPython memoryview object, the address of its first byte is kept.

    Why: a scan asks where each reference's text starts (:meth:`Doc.offset`), and the buffer
    protocol through ctypes costs four times reading that field directly. The field is found
    by looking, and trusted only if it gives the right address for two different views;
    otherwise (another Python, another layout) None, and the buffer protocol is used.
    """
    if sys.implementation.name != "cpython":
        return None
    probe = bytearray(b"krmfn probe")
    views = (memoryview(probe), memoryview(probe)[3:])
    wanted = [buffer_address(v) for v in views]
    for slot in range(8, sys.getsizeof(views[0]) - 7, 8):  # within the object: id() is its address
        if all(ctypes.c_void_p.from_address(id(v) + slot).value == w for v, w in zip(views, wanted)):
            return slot
    return None


_VIEW_ADDRESS_SLOT = _find_view_address_slot()
_read_pointer = ctypes.c_void_p.from_address


def view_address(view: memoryview) -> int:
    """:func:`buffer_address` of a memoryview, read from the object when its layout is known."""
    if _VIEW_ADDRESS_SLOT is None:
        return buffer_address(view)
    return _read_pointer(id(view) + _VIEW_ADDRESS_SLOT).value or 0
