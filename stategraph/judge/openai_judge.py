"""The counterfactual judge over any OpenAI-compatible chat-completions endpoint.

Questions go several to a request (:mod:`stategraph.judge.batch`), through the official
``openai`` SDK, so the same code talks to OpenAI, vLLM, Ollama and llama.cpp's server. The
answer format is asked for as a JSON schema;
a server that rejects that (HTTP 400/422) is asked again with ``json_object`` and then with no
format at all, and the first one it accepts is remembered for the rest of the judge's life.
Whatever comes back is parsed strictly (:func:`~stategraph.judge.parse.parse_answer`).

The judge never raises out of :meth:`OpenAIJudge.ask`: a question whose request or answer
fails (or whose answer the reply leaves out) becomes a
:class:`~stategraph.judge.base.JudgeCall` with ``answer=None`` and ``error``
saying why, and the engine leaves that edge undecided. Errors start with a fixed word so that
callers can sort them without parsing prose: ``timeout``, ``connection``, ``rate_limited``,
``server_error`` (all retried first), ``http_error``, ``refused``, ``truncated``,
``malformed``, ``too_large`` and ``unexpected`` (never retried: another attempt at
temperature 0 gets the same reply, and a refusal or a 4xx will not change), and ``budget`` or
``deadline`` when the revision's allowance stopped the question before a request.

The SDK's own retries are switched off: this module retries, so that ``attempts`` in the log
counts every request that reached the wire.

Inside a revision the engine gives the judge an allowance
(:mod:`stategraph.judge.limits`): every request, retries included, takes one request and the
prompt's estimated tokens from it before it is sent, and no request outlives the revision's
deadline. On the wire, each request is bounded as a whole (``timeout`` is wall-clock time for
the request, not an idle-read timeout) and in size (``max_response_bytes``) by the judge's
own HTTP client (:mod:`stategraph.judge.wire`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion

from stategraph.errors import JudgeConfigError, MalformedAnswerError
from stategraph.judge.base import PROMPT_VERSION, JudgeAnswer, Question, Quote
from stategraph.judge.batch import MAX_PROMPT_TOKENS, MAX_QUESTIONS, BatchingJudge, Sent
from stategraph.judge.limits import Allowance, estimate_tokens
from stategraph.judge.parse import parse_answers
from stategraph.judge.prompt import messages_for, messages_for_batch, response_schema
from stategraph.judge.retry import RetryPolicy, retry_after_seconds
from stategraph.judge.wire import (
    CompressedAnswer,
    ResponseTooLarge,
    bounded_http_client,
    request_limit,
)

__all__ = ["OpenAIJudge", "ResponseFormat"]

ResponseFormat = Literal["json_schema", "json_object", "plain"]
"""How the answer's format is asked for: the JSON schema, any JSON object, or not at all."""

_FORMATS: tuple[ResponseFormat, ...] = ("json_schema", "json_object", "plain")
_NAME = "stategraph.openai_judge.v1"
_ENV_BASE_URL = "OPENAI_BASE_URL"
_ENV_API_KEY = "OPENAI_API_KEY"
_ENV_MODEL = "STATEGRAPH_JUDGE_MODEL"
_NO_KEY = "no-key"  # local servers want none, but the SDK insists on a string
_OPENAI = "https://api.openai.com/v1"  # the SDK's endpoint when none is given
_PROBE = Question(  # asked of messages_for at construction, to check the prompt version
    head=Quote(id="h", kind="belief", text=""),
    premise=Quote(id="p", kind="fact", text=""),
    premise_change="retracted",
)


@dataclass
class _Tally:
    """What one question cost so far, across its attempts."""

    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add_usage(self, completion: ChatCompletion, prompt_estimate: int) -> int:
        """Add what the server reports (estimated where it reports nothing); the sum."""
        usage = completion.usage
        if usage is not None:
            prompt, answer = usage.prompt_tokens or 0, usage.completion_tokens or 0
        else:
            texts = [c.message.content or "" for c in completion.choices]
            prompt = prompt_estimate
            answer = estimate_tokens([{"content": t} for t in texts])
        self.prompt_tokens += prompt
        self.completion_tokens += answer
        return prompt + answer


