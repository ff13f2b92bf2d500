"""Profile photos: verified, stripped of metadata, re-encoded and resized with Pillow.
Anything that is not a plain raster image (SVG, HTML, a decompression bomb) is refused."""

from __future__ import annotations

import hashlib
import io
import warnings

from flask import current_app, has_app_context
from PIL import Image, ImageDraw, ImageFont, ImageOps, UnidentifiedImageError

from directory import config
from directory.models import PersonPhoto

ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}


class PhotoRejected(ValueError):
    """The upload is not an acceptable photo; the message says why, for the user."""


def _setting(name: str) -> int:
    return current_app.config[name] if has_app_context() else getattr(config, name)


#: JPEG segments a plain image needs (tables, frame, scans); anything else — EXIF and other
#: APPn metadata, comments — makes :func:`photo_from_bytes` encode the image afresh.
_PLAIN_SEGMENTS = {0xC0, 0xC1, 0xC2, 0xC4, 0xDB, 0xDD}
_JFIF = b"JFIF\x00"


def is_plain_jpeg(data: bytes) -> bool:
    """Whether ``data`` is a baseline or progressive JPEG holding nothing but the image: a
    JFIF header without thumbnail, tables, frame and scans, and not a byte after its end."""
    if not data.startswith(b"\xff\xd8"):
        return False
    i, end = 2, len(data)
    while i + 4 <= end:
        if data[i] != 0xFF:
            return False
        marker = data[i + 1]
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        segment = data[i + 4 : i + 2 + length]
        if marker == 0xE0:
            # JFIF (16 bytes: no thumbnail), nothing else in APP0.
            if length != 16 or not segment.startswith(_JFIF):
                return False
        elif marker == 0xDA:  # a scan: its entropy-coded data runs to the next marker
            i += 2 + length
            while i + 1 < end and not (data[i] == 0xFF and data[i + 1] not in _IN_SCAN):
                i += 1
            if i + 1 >= end:
                return False
            if data[i + 1] == 0xD9:
                return i + 2 == end  # EOI, and nothing after it
            continue
        elif marker not in _PLAIN_SEGMENTS:
            return False
        i += 2 + length
    return False


#: Bytes that may follow 0xFF inside a scan's data (stuffing, restart markers).
_IN_SCAN = {0x00, *range(0xD0, 0xD8)}


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
                colour = image.mode
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
    if colour == "RGB" and max(image.size) <= edge and is_plain_jpeg(data):
        # Already what this function writes (a re-import of an export, say): kept as it is,
        # since encoding a JPEG again loses a little more each time.
        encoded = data
    else:
        image.thumbnail((edge, edge))
        out = io.BytesIO()
        # A fresh JPEG carries none of the original's metadata (EXIF location, comments...):
        # Pillow writes the comment it read back unless the image's info is emptied.
        image.info.clear()
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


#: Background and figure colours of the demo's placeholder portraits (muted, never skin tones).
_PLACEHOLDER_COLOURS = (
    ((214, 226, 240), (52, 86, 128)),
    ((224, 236, 222), (48, 98, 72)),
    ((238, 228, 214), (120, 78, 40)),
    ((232, 222, 238), (92, 62, 122)),
)
#: Where the placeholder's figure stands, in percent from the left and the top: its focal point.
PLACEHOLDER_FOCUS = (70, 40)


def placeholder_portrait(full_name: str) -> PersonPhoto:
    """A clearly synthetic portrait for demo data, never a picture of anyone: a flat
    silhouette with the person's initials, standing off-centre in a landscape frame (as in
    many real photos), with its focal point set on the head so that square and round crops
    keep it in view. Made by the code, deterministic for a name."""
    width, height = 600, 400
    digest = hashlib.sha256(full_name.encode("utf-8")).digest()
    background, figure = _PLACEHOLDER_COLOURS[digest[0] % len(_PLACEHOLDER_COLOURS)]
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    x, y = width * PLACEHOLDER_FOCUS[0] // 100, height * PLACEHOLDER_FOCUS[1] // 100
    draw.rectangle((0, height * 3 // 4, width, height), fill=tuple(c - 18 for c in background))
    draw.ellipse((x - 150, y + 95, x + 150, y + 395), fill=figure)  # shoulders
    draw.ellipse((x - 70, y - 85, x + 70, y + 75), fill=figure)  # head
    initials = "".join(part[0] for part in full_name.split()[:2]).upper()
    draw.text((x, y + 160), initials, fill=background, font=ImageFont.load_default(size=54),
              anchor="mm")  # fmt: skip
    # Said on the figure itself, so that every crop keeps it.
    draw.text((x, y + 205), "DEMO", fill=background, font=ImageFont.load_default(size=20),
              anchor="mm")  # fmt: skip
    out = io.BytesIO()
    image.save(out, format="PNG")
    photo = photo_from_bytes(out.getvalue(), f"Placeholder portrait of {full_name} (demo data)")
    photo.focus_x, photo.focus_y = PLACEHOLDER_FOCUS
    return photo
