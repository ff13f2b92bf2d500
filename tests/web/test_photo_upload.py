"""Photo uploads through the editor: real images are re-encoded without metadata and
resized; bombs, non-images and damaged files are refused with a clear message."""

from __future__ import annotations

import functools
import io
import re

import pytest
from PIL import Image
from sqlalchemy import func, select

from directory import models as m
from directory.models import ChangeRecord
from directory.services.photos import photo_from_bytes
from directory.web.views.profile import photo_focus
from tests.conftest import login
from tests.support.editing import post

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


FOCUS_URL = f"{URL}/focus"


def focus_classes(html: str, css_class: str) -> str:
    """The classes of the first <img> of ``css_class`` on the page."""
    match = re.search(rf'<img class="{css_class} ([^"]*)"', html)
    assert match, f"no {css_class} image"
    return match.group(1)


def test_the_owner_picks_a_focal_point_with_a_preview_and_it_shows_everywhere(
    client, db, ada
) -> None:
    """Without JavaScript: two numbers, "Preview" (nothing saved) and "Save" (recorded in the
    history with the photo's fingerprint); the point is kept as near the middle of every square
    crop as the photo allows, by classes of the stylesheet (the CSP refuses style attributes),
    on the profile, the cards, the CV and the editor."""
    upload(client, image_bytes(size=(1200, 800)), "me.jpg")
    page = client.get(URL).get_data(as_text=True)
    assert 'name="focus_x"' in page and 'value="50"' in page
    assert "photo-fx-50 photo-fy-50" in focus_classes(page, "profile__photo")
    db.expire_all()
    version = db.get(m.Person, ada.id).version
    preview = post(client, FOCUS_URL, {"focus_x": "60", "focus_y": "20", "version": version,
                                       "preview": "1"})  # fmt: skip
    assert preview.status_code == 200
    shown = preview.get_data(as_text=True)
    assert "A preview: not saved yet." in shown
    # A 600×400 photo in a square: the point 60% across is centred by object-position 80%
    # (the box shows 400 of 600 pixels: 0.8 × 200 + 200 = 360, the point); the height fits.
    assert "photo-fx-80 photo-fy-50" in focus_classes(shown, "profile__photo")
    assert "photo-fx-80 photo-fy-50" in focus_classes(shown, "card__photo")
    assert 'class="focus-whole__mark photo-fx-60 photo-fy-20"' in shown  # the point itself
    db.expire_all()
    assert (db.get(m.Person, ada.id).photo.focus_x, db.get(m.Person, ada.id).photo.focus_y) == (
        50, 50)  # fmt: skip
    saved = post(client, FOCUS_URL, {"focus_x": "60", "focus_y": "20", "version": version})
    assert saved.status_code == 302
    db.expire_all()
    photo = db.get(m.Person, ada.id).photo
    assert (photo.focus_x, photo.focus_y) == (60, 20)
    record = db.scalars(select(ChangeRecord).order_by(ChangeRecord.id.desc())).first()
    assert record.before["photo"]["focus"] == [50, 50]
    assert record.after["photo"] == {"fingerprint": photo.etag, "alt_text": "Ada at her desk",
                                     "focus": [60, 20]}  # fmt: skip
    classes = "photo-focus photo-fx-80 photo-fy-50"
    profile = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert focus_classes(profile, "profile__photo") == classes
    assert focus_classes(client.get("/directory/").get_data(as_text=True), "card__photo") == classes
    cv = client.get("/directory/people/ada-lovelace/cv").get_data(as_text=True)
    assert focus_classes(cv, "cv__photo") == classes
    with client.get("/directory/assets/directory.css") as stylesheet:
        css = stylesheet.get_data(as_text=True)
    assert ".directory .photo-fx-75 { --photo-fx: 75%; }" in css
    assert "object-position: var(--photo-fx, 50%) var(--photo-fy, 50%)" in css
    # Reverting the change from the history puts the centre back (the same image).
    revert = post(client, f"/directory/people/ada-lovelace/history/{record.id}/revert")
    assert revert.status_code == 302
    db.expire_all()
    assert (db.get(m.Person, ada.id).photo.focus_x, db.get(m.Person, ada.id).photo.focus_y) == (
        50, 50)  # fmt: skip


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"focus_x": "101", "focus_y": "50"}, "Enter a number from 0 to 100."),
        ({"focus_x": "-5", "focus_y": "50"}, "Enter a number from 0 to 100."),
        ({"focus_x": "33", "focus_y": "50"}, "Use a multiple of 5 (0, 5, 10 … 100)."),
        ({"focus_x": "left", "focus_y": "50"}, "Not a valid integer value."),
        ({"focus_y": "50"}, "Enter a number from 0 to 100."),
    ],
)
def test_a_bad_focal_point_is_refused_next_to_its_field(client, db, ada, data, message) -> None:
    upload(client, image_bytes(), "me.jpg")
    db.expire_all()
    response = post(client, FOCUS_URL, {**data, "version": db.get(m.Person, ada.id).version})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in html.split('id="focus_x-errors"')[1].split("</ul>")[0]
    assert "The focal point was not saved" in html
    db.expire_all()
    assert db.get(m.Person, ada.id).photo.focus_x == 50


