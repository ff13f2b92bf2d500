"""ORCID records from the public API (the web form offers it only when
``DIRECTORY_ORCID_FETCH`` is on); :mod:`directory.formats.orcid` reads what comes back."""

from __future__ import annotations

import urllib.request


class OrcidFetchError(Exception):
    """The record could not be downloaded (offline, unknown iD, not JSON)."""


def fetch_orcid_record(
    orcid_id: str, base_url: str, *, max_bytes: int, timeout: float = 15
) -> bytes:
    """Download ``orcid_id``'s public record (JSON) from the API at ``base_url``."""
    url = f"{base_url.rstrip('/')}/{orcid_id}/record"
    if not url.startswith(("https://", "http://")):
        raise OrcidFetchError("the ORCID API address must be http(s)")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            data = response.read(max_bytes + 1)
    except OSError as exc:
        raise OrcidFetchError(f"ORCID could not be reached ({exc})") from exc
    if len(data) > max_bytes:
        raise OrcidFetchError("the ORCID record is larger than the import limit")
    return data
