"""Secrets: the one owner of what is a secret and how it is kept out of everything.

Every boundary — live and record, the proxy, import, export, diff, the TUI
and every printed message — decides what is secret here and nowhere else:

* :mod:`.names` — the one rule by name shape for credential names (headers,
  query parameters, cookies, JSON fields);
* :mod:`.sources` — where credentials enter (headers, cookies, Basic
  credentials, URL userinfo, query parameters, request bodies, the
  environment, ``Set-Cookie``);
* :mod:`.secretset` — :class:`SecretSet`, every credential of one exchange,
  and what is done with it (scrubbing, cleaning derived fields, the keyed
  hashes that travel with a capture);
* :mod:`.spellings` — :class:`SecretScrubber`, known values in every spelling
  a server may echo them in, in a byte stream;
* :mod:`.shapes` — the one rule set of secret shapes (keys, tokens, private
  keys, password fields);
* :mod:`.http` — URLs and headers as recorded; :mod:`.digests` — finding
  removed values again by their hashes; :mod:`.masked` and :mod:`.messages` —
  how messages show a secret (kind, length, last 2 characters at most).

Compressed bodies are decoded first, by :mod:`inspector.encodings`.
"""

from __future__ import annotations

from .http import redact_header, redact_headers, redact_url, without_userinfo
from .masked import masked
from .names import is_credential_name, is_secret_header
from .secretset import REDACTED, SecretSet, mask_shapes, warm_up
from .spellings import MIN_SECRET, SecretScrubber

__all__ = [
    "MIN_SECRET",
    "REDACTED",
    "SecretScrubber",
    "SecretSet",
    "is_credential_name",
    "is_secret_header",
    "mask_shapes",
    "masked",
    "redact_header",
    "redact_headers",
    "redact_url",
    "warm_up",
    "without_userinfo",
]
