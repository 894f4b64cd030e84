"""Class 5 — secret shapes as good as dedicated scanners, and no false positives.

Each kind docs/security.md lists is found in the spellings the issuing
service and its SDKs write (STS JSON, ini files, connection strings, PEM and
PGP armor also cut before their END line, JWTs with a spaced header); and
every bundled capture and real recorded fixture holds no match at all.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from inspector.redact.shapes import find_secrets

from ..conftest import ROOT

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SESSION = "IQoJb3JpZ2luX2VjE" + "Nz" * 60
GOOGLE = "AIzaSyA1bCdEfGhIjKlMnOpQrStUvWxYz012345"
AZURE = "Zm9vYmFy" * 11
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" + "\nAbCdEfGh" * 4


def _jwt(header: dict[str, str], separators: tuple[str, str]) -> str:
    def part(value: dict[str, str]) -> str:
        text = json.dumps(value, separators=separators)
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    return f"{part(header)}.{part({'sub': '1234567890', 'name': 'x'})}.c2lnbmF0dXJlLXBhcnQ"


#: (what the text is, the text, the secret part that must be covered)
SAMPLES = [
    ("AWS key id", "AKIAIOSFODNN7EXAMPLQ", "AKIAIOSFODNN7EXAMPLQ"),
    ("STS JSON", f'{{"AccessKeyId": "ASIAXXX", "SecretAccessKey": "{AWS_SECRET}"}}', AWS_SECRET),
    ("ini", f"[default]\naws_secret_access_key = {AWS_SECRET}\n", AWS_SECRET),
    ("env", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET),
    ("STS session token", f'"SessionToken": "{SESSION}"', SESSION),
    ("session token ini", f"aws_session_token = {SESSION}", SESSION),
    ("Google key", f"key={GOOGLE}", GOOGLE),
    ("service account", '{"private_key_id": "' + "a1b2c3d4e5" * 4 + '"}', "a1b2c3d4e5" * 4),
    ("Azure storage", f"AccountName=x;AccountKey={AZURE}==;Endpoint", AZURE),
    ("Azure bus", "SharedAccessKeyName=R;SharedAccessKey=" + "QmFy" * 11 + "=", "QmFy" * 11),
    ("GitHub", "ghp_" + "A1b2C3d4E5" * 4, "ghp_" + "A1b2C3d4E5" * 4),
    ("GitLab", "glpat-" + "x9Y8z7W6v5" * 2, "glpat-" + "x9Y8z7W6v5" * 2),
    ("Slack", "xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
    ("Stripe", "sk_live_" + "51Hq8Zr2Ab" * 3, "sk_live_" + "51Hq8Zr2Ab" * 3),
    ("npm", "npm_" + "aB3dE6gH9j" * 3 + "kL2mN4", "npm_" + "aB3dE6gH9j" * 3 + "kL2mN4"),
    ("JWT", _jwt({"alg": "HS256", "typ": "JWT"}, (",", ":")), None),
    ("JWT spaced", _jwt({"alg": "HS256", "typ": "JWT"}, (", ", ": ")), None),
    ("PEM", f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----", PEM_BODY),
    ("PEM cut", f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n", PEM_BODY),
    ("PGP", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: X\n\n{PEM_BODY}\n=AbCd\n"
            "-----END PGP PRIVATE KEY BLOCK-----", PEM_BODY),
    ("PGP cut", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: c\n\n{PEM_BODY}", PEM_BODY),
    ("database URL", "postgres://app:S3cr3tPassw0rd@db.internal:5432/x", "S3cr3tPassw0rd"),
    ("redis URL", "rediss://:R3d1sPassw0rd@cache:6380/0", "R3d1sPassw0rd"),
    ("password field", '{"password": "correct-horse-battery"}', "correct-horse-battery"),
    ("client secret", "client_secret=Zx9Yw8Vu7Ts6", "Zx9Yw8Vu7Ts6"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "text", "secret"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_each_covered_kind_is_found(what: str, text: str, secret: str | None) -> None:
    matches = find_secrets(text)
    assert matches, what
    secret = secret or text
    covered = "".join(
        text[i] for i in range(len(text)) if any(m.start <= i < m.end for m in matches)
    )
    for piece in secret.split("\n"):
        assert piece in covered, (what, piece)


def _corpus() -> list[Path]:
    roots = [ROOT / "captures", ROOT / "tests" / "fixtures" / "real",
             Path("/work/shared/fixtures/real")]  # fmt: skip
    files = []
    for root in roots:
        if root.is_dir():
            files += [p for p in sorted(root.rglob("*")) if p.is_file() and p.suffix != ".md"]
    return files


def test_no_false_positive_on_bundled_captures_and_real_fixtures() -> None:
    files = _corpus()
    assert len(files) > 20
    found = []
    for path in files:
        text = path.read_text("utf-8", "replace")
        for m in find_secrets(text):
            if m.rule != "email":
                found.append(f"{path.name}: {m.rule} {text[m.start : m.start + 12]!r}")
    assert found == []


def test_a_rule_s_folded_words_are_those_it_lists_in_every_casing() -> None:
    """The presence pass folds a word to lower case only if the rule takes every casing."""
    from inspector.redact import shapes

    for name, lits in shapes._CASED_BYTES.items():
        have = set(lits)
        every_casing = {
            word
            for word in {lit.lower() for lit in lits if len(lit) > 1}
            if {casing.encode() for casing in shapes._casings(word.decode())} <= have
        }
        assert shapes._FOLDED_WORDS[name] == every_casing, name
    assert shapes._folded((b"ab", b"Ab", b"aB", b"AB", b"x-", b"X-", b"cd", b"CD")) == {
        b"ab",
        b"x-",
    }