def test_a_focal_point_needing_approval_waits(client, db, ada, app, monkeypatch) -> None:
    upload(client, image_bytes(), "me.jpg")
    monkeypatch.setitem(app.config, "DIRECTORY_APPROVAL_ROLES", ["faculty"])
    db.expire_all()
    response = post(client, FOCUS_URL, {"focus_x": "10", "focus_y": "90",
                                        "version": db.get(m.Person, ada.id).version})  # fmt: skip
    assert response.status_code == 302
    db.expire_all()
    assert db.get(m.Person, ada.id).photo.focus_x == 50
    pending = db.scalars(select(m.PendingChange)).one()
    assert pending.proposed["photo"]["focus"] == [10, 90]
    login(client, "admin")
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 302
    db.expire_all()
    photo = db.get(m.Person, ada.id).photo
    assert (photo.focus_x, photo.focus_y) == (10, 90)


def test_a_focal_point_needs_a_photo_and_the_right_to_edit(client, db, ada, make_person) -> None:
    assert post(client, FOCUS_URL, {"focus_x": "10", "focus_y": "10"}).status_code == 404
    upload(client, image_bytes(), "me.jpg")
    make_person("Mia Member", user_key="mia")
    login(client, "mia")
    assert post(client, FOCUS_URL, {"focus_x": "10", "focus_y": "10"}).status_code == 403
    db.expire_all()
    assert db.get(m.Person, ada.id).photo.focus_x == 50


def test_the_demo_has_clearly_synthetic_portraits_for_its_faculty_only(client, db, demo) -> None:
    """No real person's photo: placeholders drawn by the code at `load-demo` (initials on a
    flat silhouette), standing off-centre with the focal point on the head; students keep
    the initials fallback. Loading the demo again changes no photo."""
    people = {p.slug: p for p in db.scalars(select(m.Person))}
    with_photo = {slug for slug, p in people.items() if p.photo is not None}
    assert with_photo == {"danyang-zhuo", "xingda-wei", "jiangfei-duan"}
    photo = people["xingda-wei"].photo
    assert photo.alt_text == "Placeholder portrait of Xingda Wei (demo data)"
    assert (photo.width, photo.height, photo.focus_x, photo.focus_y) == (600, 400, 70, 40)
    image = Image.open(io.BytesIO(photo.data)).convert("RGB")
    # The figure stands at the focal point; the left of the frame is empty background.
    assert image.getpixel((420, 160)) != image.getpixel((100, 200))
    profile = client.get("/directory/people/xingda-wei").get_data(as_text=True)
    # The figure's head (70% across) as near the middle of the square as the frame allows.
    assert focus_classes(profile, "profile__photo") == "photo-focus photo-fx-100 photo-fy-50"
    assert 'alt="Placeholder portrait of Xingda Wei (demo data)"' in profile
    etags = {slug: people[slug].photo.etag for slug in with_photo}
    last = db.scalar(select(func.max(ChangeRecord.id)))
    runner = client.application.test_cli_runner()
    assert runner.invoke(args=["directory", "load-demo"]).exit_code == 0
    db.expire_all()
    assert {slug: db.get(m.Person, people[slug].id).photo.etag for slug in with_photo} == etags
    again = db.scalars(select(ChangeRecord).where(ChangeRecord.id > last))
    assert [r for r in again if (r.before or {}).get("photo") != (r.after or {}).get("photo")] == []


@pytest.mark.parametrize(
    ("size", "point", "classes"),
    [
        ((600, 400), (50, 50), "photo-fx-50 photo-fy-50"),  # the centre stays the centre
        ((600, 400), (60, 20), "photo-fx-80 photo-fy-50"),  # across only: the height fits
        ((600, 400), (90, 20), "photo-fx-100 photo-fy-50"),  # the photo's edge stops it
        ((600, 400), (10, 90), "photo-fx-0 photo-fy-50"),
        ((400, 600), (20, 30), "photo-fx-50 photo-fy-0"),  # a portrait moves down only
        ((400, 600), (50, 60), "photo-fx-50 photo-fy-80"),
        ((500, 500), (0, 100), "photo-fx-50 photo-fy-50"),  # a square has nothing to move
    ],
)
def test_the_focal_point_is_centred_in_a_square_crop_as_far_as_the_photo_allows(
    size, point, classes
) -> None:
    photo = m.PersonPhoto(width=size[0], height=size[1], focus_x=point[0], focus_y=point[1])
    assert photo_focus(photo) == f"photo-focus {classes}"


def test_a_jpeg_that_is_only_an_image_is_kept_and_anything_more_is_encoded_afresh() -> None:
    plain = photo_from_bytes(image_bytes(size=(300, 200))).data
    assert photo_from_bytes(plain).data == plain  # no loss on a second pass (a re-import)
    for extra in (plain + b"<script>alert(1)</script>",  # bytes after its end
                  image_bytes(size=(300, 200), comment=b"<script>"),
                  image_bytes(size=(300, 200), icc_profile=b"\0" * 64)):  # fmt: skip
        again = photo_from_bytes(extra).data
        assert again != extra and b"<script" not in again