class _Retry(Exception):
    """An attempt failed in a way another attempt may cure."""

    def __init__(self, error: str, retry_after: float | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.retry_after = retry_after


class _Rejected(Exception):
    """The server refused the request's response format (HTTP 400 or 422)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


class _Failed(Exception):
    """An attempt failed for good: the call ends with this error."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


def _status_error(exc: openai.APIStatusError) -> str:
    message = exc.message.removeprefix(f"Error code: {exc.status_code} - ")
    return f"HTTP {exc.status_code}: {message}"[:300]


class OpenAIJudge(BatchingJudge):
    """A :class:`~stategraph.judge.base.Judge` over an OpenAI-compatible endpoint.

    The defaults suit chat models on OpenAI, vLLM, Ollama and llama.cpp. OpenAI's reasoning
    models reject ``temperature`` and ``max_tokens``: pass ``temperature=None`` and
    ``max_tokens=None`` for them.

    Args:
        model: the model name the server knows (part of every cache key).
        base_url: the endpoint, e.g. ``http://127.0.0.1:8080/v1``; None for the SDK's
            default (``OPENAI_BASE_URL``, else OpenAI's).
        api_key: the key; None for the SDK's default (``OPENAI_API_KEY``), or a placeholder
            when ``base_url`` is given (local servers take none).
        client: an ``openai.OpenAI`` client to use instead of building one (then leave
            ``base_url`` and ``api_key`` out). Its own retries are switched off here. Its
            HTTP client is its own: ``timeout`` then bounds each read, not the request, and
            ``max_response_bytes`` is not enforced (build it with ``http_client=``
            :func:`~stategraph.judge.wire.bounded_http_client` to have both).
        timeout: seconds one request may take in all (connecting, sending, waiting and
            reading: a server dripping bytes is cut off too).
        connect_timeout: seconds to wait for a connection.
        max_retries: retries after the first attempt, for timeouts, connection errors, 429
            and 5xx.
        backoff: the first backoff wait in seconds (doubling, with jitter, up to
            ``max_backoff``).
        max_backoff: the longest backoff wait.
        max_retry_after: the longest ``retry-after`` honoured; longer requests are cut.
        concurrency: requests of one batch in flight at once.
        max_questions: the most questions one request asks (:mod:`stategraph.judge.batch`).
        max_prompt_tokens: the largest prompt (estimated tokens) a request is filled to.
        max_response_bytes: the most one answer may send (status line and headers
            included); past it the request fails with ``too_large``.
        max_tokens: the cap on the answer's length per question asked (a request of n
            questions is capped at n times this; an answer cut by it is ``truncated``);
            None sends no cap.
        temperature: sampling temperature; 0 so that the same question gets the same answer.
            None sends none (for models that accept only their default).
        response_format: the first format to ask for; the judge steps down from it when the
            server rejects it.
        prompt_version: the prompt the questions are sent with.
        sleep: how to wait between attempts (``time.sleep``); a caller with its own clock,
            or a test, passes another.

    Raises:
        JudgeConfigError: for a missing model, a value out of range, or a client the SDK
            cannot build (no key and no endpoint).
    """

    name: str = _NAME

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: OpenAI | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 10.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 30.0,
        concurrency: int = 4,
        max_questions: int = MAX_QUESTIONS,
        max_prompt_tokens: int = MAX_PROMPT_TOKENS,
        max_response_bytes: int = 1 << 20,
        max_tokens: int | None = 512,
        temperature: float | None = 0.0,
        response_format: ResponseFormat = "json_schema",
        prompt_version: str = PROMPT_VERSION,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.prompt_version = prompt_version
        self.concurrency = concurrency
        self.max_questions = max_questions
        self.max_prompt_tokens = max_prompt_tokens
        self.max_response_bytes = max_response_bytes
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.retry = RetryPolicy(max_retries, backoff, max_backoff, max_retry_after)
        self._timeout = openai.Timeout(timeout, connect=min(connect_timeout, timeout))
        self._seconds = timeout
        self._format = response_format
        self._format_lock = threading.Lock()
        self._sleep = sleep
        self._owns_client = client is None
        both = client is not None and (base_url is not None or api_key is not None)
        self._check(timeout, connect_timeout, both)
        self._client = self._build_client(client, base_url, api_key)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **options: Any) -> OpenAIJudge:
        """A judge configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and
        ``STATEGRAPH_JUDGE_MODEL``.

        The model is required. The key may be left out when a base URL is given (local
        servers take none); the base URL may be left out when a key is given (OpenAI's).

        Args:
            env: the variables to read; ``os.environ`` when None.
            **options: any other keyword of :class:`OpenAIJudge` (timeouts, concurrency...).

        Raises:
            JudgeConfigError: naming every variable that is missing.
        """
        source = os.environ if env is None else env
        model = source.get(_ENV_MODEL, "").strip()
        base_url = source.get(_ENV_BASE_URL, "").strip() or None
        api_key = source.get(_ENV_API_KEY, "").strip() or None
        missing = [] if model else [_ENV_MODEL]
        if base_url is None and api_key is None:
            missing += [_ENV_BASE_URL, _ENV_API_KEY]
        if missing:
            raise JudgeConfigError(
                _NAME,
                f"missing environment variable(s) {', '.join(missing)}: set "
                f"{_ENV_MODEL} to the model name, and {_ENV_BASE_URL} to the server's "
                f"endpoint (e.g. http://127.0.0.1:8080/v1) or {_ENV_API_KEY} for OpenAI",
                missing,
            )
        return cls(model, base_url=base_url, api_key=api_key, **options)

    def close(self) -> None:
        """Close the HTTP connections of the client this judge built (not of one passed in)."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> OpenAIJudge:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def response_format(self) -> ResponseFormat:
        """The format the next question will be asked with (it only ever steps down)."""
        return self._format

    def _check(self, timeout: float, connect_timeout: float, both_clients: bool) -> None:
        problems = self.retry.problems()
        if not self.model.strip():
            problems.append(("model", "must name the model the server serves"))
        if not timeout > 0 or not connect_timeout > 0:
            problems.append(("timeout", "timeout and connect_timeout must be > 0 seconds"))
        if self.concurrency < 1:
            problems.append(("concurrency", "must be >= 1"))
        if self.max_questions < 1 or self.max_prompt_tokens < 1:
            problems.append(("max_questions", "max_questions and max_prompt_tokens must be >= 1"))
        if self.max_response_bytes < 1024:
            problems.append(("max_response_bytes", "must be >= 1024"))
        if self.max_tokens is not None and self.max_tokens < 1:
            problems.append(("max_tokens", "must be >= 1, or None for no cap"))
        if self._format not in _FORMATS:
            problems.append(("response_format", f"must be one of {', '.join(_FORMATS)}"))
        if both_clients:
            problems.append(("client", "pass either client or base_url/api_key, not both"))
        try:
            messages_for(_PROBE, self.prompt_version)
        except KeyError:
            problems.append(("prompt_version", f"no prompt {self.prompt_version!r}"))
        if problems:
            text = "; ".join(f"{field}: {what}" for field, what in problems)
            raise JudgeConfigError(_NAME, text, (field for field, _ in problems))

    def _build_client(self, client: OpenAI | None, base_url: str | None, key: str | None) -> OpenAI:
        if client is not None:
            return client.with_options(max_retries=0)
        if key is None and base_url is not None:
            key = _NO_KEY
        endpoint = base_url or os.environ.get(_ENV_BASE_URL) or _OPENAI
        http = bounded_http_client(endpoint, self._timeout)
        try:
            return OpenAI(
                base_url=base_url,
                api_key=key,
                max_retries=0,
                timeout=self._timeout,
                http_client=http,
            )
        except openai.OpenAIError as exc:
            http.close()
            raise JudgeConfigError(
                _NAME,
                f"cannot build the OpenAI client ({exc}): pass api_key, or base_url for a "
                "local server",
                ("api_key", "base_url"),
            ) from None

    def _send(self, questions: Sequence[Question], allowance: Allowance | None) -> Sent:
        """Ask one request's questions, retrying what can be retried; never raises."""
        tally = _Tally()
        started = time.perf_counter()
        answers: dict[str, JudgeAnswer] = {}
        error: str | None = None
        try:
            messages = messages_for_batch(questions, self.prompt_version)
            text = self._attempts(messages, len(questions), tally, allowance)
            heads = [q.head.id for q in questions]
            answers = parse_answers(text, heads, self.prompt_version)
        except MalformedAnswerError as exc:
            error = f"malformed: {exc.problem}"[:300]
        except _Failed as exc:
            error = exc.error
        except Exception as exc:  # a judge failure must never abort a revision
            error = f"unexpected: {type(exc).__name__}: {exc}"[:300]
        return Sent(
            answers=answers,
            error=error,
            attempts=tally.attempts,
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )

    def _attempts(
        self,
        messages: list[dict[str, str]],
        asked: int,
        tally: _Tally,
        allowance: Allowance | None,
    ) -> str | None:
        """The text of the first acceptable reply to ``messages`` (``asked`` questions)."""
        estimate = estimate_tokens(messages)
        cap = None if self.max_tokens is None else self.max_tokens * asked
        reserve = estimate + (cap or 0)
        fmt = self._format
        rejected: str | None = None
        retries = 0
        while True:
            if allowance is not None:
                refused = allowance.take(reserve)
                if refused is not None:
                    raise _Failed(f"{refused} ({tally.attempts} attempts)")
            tally.attempts += 1
            spent = 0
            try:
                completion = self._request(messages, fmt, cap, allowance)
                spent = tally.add_usage(completion, estimate)
            except _Rejected as exc:
                rejected = rejected or exc.error
                later = _FORMATS[_FORMATS.index(fmt) + 1 :]
                if not later:  # every format was refused: the 400 was about something else
                    raise _Failed(f"http_error: {rejected}") from None
                fmt = later[0]
                continue
            except _Retry as exc:
                retries += 1
                if retries > self.retry.max_retries:
                    raise _Failed(f"{exc.error} ({tally.attempts} attempts)") from None
                wait = self.retry.wait(retries, exc.retry_after)
                left = allowance.seconds_left() if allowance is not None else None
                if left is not None and wait >= left:
                    raise _Failed(
                        f"deadline: the revision's judge time ran out after {exc.error} "
                        f"({tally.attempts} attempts)"
                    ) from None
                self._sleep(wait)
                continue
            finally:
                if allowance is not None:
                    allowance.settle(reserve, spent)
            if rejected is not None:
                self._step_down(fmt)
            return self._text(completion)

    def _step_down(self, fmt: ResponseFormat) -> None:
        with self._format_lock:
            if _FORMATS.index(fmt) > _FORMATS.index(self._format):
                self._format = fmt

    def _request(
        self,
        messages: list[dict[str, str]],
        fmt: ResponseFormat,
        cap: int | None,
        allowance: Allowance | None,
    ) -> ChatCompletion:
        """One request; raises _Retry, _Rejected or _Failed for what went wrong."""
        params: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if cap is not None:
            params["max_tokens"] = cap
        if fmt == "json_schema":
            schema = response_schema(self.prompt_version)
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "judge_answer", "schema": schema, "strict": True},
            }
        elif fmt == "json_object":
            params["response_format"] = {"type": "json_object"}
        seconds = self._seconds
        left = allowance.seconds_left() if allowance is not None else None
        if left is not None:
            seconds = min(seconds, left)
        timeout = openai.Timeout(seconds, connect=min(self._timeout.connect or seconds, seconds))
        try:
            with request_limit(seconds, self.max_response_bytes):
                result = self._client.chat.completions.create(**params, timeout=timeout)
        except (ResponseTooLarge, CompressedAnswer) as exc:
            raise _Failed(f"too_large: {exc}") from None
        except openai.APITimeoutError:
            if left is not None and seconds >= left:
                raise _Failed("deadline: the revision's judge time ran out in a request") from None
            raise _Retry(f"timeout: no answer within {self._seconds} s") from None
        except openai.APIConnectionError as exc:
            raise _Retry(f"connection: {exc}"[:300]) from None
        except openai.APIStatusError as exc:
            retry_after = retry_after_seconds(exc.response.headers)
            if exc.status_code == 429:
                raise _Retry(f"rate_limited: {_status_error(exc)}", retry_after) from None
            if exc.status_code >= 500:
                raise _Retry(f"server_error: {_status_error(exc)}", retry_after) from None
            if exc.status_code in (400, 422) and fmt != "plain":
                raise _Rejected(_status_error(exc)) from None
            raise _Failed(f"http_error: {_status_error(exc)}") from None
        except openai.OpenAIError as exc:  # e.g. a body that is not a chat completion
            raise _Failed(f"unexpected: {type(exc).__name__}: {exc}"[:300]) from None
        if not isinstance(result, ChatCompletion):
            raise _Failed(f"unexpected: the server returned {type(result).__name__}")
        return result

    def _text(self, completion: ChatCompletion) -> str | None:
        """The reply's text, or _Failed when it was refused, filtered or cut."""
        if not completion.choices:
            raise _Failed("malformed: the reply has no choices")
        choice = completion.choices[0]
        message = choice.message
        if message.refusal:
            raise _Failed(f"refused: {message.refusal}"[:300])
        if choice.finish_reason == "content_filter":
            raise _Failed("refused: finish_reason content_filter")
        if choice.finish_reason == "length":
            used = completion.usage.completion_tokens if completion.usage else "?"
            raise _Failed(f"truncated: finish_reason length after {used} completion tokens")
        return message.content
