"""Polite, bounded HTTP for the harvest sources: one :class:`SourceCall` per source and
person asks for answers and records every fault in the :class:`SourceOutcome` in words,
never raising.

Each call: waits the source's pause since the previous call to it; sends the contact address
in the User-Agent; follows a redirect only on the source's own host; on HTTP 429 or 503 waits
the ``Retry-After`` it is given (at most DIRECTORY_HARVEST_RETRY_AFTER_MAX, twice; a 429
without one, :data:`NO_RETRY_AFTER_WAIT`) and asks again; reads the answer streamed (and
decompressed), stopping past DIRECTORY_HARVEST_MAX_RESPONSE_BYTES or
DIRECTORY_HARVEST_RESPONSE_DEADLINE (a slow drip), with connect and read timeouts on top;
and gives up once the source's deadline for this person has passed.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from importlib import metadata
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from directory.formats.harvest.common import HarvestPage, HarvestParseError
from directory.formats.harvest.works import SourceOutcome

#: Times one call asks again after an HTTP 429 or 503 with a Retry-After.
RETRIES = 2
#: Seconds waited after an HTTP 429 that gives no Retry-After.
NO_RETRY_AFTER_WAIT = 2.0
#: Redirects followed on the source's own host.
MAX_REDIRECTS = 3


class Pacer:
    """The time of the last call to each source, so that calls to it keep its pause: one
    pacer is shared by every person of a run (which asks its sources one call at a time)."""

    def __init__(self, pauses: Mapping[str, float]) -> None:
        self.pauses = dict(pauses)
        self._last: dict[str, float] = {}

    def wait(self, source: str) -> None:
        pause = self.pauses.get(source) or 0
        last = self._last.get(source)
        if pause and last is not None:
            time.sleep(max(0.0, last + pause - time.monotonic()))

    def called(self, source: str) -> None:
        self._last[source] = time.monotonic()


def _version() -> str:
    try:
        return metadata.version("faculty-directory")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "dev"


@dataclass
class HarvestSettings:
    """The harvest's DIRECTORY_HARVEST_* settings, read once for a run."""

    sources: dict[str, str]
    contact: str | None = None
    api_keys: dict[str, str] = field(default_factory=dict)
    connect_timeout: float = 5.0
    read_timeout: float = 20.0
    response_deadline: float = 60.0
    source_deadline: float = 300.0
    max_response_bytes: int = 5 * 1024 * 1024
    max_works: int = 2000
    retry_after_max: float = 60.0
    pacer: Pacer = field(default_factory=lambda: Pacer({}))

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> HarvestSettings:
        """The settings of a Flask config (its defaults applied by directory.config)."""
        return cls(
            sources=dict(config["DIRECTORY_HARVEST_SOURCES"] or {}),
            contact=config["DIRECTORY_HARVEST_CONTACT"] or config["DIRECTORY_MAIL_SENDER"],
            api_keys=dict(config["DIRECTORY_HARVEST_API_KEYS"] or {}),
            connect_timeout=float(config["DIRECTORY_HARVEST_CONNECT_TIMEOUT"]),
            read_timeout=float(config["DIRECTORY_HARVEST_READ_TIMEOUT"]),
            response_deadline=float(config["DIRECTORY_HARVEST_RESPONSE_DEADLINE"]),
            source_deadline=float(config["DIRECTORY_HARVEST_SOURCE_DEADLINE"]),
            max_response_bytes=int(config["DIRECTORY_HARVEST_MAX_RESPONSE_BYTES"]),
            max_works=int(config["DIRECTORY_HARVEST_MAX_WORKS"]),
            retry_after_max=float(config["DIRECTORY_HARVEST_RETRY_AFTER_MAX"]),
            pacer=Pacer(config["DIRECTORY_HARVEST_PAUSES"] or {}),
        )

    @property
    def user_agent(self) -> str:
        contact = f"; mailto:{self.contact}" if self.contact else ""
        return f"faculty-directory/{_version()} (publication harvest{contact})"


