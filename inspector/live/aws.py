"""Bedrock's endpoint and authentication for live mode: an API key (bearer) or SigV4.

Two routes, tried in this order (see ``docs/providers/bedrock-converse.md``):

1. **Bedrock API key** — ``AWS_BEARER_TOKEN_BEDROCK`` (or ``--api-key-env``)
   is sent as ``Authorization: Bearer ...``, as the AWS SDKs do. Nothing to
   install.
2. **SigV4** — with ``AWS_ACCESS_KEY_ID`` and ``AWS_SECRET_ACCESS_KEY`` (and
   ``AWS_SESSION_TOKEN`` for temporary credentials) set, the request is signed
   by botocore's own ``SigV4Auth`` (the optional ``aws`` extra: ``pip install
   llm-stream-inspector[aws]``), for service ``bedrock`` in the region.

The region is ``AWS_REGION``, else ``AWS_DEFAULT_REGION``, else ``us-east-1``;
the endpoint ``https://bedrock-runtime.<region>.amazonaws.com``. A server on
loopback (``inspector serve``) needs neither. Every credential value stays out
of the capture: the secret key and session token are environment secrets of
the request's :class:`~inspector.redact.SecretSet`, the ``Authorization`` and
``X-Amz-Security-Token`` headers are credential headers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final

import orjson

from .providers import LiveRequest

__all__ = [
    "BEARER_ENV",
    "DEFAULT_REGION",
    "AwsCredentials",
    "SigningUnavailable",
    "bedrock_base_url",
    "credentials_from",
    "region_from",
    "sign_sigv4",
]

#: Where a Bedrock API key is found (the name the AWS SDKs read).
BEARER_ENV: Final = "AWS_BEARER_TOKEN_BEDROCK"
DEFAULT_REGION: Final = "us-east-1"
#: The SigV4 service name of the Bedrock runtime API.
SERVICE: Final = "bedrock"
#: An AWS region name: letters, digits and dashes (it becomes part of a host name).
_REGION: Final = re.compile(r"[a-z]{2}(?:-[a-z]+)+-[0-9]{1,2}")


class SigningUnavailable(RuntimeError):
    """SigV4 was needed but botocore is not installed; the message says what to do."""


@dataclass(frozen=True, slots=True)
class AwsCredentials:
    """The static or temporary credentials SigV4 signs with (never written anywhere)."""

    access_key: str
    secret_key: str
    token: str | None = None

    def __repr__(self) -> str:  # a traceback or a log line never shows them
        return "AwsCredentials(...)"


def region_from(environ: Mapping[str, str]) -> str:
    """The region live mode asks: ``AWS_REGION``, ``AWS_DEFAULT_REGION``, else the default.

    A value that is not a region name (it would end up in a host name) is a ValueError.
    """
    region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION
    if not _REGION.fullmatch(region):
        raise ValueError(f"AWS_REGION {region!r} is not a region name such as us-east-1")
    return region


def bedrock_base_url(environ: Mapping[str, str]) -> str:
    """``https://bedrock-runtime.<region>.amazonaws.com`` (raises ValueError for a bad region)."""
    return f"https://bedrock-runtime.{region_from(environ)}.amazonaws.com"


def credentials_from(environ: Mapping[str, str]) -> AwsCredentials | None:
    """The SigV4 credentials in the environment, or None when either half is missing."""
    access = environ.get("AWS_ACCESS_KEY_ID", "")
    secret = environ.get("AWS_SECRET_ACCESS_KEY", "")
    if not access or not secret:
        return None
    return AwsCredentials(access, secret, environ.get("AWS_SESSION_TOKEN") or None)


def sign_sigv4(request: LiveRequest, credentials: AwsCredentials, region: str) -> LiveRequest:
    """``request`` with SigV4 headers (``Authorization``, ``X-Amz-Date``, the token) added.

    Signed over the exact body bytes live mode sends (``orjson.dumps`` of the
    body) and every header it sets; the client adds only unsigned ones.
    """
    try:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
    except ImportError:
        raise SigningUnavailable(
            "signing Bedrock requests with AWS credentials needs botocore "
            "(pip install 'llm-stream-inspector[aws]'), or set AWS_BEARER_TOKEN_BEDROCK "
            "to a Bedrock API key"
        ) from None
    unsigned = {k: v for k, v in request.headers.items() if k != "authorization"}
    aws = AWSRequest(
        method=request.method, url=request.url, data=orjson.dumps(request.body), headers=unsigned
    )
    key = Credentials(credentials.access_key, credentials.secret_key, credentials.token)
    SigV4Auth(key, SERVICE, region).add_auth(aws)
    signed = {name.lower(): str(value) for name, value in aws.headers.items()}
    return replace(request, headers=signed)
