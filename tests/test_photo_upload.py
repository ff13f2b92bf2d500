"""Photo uploads through the editor: real images are re-encoded without metadata and
resized; bombs, non-images and damaged files are refused with a clear message."""

from __future__ import annotations

import functools
import io

import pytest
from PIL import Image

from directory import models as m

from .conftest import login
from .editing_support import post

URL = "/directory/people/ada-lovelace/edit/photo"


def image_bytes(fmt: str = "JPEG", size=(1200, 800), mode: str = "RGB", **save: object) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, "#3366aa" if mode == "RGB" else 0).save(out, format=fmt, **save)
    return out.getvalue()


def upload(client, data: bytes, filename: str):
    return post(
        client,
        URL,
        {"photo": (io.BytesIO(data), filename), "alt_text": "Ada at her desk"},
        content_type="multipart/form-data",
    )


@pytest.fixture
def ada(make_person, client):
    person = make_person(user_key="ada")
    login(client, "ada")
    return person


def test_a_photo_is_resized_stripped_and_served(client, db, ada) -> None:
    exif = Image.Exif()
    exif[0x010F] = "SecretCameraMaker"  # Make
    raw = image_bytes(size=(1600, 1200), exif=exif.tobytes())
    assert b"SecretCameraMaker" in raw
    response = upload(client, raw, "me.jpg")
    assert response.status_code == 302
    db.expire_all()
    photo = db.get(m.Person, ada.id).photo
    assert (photo.width, photo.height) == (600, 450)
    assert b"SecretCameraMaker" not in photo.data
    served = client.get("/directory/people/ada-lovelace/photo")
    assert served.status_code == 200 and served.mimetype == "image/jpeg"
    assert Image.open(io.BytesIO(served.data)).size == (600, 450)
    assert 'alt="Ada at her desk"' in client.get("/directory/people/ada-lovelace").get_data(
        as_text=True
    )


@functools.cache
def bomb() -> bytes:
    # 20000 × 20000 one-bit pixels compress to a few kilobytes but would take 400 MB
    # once decoded into RGB.
    return image_bytes("PNG", size=(20000, 20000), mode="1", optimize=True)


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("bomb.png", bomb, "too many pixels"),
        (
            "drawing.svg",
            lambda: b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "not an image we can read",
        ),
        ("page.png", lambda: b"<!doctype html><html><body>hello</body></html>",
         "not an image we can read"),
        ("cut.jpg", lambda: image_bytes()[:600], "damaged or incomplete"),
        ("empty.png", lambda: b"", "The file is empty"),
    ],
)  # fmt: skip
def test_bad_files_are_refused_with_a_message_and_nothing_saved(
    client, db, ada, name, make, message
) -> None:
    response = upload(client, make(), name)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert message in page
    assert "The photo was not saved" in page
    db.expire_all()
    assert db.get(m.Person, ada.id).photo is None


def test_a_file_over_the_size_limit_is_refused(client, app, db, ada) -> None:
    app.config["DIRECTORY_PHOTO_MAX_BYTES"] = 2000
    try:
        response = upload(client, image_bytes(size=(400, 400), quality=100), "big.jpg")
    finally:
        app.config["DIRECTORY_PHOTO_MAX_BYTES"] = 5 * 1024 * 1024
    assert response.status_code == 400
    assert "larger than" in response.get_data(as_text=True)


def test_the_photo_can_be_removed(client, db, ada) -> None:
    upload(client, image_bytes(), "me.jpg")
    response = post(client, f"{URL}/remove")
    assert response.status_code == 302
    db.expire_all()
    assert db.get(m.Person, ada.id).photo is None
    assert client.get("/directory/people/ada-lovelace/photo").status_code == 404