def make_client(settings: HarvestSettings) -> httpx.Client:
    """The run's HTTP client: its timeouts, the User-Agent, and no redirect followed on its
    own (:class:`SourceCall` follows those on the source's host)."""
    timeout = httpx.Timeout(
        settings.read_timeout, connect=settings.connect_timeout, pool=settings.connect_timeout
    )
    return httpx.Client(
        timeout=timeout,
        follow_redirects=False,
        headers={"User-Agent": settings.user_agent},
        trust_env=False,
    )


class _Fault(Exception):
    """A fault of one call, in words (caught inside :class:`SourceCall`, never outside)."""


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class SourceCall:
    """The calls to one source for one person: every fault lands in ``outcome.errors``."""

    def __init__(
        self, source: str, client: httpx.Client, settings: HarvestSettings, outcome: SourceOutcome
    ) -> None:
        self.source = source
        self.client = client
        self.settings = settings
        self.outcome = outcome
        self.base = settings.sources[source].rstrip("/")
        self.host = urlsplit(self.base).netloc.lower()
        self.scheme = urlsplit(self.base).scheme
        self.deadline = time.monotonic() + settings.source_deadline
        #: The status of the last "wait and retry" answer (429 or 503).
        self._busy = 429

    def get(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        what: str,
        headers: Mapping[str, str] | None = None,
    ) -> bytes | None:
        """The body of a 200 answer to ``GET base + path``, or ``None`` with the fault
        recorded (``what`` names the answer in the message)."""
        url = self.base + path
        try:
            for _attempt in range(RETRIES + 1):
                body, wait = self._attempt(url, params, headers or {}, what)
                if wait is None:
                    return body
                self._sleep(wait, what)
            raise _Fault(
                f"{what}: still HTTP {self._busy} after {RETRIES} waits; left for the next run"
            )
        except _Fault as fault:
            self.outcome.errors.append(str(fault))
            return None

    def _sleep(self, wait: float, what: str) -> None:
        busy = f"{what}: HTTP {self._busy}"
        if wait > self.settings.retry_after_max:
            raise _Fault(
                f"{busy}, asked to wait {wait:.0f} s (more than the "
                f"{self.settings.retry_after_max:.0f} s allowed); left for the next run"
            )
        if time.monotonic() + wait > self.deadline:
            raise _Fault(f"{busy}, and waiting {wait:.0f} s would pass the deadline")
        self.outcome.errors.append(f"{busy}, waited {wait:.0f} s and asked again")
        time.sleep(wait)

    def _attempt(
        self, url: str, params: Mapping[str, Any] | None, headers: Mapping[str, str], what: str
    ) -> tuple[bytes | None, float | None]:
        """(body, None) for an answer, (None, seconds) when asked to wait and retry."""
        for _hop in range(MAX_REDIRECTS + 1):
            self.settings.pacer.wait(self.source)
            if time.monotonic() > self.deadline:
                raise _Fault(
                    f"{what}: not asked, the {self.settings.source_deadline:g} s "
                    "deadline for this source has passed"
                )
            started = time.monotonic()
            try:
                with self.client.stream("GET", url, params=params, headers=headers) as response:
                    self.outcome.calls += 1
                    location = self._status(response, what)
                    if isinstance(location, float):
                        return None, location
                    if location is None:
                        return self._read(response, what, started), None
            except httpx.TimeoutException as exc:
                raise _Fault(f"{what}: timed out ({self._timeout_words(exc)})") from exc
            except httpx.HTTPError as exc:
                raise _Fault(f"{what}: could not be fetched ({exc})") from exc
            finally:
                self.settings.pacer.called(self.source)
            url, params = location, None
        raise _Fault(f"{what}: more than {MAX_REDIRECTS} redirects")

    def _status(self, response: httpx.Response, what: str) -> str | float | None:
        """None for a 200; the redirect's address on the source's host; the seconds to wait
        for a 429/503 with Retry-After. Anything else is a fault."""
        status = response.status_code
        if status == 200:
            return None
        if status in (301, 302, 303, 307, 308):
            target = urljoin(str(response.url), response.headers.get("location", ""))
            parts = urlsplit(target)
            if parts.netloc.lower() != self.host:
                raise _Fault(f"{what}: redirect to another host ({parts.netloc or 'none'}) refused")
            if parts.scheme != self.scheme:
                raise _Fault(f"{what}: redirect from {self.scheme} to {parts.scheme} refused")
            return target
        wait = _retry_after(response.headers.get("retry-after"))
        if status == 429 and wait is None:
            wait = NO_RETRY_AFTER_WAIT  # too many calls, and no word on how long to wait
        if status in (429, 503) and wait is not None:
            self._busy = status
            return wait
        if status in (404, 410):
            raise _Fault(f"{what}: HTTP {status}, the source knows no such identifier")
        raise _Fault(f"{what}: HTTP {status}")

    def _timeout_words(self, exc: httpx.TimeoutException) -> str:
        if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
            return f"no connection within {self.settings.connect_timeout:g} s"
        return f"nothing read for {self.settings.read_timeout:g} s"

    def _read(self, response: httpx.Response, what: str, started: float) -> bytes:
        cap = self.settings.max_response_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise _Fault(f"{what}: the answer is {int(declared)} bytes, over the {cap} byte limit")
        deadline = min(self.deadline, started + self.settings.response_deadline)
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            self.outcome.bytes_read += len(chunk)
            if size > cap:
                raise _Fault(f"{what}: the answer passed the {cap} byte limit; reading stopped")
            if time.monotonic() > deadline:
                raise _Fault(
                    f"{what}: the answer was still arriving after "
                    f"{self.settings.response_deadline:.0f} s ({size} bytes); reading stopped"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    def pages(
        self,
        path: str,
        params_for: Callable[[str | int | None], dict[str, Any]],
        parse: Callable[[bytes], HarvestPage],
        what: str,
        start: str | int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[HarvestPage]:
        """Every page of a cursor- or offset-paged list, stopping at the first fault (the
        pages already read are kept) or at DIRECTORY_HARVEST_MAX_WORKS."""
        position: str | int | None = start
        number, read = 1, 0
        while True:
            params = params_for(position)
            body = self.get(path, params, what=f"{what}, page {number}", headers=headers)
            if body is None:
                return
            page = self.parse(parse, body, f"{what}, page {number}")
            if page is None:
                return
            yield page
            read += len(page.works)
            if page.next is None or not page.works:
                return
            if read >= self.settings.max_works:
                self.outcome.errors.append(
                    f"{what}: stopped after {read} works (the limit is {self.settings.max_works})"
                )
                return
            position, number = page.next, number + 1

    def parse(self, parse: Callable[[bytes], Any], body: bytes, what: str) -> Any:
        """``parse(body)``, or ``None`` with the malformed answer recorded."""
        try:
            return parse(body)
        except HarvestParseError as exc:
            self.outcome.errors.append(f"{what}: {exc}")
            return None


Fetch = Callable[[Mapping[str, str], httpx.Client, HarvestSettings], SourceOutcome]


def source_fetch(source: str) -> Callable[[Callable[[Mapping[str, str], SourceCall], None]], Fetch]:
    """Make a source's ``fetch(person_ids, client, settings) -> SourceOutcome`` from a
    function that reads the person's works into ``call.outcome``: the outcome is skipped when
    the source is not configured, and an unforeseen error is recorded (the works already read
    kept) instead of raised."""

    def wrap(read: Callable[[Mapping[str, str], SourceCall], None]) -> Fetch:
        @functools.wraps(read)
        def fetch(
            person_ids: Mapping[str, str], client: httpx.Client, settings: HarvestSettings
        ) -> SourceOutcome:
            outcome = SourceOutcome(source)
            if not settings.sources.get(source):
                outcome.skipped = True
                return outcome
            try:
                read(person_ids, SourceCall(source, client, settings, outcome))
            except Exception as exc:  # noqa: BLE001 - one source's fault must not stop the run
                outcome.errors.append(f"unexpected error: {type(exc).__name__}: {exc}")
            return outcome

        return fetch

    return wrap
