"""Profile photos: verified, stripped of metadata, re-encoded and resized with Pillow.
Anything that is not a plain raster image (SVG, HTML, a decompression bomb) is refused."""

from __future__ import annotations

import hashlib
import io
import warnings

from flask import current_app, has_app_context
from PIL import Image, ImageOps, UnidentifiedImageError

from directory import config
from directory.models import PersonPhoto

ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}


class PhotoRejected(ValueError):
    """The upload is not an acceptable photo; the message says why, for the user."""


def _setting(name: str) -> int:
    return current_app.config[name] if has_app_context() else getattr(config, name)


def photo_from_bytes(data: bytes, alt_text: str | None = None) -> PersonPhoto:
    """Check and re-encode an uploaded photo; raise :class:`PhotoRejected` with a reason."""
    max_bytes = _setting("DIRECTORY_PHOTO_MAX_BYTES")
    max_pixels = _setting("DIRECTORY_PHOTO_MAX_PIXELS")
    edge = _setting("DIRECTORY_PHOTO_SIZE")
    if len(data) > max_bytes:
        raise PhotoRejected(f"The photo is larger than {max_bytes // (1024 * 1024)} MB.")
    if not data:
        raise PhotoRejected("The file is empty.")
    try:
        with warnings.catch_warnings():
            # Pillow warns before it raises for bombs; turn the warning into a refusal too.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                if probe.format not in ACCEPTED_FORMATS:
                    raise PhotoRejected("Upload a JPEG, PNG, WebP or GIF image.")
                if probe.width * probe.height > max_pixels:
                    raise PhotoRejected("The image has too many pixels; upload a smaller one.")
                probe.verify()
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                image = ImageOps.exif_transpose(image)
                image = image.convert("RGB")
    except PhotoRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PhotoRejected("The image has too many pixels; upload a smaller one.") from None
    except UnidentifiedImageError:
        raise PhotoRejected(
            "This file is not an image we can read: upload a JPEG, PNG, WebP or GIF photo."
        ) from None
    except (OSError, SyntaxError, ValueError):
        raise PhotoRejected("The image file is damaged or incomplete.") from None
    image.thumbnail((edge, edge))
    out = io.BytesIO()
    # A fresh JPEG carries none of the original's metadata (EXIF location, comments...).
    image.save(out, format="JPEG", quality=85, optimize=True)
    encoded = out.getvalue()
    return PersonPhoto(
        data=encoded,
        mime_type="image/jpeg",
        width=image.width,
        height=image.height,
        etag=hashlib.sha256(encoded).hexdigest()[:32],
        alt_text=alt_text,
    )
