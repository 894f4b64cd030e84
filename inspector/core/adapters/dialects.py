"""Dialects of OpenAI-compatible Chat Completions servers (contract v1.1), as one table.

Servers that speak "the OpenAI API" differ in small ways: where the usage is,
what its counts mean, which extra fields they send, whether they end with
``[DONE]``. Each row of :data:`DIALECTS` says, for one server:

* how it is recognized — the request's host, a model-name prefix, or a field
  seen in the stream (``x_groq``, ``choices[].delta.executed_tools``); the
  first row that matches wins, and a field seen later can still name it;
* its evidence — a docs link or a recorded capture (``captures/openai-chat/``);
* the fields it adds, as an unread-field :data:`~.fields.Shape` merged into
  the Chat chunk's (what the adapter reads or ignores for that server only);
* its semantics where they differ: ``output_adds_reasoning`` (the server's
  ``completion_tokens`` leave the reasoning tokens out, so ``output_tokens``
  adds them), ``no_done`` (the server never sends ``data: [DONE]``, so a
  ``finish_reason`` followed by a clean end of the bytes is a normal end).

How the adapter *reads* the shapes these rows name (content arrays,
``executed_tools``, ``citations``, ``x_groq.usage``, an error object at the
top level) lives in ``openai_chat.py``; which server it is decides only the
accounting and the semantics above.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from .fields import IGNORED, READ, Shape

__all__ = ["DIALECTS", "Dialect", "by_field", "by_host", "by_model", "named"]


@dataclass(frozen=True)
class Dialect:
    """One OpenAI-compatible server's differences from OpenAI's Chat Completions."""

    name: str
    evidence: str
    hosts: tuple[str, ...] = ()
    model_prefixes: tuple[str, ...] = ()
    #: Paths (as the unread-field checker writes them) whose presence names the server.
    stream_fields: tuple[str, ...] = ()
    #: Extra fields of its chunks: merged into the Chat chunk's shape.
    fields: Shape = field(default_factory=dict)
    output_adds_reasoning: bool = False
    no_done: bool = False
    #: Model names it sends that say nothing (Azure's first chunk: ``""``).
    notes: str = ""


def _choice(delta: Shape | None = None, **extra: Any) -> Shape:
    """A ``choices`` shape: extra choice fields, and extra delta fields."""
    shape: dict[str, Any] = dict(extra)
    if delta:
        shape["delta"] = delta
    return {"choices": shape}


# Kept as written (fmt: skip): a list of name prefixes, several to a line.
MISTRAL_MODELS: Final = ("mistral", "magistral", "codestral", "devstral", "ministral",
                         "pixtral", "open-mistral", "open-mixtral")  # fmt: skip

DIALECTS: Final[tuple[Dialect, ...]] = (
    Dialect(
        "mistral",
        "https://docs.mistral.ai/capabilities/reasoning/ (content as an array of text and "
        "thinking chunks); captures/openai-chat/dialect-mistral-thinking-array.jsonl; "
        "tests/fixtures/real-longtail/mistral-magistral-stream.sse (real, simonw/llm-mistral)",
        hosts=("api.mistral.ai",),
        model_prefixes=MISTRAL_MODELS,
        # `p`: padding of random length on each chunk (like OpenAI's obfuscation).
        fields={"p": IGNORED},
        notes="content may be a list of {type: text|thinking} chunks; tool calls may lack index",
    ),
    Dialect(
        "openrouter",
        "captures/openai-chat/reasoning-openrouter-comments.jsonl (real, pydantic-ai); "
        "https://openrouter.ai/docs/api-reference/streaming",
        hosts=("openrouter.ai",),
        stream_fields=("provider", "choices[].native_finish_reason"),
        fields={
            "provider": IGNORED,
            "choices": {"native_finish_reason": IGNORED, "error": READ},
        },
        notes="reasoning + reasoning_details, error chunks mid-stream, ': OPENROUTER PROCESSING'",
    ),
    Dialect(
        "groq",
        "captures/openai-chat/dialect-groq-x-groq-usage.sse (real, pydantic-ai); "
        "https://console.groq.com/docs/agentic-tooling (executed_tools)",
        hosts=("api.groq.com",),
        stream_fields=("x_groq", "choices[].delta.executed_tools"),
        fields={"x_groq": {"id": IGNORED, "usage": READ, "seed": IGNORED}},
        notes="usage in x_groq.usage; server-run tools in delta.executed_tools; event: error",
    ),
    Dialect(
        "xai",
        "https://docs.x.ai/docs/guides/reasoning (completion_tokens exclude reasoning_tokens); "
        "captures/openai-chat/reasoning-then-tool-call.jsonl (real, vercel/ai)",
        hosts=("api.x.ai",),
        model_prefixes=("grok",),
        output_adds_reasoning=True,
        notes="completion_tokens excludes reasoning: output_tokens adds reasoning_tokens",
    ),
    Dialect(
        "moonshot",
        "captures/openai-chat/dialect-moonshot-choice-usage.sse (real, vercel/ai: the only "
        "usage inside choices[]); "
        "https://platform.moonshot.ai/docs/api/chat (streaming usage in the last choice)",
        hosts=("api.moonshot.ai", "api.moonshot.cn"),
        model_prefixes=("kimi", "moonshot"),
        notes="usage may come only inside the finishing choice (read as the stream's usage)",
    ),
    Dialect(
        "deepseek",
        "captures/openai-chat/dialect-deepseek-reasoning-content.sse (real, pydantic-ai); "
        "https://api-docs.deepseek.com/guides/kv_cache",
        hosts=("api.deepseek.com",),
        model_prefixes=("deepseek",),
        notes="reasoning_content; usage.prompt_cache_hit_tokens -> cached_input_tokens",
    ),
    Dialect(
        "perplexity",
        "https://docs.perplexity.ai/api-reference/chat-completions-post (citations, "
        "search_results on every chunk); captures/openai-chat/dialect-perplexity-citations.jsonl",
        hosts=("api.perplexity.ai",),
        model_prefixes=("sonar", "r1-1776"),
        stream_fields=("citations", "search_results"),
        fields={
            "citations": READ,
            "search_results": READ,
            # The whole message so far, repeated beside the delta on each chunk.
            "choices": {"message": IGNORED},
        },
        notes="citations / search_results -> citation deltas on the text block (each once)",
    ),
    Dialect(
        "snowflake-cortex",
        "https://docs.snowflake.com/en/user-guide/snowflake-cortex/cortex-llm-rest-api "
        "(written from the docs: captures/openai-chat/dialect-snowflake-cortex.jsonl)",
        hosts=(".snowflakecomputing.com",),
        stream_fields=("choices[].delta.content_list",),
        fields=_choice({"text": IGNORED, "content_list": IGNORED, "type": IGNORED}),
        notes="delta.text and delta.content_list repeat delta.content",
    ),
    Dialect(
        "azure",
        "https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter "
        "(written from the docs: captures/openai-chat/dialect-azure-prompt-filter.jsonl)",
        hosts=(".openai.azure.com", ".services.ai.azure.com", ".cognitiveservices.azure.com"),
        stream_fields=("prompt_filter_results", "choices[].content_filter_results"),
        fields={
            # Moderation annotations with no slot in the contract; a filtered
            # answer still shows as finish_reason content_filter.
            "prompt_filter_results": IGNORED,
            "choices": {"content_filter_results": IGNORED, "content_filter_offsets": IGNORED},
        },
        notes="a first chunk with empty choices, model '' and prompt_filter_results",
    ),
    Dialect(
        "together",
        "https://docs.together.ai/docs/chat-overview (written from the docs: "
        "captures/openai-chat/dialect-together.jsonl)",
        hosts=("api.together.xyz", "api.together.ai"),
        stream_fields=("choices[].delta.token_id",),
        fields=_choice({"token_id": IGNORED}, text=IGNORED, seed=IGNORED),
        notes="choices[].text repeats delta.content (not legacy Completions: delta is there)",
    ),
    Dialect(
        "fireworks",
        "https://docs.fireworks.ai/api-reference/post-chatcompletions (written from the docs: "
        "captures/openai-chat/dialect-fireworks.jsonl)",
        hosts=("api.fireworks.ai",),
        model_prefixes=("accounts/fireworks/",),
        stream_fields=("perf_metrics",),
        fields={"perf_metrics": IGNORED, "prompt_token_ids": IGNORED},
        notes="optional perf_metrics on the last chunk",
    ),
    Dialect(
        "vllm",
        "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html (written from the "
        "docs: captures/openai-chat/dialect-vllm-error-object.jsonl)",
        stream_fields=("choices[].stop_reason", "prompt_token_ids"),
        fields={
            "prompt_token_ids": IGNORED,
            "kv_transfer_params": IGNORED,
            "choices": {"stop_reason": IGNORED, "token_ids": IGNORED},
        },
        notes='an error mid-stream is a top-level {"object": "error", "message", "code"}',
    ),
    Dialect(
        "lmstudio",
        "https://lmstudio.ai/docs/app/api/endpoints/openai (written from the docs: "
        "captures/openai-chat/dialect-lmstudio.jsonl)",
        hosts=("localhost:1234", "127.0.0.1:1234"),
        notes="system_fingerprint is the model name; standard chunks and [DONE]",
    ),
    Dialect(
        "ollama-openai",
        "https://github.com/ollama/ollama/blob/main/docs/openai.md (written from the docs: "
        "captures/openai-chat/dialect-ollama-openai.jsonl)",
        hosts=("localhost:11434", "127.0.0.1:11434"),
        notes="system_fingerprint fp_ollama; thinking in delta.reasoning",
    ),
    Dialect(
        "writer",
        "https://dev.writer.com/api-reference/completion-api/chat-completion (written from the "
        "docs: captures/openai-chat/dialect-writer-no-done.jsonl)",
        hosts=("api.writer.com",),
        model_prefixes=("palmyra",),
        no_done=True,
        notes="never sends [DONE]: finish_reason then a clean end of the bytes is the end",
    ),
)


def named(name: str) -> Dialect | None:
    """The row called ``name``."""
    return next((d for d in DIALECTS if d.name == name), None)


def by_host(url: str) -> Dialect | None:
    """The row whose host matches ``url``'s (a leading dot: any subdomain)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return None
    for dialect in DIALECTS:
        for pattern in dialect.hosts:
            if pattern.startswith(".") and host.endswith(pattern):
                return dialect
            if pattern in (host, netloc):
                return dialect
    return None


def by_model(model: str) -> Dialect | None:
    """The row one of whose model prefixes ``model`` starts with.

    A router's ``vendor/model`` names (OpenRouter's ``x-ai/grok-4``) match
    nothing: the router, not the vendor, shaped the chunks.
    """
    name = model.lower()
    for dialect in DIALECTS:
        if any(name.startswith(prefix) for prefix in dialect.model_prefixes):
            return dialect
    return None


def by_field(paths: Iterable[str], taken: Iterable[Dialect] = ()) -> Dialect | None:
    """The first row (not in ``taken``) one of whose stream fields starts a path in ``paths``."""
    seen = tuple(paths)
    skip = tuple(taken)
    for dialect in DIALECTS:
        if dialect in skip:
            continue
        for stream_field in dialect.stream_fields:
            if any(_under(path, stream_field) for path in seen):
                return dialect
    return None


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((prefix + ".", prefix + "["))


def merged(base: Shape, extra: Shape) -> Shape:
    """``base`` with ``extra``'s fields added (nested shapes merged, ``extra`` wins)."""
    out: dict[str, Any] = dict(base)
    for key, rule in extra.items():
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(rule, Mapping):
            out[key] = merged(old, rule)
        else:
            out[key] = rule
    return out
