"""BLAKE2b, the one hash the tool uses, without loading OpenSSL.

``import hashlib`` loads OpenSSL's libcrypto (``_hashlib``) whatever hash is
then asked for: ~4 ms of every command's start-up, for BLAKE2b, which
``hashlib`` itself takes from CPython's built-in ``_blake2`` module. That
module is imported directly; an interpreter without it gets ``hashlib``'s.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - not CPython
    from hashlib import blake2b

__all__ = ["blake2b"]
