"""One rule for credential headers, shared by live recording, the proxy and export.

The security corpus (``tests/security/test_export_headers.py``) shows that
every credential-shaped name is caught; these tests keep the other half of
the rule: headers about counts, timing and format stay readable, and every
boundary applies the very same rule.
"""

from __future__ import annotations

import pytest

from inspector.redact import REDACTED, redact_headers
from inspector.redact.names import is_secret_header
from inspector.redact.shapes import header_rule

from .security.test_export_headers import CREDENTIAL_HEADERS, READABLE_HEADERS


@pytest.mark.parametrize("name", READABLE_HEADERS)
def test_a_header_about_counts_timing_or_format_stays_readable(name: str) -> None:
    assert not is_secret_header(name)
    assert header_rule(name) != "secret"


def test_live_recording_and_export_judge_every_header_alike() -> None:
    names = CREDENTIAL_HEADERS + READABLE_HEADERS
    live = redact_headers({name: "value" for name in names})
    assert [n for n in names if (live[n] == REDACTED) != (header_rule(n) == "secret")] == []
    assert [n for n in CREDENTIAL_HEADERS if live[n] != REDACTED] == []
