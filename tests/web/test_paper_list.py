"""A profile's paper list in the owner's order: selected papers first as the owner ordered them,
the rest under their status or year, each paper once; the editor moves a paper within its
heading without JavaScript; long author lists fold, keeping the owner and co-first authors."""

from __future__ import annotations

import re

from sqlalchemy import select

from directory import models as m
from directory.models import ChangeRecord
from tests.conftest import login
from tests.support.editing import post

P = "/directory"

#: The head of a seed page's publication list (a faculty member's own site), in its own order:
#: newest first, but with the two preprints after 2024's paper and before 2023's.
SEED = [
    ("OSDI'26", 2026, "Simple is Better: Multiplication May Be All You Need for LLM Request Scheduling"),  # noqa: E501
    ("OSDI'26", 2026, "SDCs in the Wild: Characterizing and Diagnosing SDC-defective GPUs in Production LLM Training"),  # noqa: E501
    ("PPoPP'26", 2026, "MetaAttention: A Unified and Performant Attention Framework across Hardware Backends"),  # noqa: E501
    ("FAST'26", 2026, "Fast Cloud Storage for AI Jobs via Grouped I/O API with Transparent Read/Write Optimizations"),  # noqa: E501
    ("EuroSys'26", 2026, "KunServe: Parameter-centric Memory Management for Efficient Memory Overloading Handling in LLM Serving"),  # noqa: E501
    ("SOSP'25", 2025, "PhoenixOS: Concurrent OS-level GPU Checkpoint and Restore with Validated Speculation"),  # noqa: E501
    ("OSDI'25", 2025, "BlitzScale: Fast and Live Large Model Autoscaling with O(1) Host Caching"),
    ("EuroSys'24", 2024, "Serialization/Deserialization-free State Transfer in Serverless Workflows"),  # noqa: E501
    (None, 2024, "PARALLELGPUOS: A Concurrent OS-level GPU Checkpoint and Restore System using Validated Speculation"),  # noqa: E501
    (None, 2024, "Characterizing the Dilemma of Performance and Index Size in Billion-Scale Vector Search and Breaking It with Second-Tier Memory"),  # noqa: E501
    ("OSDI'23", 2023, "No Provisioned Concurrency: Fast RDMA-codesigned Remote Fork for Serverless Computing"),  # noqa: E501
    ("OSDI'23", 2023, "Characterizing Off-path SmartNIC for Accelerating Distributed Applications"),
]  # fmt: skip


def titles(html: str) -> list[str]:
    return [
        t.replace("&amp;", "&")
        for t in re.findall(r'<cite class="pub__title">(?:<a [^>]*>)?([^<]+)', html)
    ]


def headings(html: str) -> list[str]:
    return re.findall(r'<h3[^>]*class="pub-group"[^>]*>([^<]+)</h3>', html)


def add_seed(db, person, selected_every: bool) -> list[m.Publication]:
    pubs = []
    for position, (short, year, title) in enumerate(SEED):
        pub = m.Publication(title=title, year=year, venue_short=short,
                            status="preprint" if short is None else "published")  # fmt: skip
        pub.authorships.append(m.Authorship(position=0, name=person.full_name, person=person))
        db.add(pub)
        db.flush()
        selected = selected_every or position in (6, 0, 8)
        db.add(m.ProfilePublication(person_id=person.id, publication_id=pub.id,
                                    selected=selected, position=position))  # fmt: skip
        pubs.append(pub)
    db.commit()
    return pubs


def test_a_seed_pages_own_order_is_kept_for_its_selected_papers(client, db, make_person):
    wei = make_person("Xingda Wei")
    add_seed(db, wei, selected_every=True)
    html = client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    assert titles(html) == [title for _, _, title in SEED]
    assert headings(html) == ["Selected"]


def test_selected_papers_come_first_and_nothing_is_listed_twice(client, db, make_person):
    wei = make_person("Xingda Wei")
    add_seed(db, wei, selected_every=False)
    html = client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    shown = titles(html)
    assert len(shown) == len(set(shown)) == len(SEED)
    # Selected in the owner's order (BlitzScale, Simple is Better, the first preprint), then the
    # other preprint under its status, then each year newest first in the owner's order.
    assert shown[:3] == [SEED[0][2], SEED[6][2], SEED[8][2]]
    assert headings(html) == ["Selected", "Preprints", "2026", "2025", "2024", "2023"]
    assert shown[3] == SEED[9][2]
    assert shown[4:] == [SEED[i][2] for i in (1, 2, 3, 4, 5, 7, 10, 11)]


def test_the_owner_moves_a_paper_within_its_heading_without_javascript(client, db, make_person):
    wei = make_person("Xingda Wei", user_key="wei")
    pubs = add_seed(db, wei, selected_every=False)
    login(client, "wei")
    editor = client.get(f"{P}/me").get_data(as_text=True)
    assert f'action="{P}/people/xingda-wei/edit/publications/{pubs[2].id}/move"' in editor
    pub = pubs[2]  # MetaAttention, second of 2026 (after SDCs in the Wild)
    response = post(client, f"{P}/people/xingda-wei/edit/publications/{pub.id}/move",
                    {"direction": "up", "version": pub.version})  # fmt: skip
    assert response.status_code == 302
    html = client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    shown = titles(html)
    assert shown.index(SEED[2][2]) < shown.index(SEED[1][2])
    # One change set renumbered the papers under "2026" (positions 1-4 became 0-3): each whose
    # listing changed has a history record; "SDCs in the Wild" kept position 1 and has none.
    records = db.scalars(select(ChangeRecord).where(ChangeRecord.entity_kind == "publication"))
    assert {r.entity_id for r in records} == {pubs[i].id for i in (2, 3, 4)}
    # The first paper of a heading cannot go further up: nothing changes.
    first = db.get(m.Publication, pubs[2].id)
    post(client, f"{P}/people/xingda-wei/edit/publications/{first.id}/move",
         {"direction": "up", "version": first.version})  # fmt: skip
    assert titles(client.get(f"{P}/people/xingda-wei").get_data(as_text=True)) == shown


def test_moving_another_persons_paper_is_refused(client, db, make_person) -> None:
    wei = make_person("Xingda Wei", user_key="wei")
    make_person("Ann Other", user_key="ann")
    pubs = add_seed(db, wei, selected_every=False)
    login(client, "ann")
    url = f"{P}/people/xingda-wei/edit/publications/{pubs[2].id}/move"
    assert post(client, url, {"direction": "up", "version": 1}).status_code == 403
    login(client, "wei")
    assert post(client, url, {"direction": "sideways", "version": 1}).status_code == 400
    assert post(client, f"{P}/people/xingda-wei/edit/publications/999999/move",
                {"direction": "up", "version": 1}).status_code == 404  # fmt: skip


def test_long_author_lists_fold_keeping_the_owner_and_co_first_authors(
    client, db, make_person, app, monkeypatch
) -> None:
    """A real 16-author list (OSDI'26), the owner 13th and a co-first author 12th."""
    names = ["ChonLam Lao", "Jiaqi Gao", "Jiamin Cao", "Zhipeng Zhang", "Pengcheng Zhang",
             "Yu Guan", "Yichi Xu", "Yong Li", "Zhengping Qian", "Aditya Akella", "Minlan Yu",
             "Ennan Zhai", "Jiangfei Duan", "Dennis Cai", "Jingren Zhou", "Zhilong Zheng"]  # fmt: skip  # noqa: E501
    duan = make_person("Jiangfei Duan")
    pub = m.Publication(title="TrainMover: An Interruption-Resilient Runtime for ML Training",
                        year=2026, venue_short="OSDI")  # fmt: skip
    for i, name in enumerate(names):
        pub.authorships.append(
            m.Authorship(
                position=i,
                name=name,
                co_first=(i == 11),
                person=duan if name == "Jiangfei Duan" else None,
            )
        )
    db.add(pub)
    db.flush()
    db.add(m.ProfilePublication(person_id=duan.id, publication_id=pub.id))
    db.commit()
    monkeypatch.setitem(app.config, "DIRECTORY_AUTHOR_LIST_LENGTH", 5)
    html = client.get(f"{P}/people/jiangfei-duan").get_data(as_text=True)
    visible = html.split('<details class="pub__more-authors">')[0].split("TrainMover")[-1]
    for name in names[:5] + ["Ennan Zhai", "Jiangfei Duan"]:
        assert name in visible
    for name in ("Yu Guan", "Dennis Cai", "Zhilong Zheng"):
        assert name not in visible
    assert "and 9 more authors" in html
    # It reads "A, B, C, D, E, …, Ennan Zhai*, Jiangfei Duan and 9 more authors": one "…"
    # for the gap between those shown, none before "and 9 more" (which says it already).
    short = visible.split('<span class="pub__authors-short">')[1].split("</span>\n")[0]
    words = re.sub(r"<[^>]+>", "", short)
    assert words.count("…") == 1 and words.rstrip().endswith("Jiangfei Duan")
    assert words.index("Pengcheng Zhang") < words.index("…") < words.index("Ennan Zhai*")
    # Open, the whole list replaces the short one (a stylesheet rule, no script) and the
    # summary says "Fewer authors".
    assert "Fewer authors" in html.split('<details class="pub__more-authors">')[1]
    # Without JavaScript the whole list opens from the <details>, in print order.
    folded = html.split('<details class="pub__more-authors">')[1].split("</details>")[0]
    assert [n for n in names if n in folded] == names
    # A list that would hide fewer than three names (14 shown of 16) is shown whole: "and 2
    # more authors" would take the room of the two names.
    monkeypatch.setitem(app.config, "DIRECTORY_AUTHOR_LIST_LENGTH", 14)
    html = client.get(f"{P}/people/jiangfei-duan").get_data(as_text=True)
    assert "more authors" not in html and all(n in html for n in names)
    monkeypatch.setitem(app.config, "DIRECTORY_AUTHOR_LIST_LENGTH", 11)
    assert "and 3 more authors" in client.get(f"{P}/people/jiangfei-duan").get_data(as_text=True)
    # The paper's own page shows every author, unfolded.
    page = client.get(f"{P}/publications/{pub.uid}").get_data(as_text=True)
    assert "more authors" not in page and all(n in page for n in names)


def test_each_paper_has_a_bib_toggle_and_the_year_is_not_printed_twice(
    client, db, make_person, make_publication
) -> None:
    ada = make_person()
    make_publication("Engines", authors=(ada,), year=2025, venue="USENIX OSDI 2025",
                     venue_short="OSDI 2025")  # fmt: skip
    html = client.get(f"{P}/people/ada-lovelace").get_data(as_text=True)
    assert '<details class="pub__bib"><summary>Bib' in html
    assert "@inproceedings{" in html and "title = {Engines}" in html
    assert "USENIX OSDI 2025, 2025" not in html and "USENIX OSDI 2025." in html
    assert '<span class="tag tag--venue">OSDI&#39;25</span>' in html


def test_the_owner_chooses_to_list_selected_papers_again_below(client, db, make_person) -> None:
    """Through the editor's "Paper list and CV" form: recorded in the history; the profile,
    the CV and the printed profile (the same page) then list each selected paper twice, once
    under "Selected" and once first under its own heading, with one anchor per paper."""
    wei = make_person("Xingda Wei", user_key="wei")
    add_seed(db, wei, selected_every=False)
    login(client, "wei")
    url = f"{P}/people/xingda-wei/edit/papers-and-cv"
    form = client.get(url).get_data(as_text=True)
    checkbox = form.split('name="repeat_selected"')[0].rsplit("<input", 1)[1]
    assert "checked" not in checkbox  # the default: each paper listed once
    assert f'href="{url}"' in client.get(f"{P}/me").get_data(as_text=True)
    response = post(client, url, {"repeat_selected": "y", "version": wei.version,
                                  **{f"cv_{name}": str(i) for i, (name, _) in
                                     enumerate(m.CV_SECTIONS, start=1)}})  # fmt: skip
    assert response.status_code == 302
    record = db.scalars(select(ChangeRecord).where(ChangeRecord.entity_kind == "person")).one()
    assert record.before["repeat_selected"] is False and record.after["repeat_selected"] is True
    html = client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    shown = titles(html)
    assert len(shown) == len(SEED) + 3 and len(set(shown)) == len(SEED)
    assert headings(html) == ["Selected", "Preprints", "2026", "2025", "2024", "2023"]
    # Each selected paper again, first under its own heading, then that heading's others in
    # the owner's order: the first preprint, then "Simple is Better" (2026), BlitzScale (2025).
    assert shown[3:5] == [SEED[8][2], SEED[9][2]]
    assert shown[5:10] == [SEED[i][2] for i in (0, 1, 2, 3, 4)]
    assert shown[10:12] == [SEED[6][2], SEED[5][2]]
    assert shown[12:] == [SEED[i][2] for i in (7, 10, 11)]
    uid = db.scalar(select(m.Publication.uid).where(m.Publication.title == SEED[0][2]))
    assert html.count(f'id="pub-{uid}"') == 1 and html.count(f'id="selected-pub-{uid}"') == 1
    cv = client.get(f"{P}/people/xingda-wei/cv").get_data(as_text=True)
    assert cv.count(SEED[0][2]) == 2 and cv.count(SEED[1][2]) == 1
    # Back to the default: each paper once again.
    db.expire_all()
    response = post(client, url, {"version": db.get(m.Person, wei.id).version,
                                  "cv_publications": "1"})  # fmt: skip
    assert response.status_code == 302
    db.expire_all()
    assert db.get(m.Person, wei.id).repeat_selected is False
    assert len(titles(client.get(f"{P}/people/xingda-wei").get_data(as_text=True))) == len(SEED)


def test_a_repeat_choice_needing_approval_waits_and_approving_applies_it(
    client, db, make_person, app, monkeypatch
) -> None:
    wei = make_person("Xingda Wei", user_key="wei")
    add_seed(db, wei, selected_every=False)
    monkeypatch.setitem(app.config, "DIRECTORY_APPROVAL_ROLES", ["faculty"])
    login(client, "wei")
    url = f"{P}/people/xingda-wei/edit/papers-and-cv"
    post(client, url, {"repeat_selected": "y", "cv_publications": "1", "version": wei.version})
    db.expire_all()
    assert db.get(m.Person, wei.id).repeat_selected is False
    pending = db.scalars(select(m.PendingChange)).one()
    assert pending.proposed["repeat_selected"] is True
    assert pending.proposed["cv_sections"] == ["publications"]
    assert len(titles(client.get(f"{P}/people/xingda-wei").get_data(as_text=True))) == len(SEED)
    login(client, "admin")
    assert post(client, f"{P}/approvals/{pending.id}/approve").status_code == 302
    db.expire_all()
    assert db.get(m.Person, wei.id).repeat_selected is True
    assert len(titles(client.get(f"{P}/people/xingda-wei").get_data(as_text=True))) == len(SEED) + 3


#: Danyang Zhuo's research page (a seed): the papers he lists, in his own order — by project,
#: not by year — the demo's profile lists as his selected papers.
ZHUO_SEED_ORDER = [
    "MCCS", "mRPC", "LLM.265", "KVCOMM", "Plato", "VTC", "Punica", "JellyBean", "Alpa",
    "TeraPipe", "Ansor", "Husky", "Harmonic", "Collie", "Enoki", "Bento",
]  # fmt: skip


def test_the_demo_keeps_each_seed_pages_selected_list_in_its_order(client, demo) -> None:
    html = client.get(f"{P}/people/danyang-zhuo").get_data(as_text=True)
    selected = html.split('id="selected-publications"')[1].split("</section>")[0]
    assert titles(selected) == ZHUO_SEED_ORDER
    assert headings(html) == ["Selected"]  # nothing listed twice: he did not ask for it


#: Jiangfei Duan's home page (a seed) by year, as the demo's profile lists it: the arXiv
#: preprint NanoCP third among 2026's papers, the survey under the owner's own heading.
DUAN_SEED_ORDER = {
    "2026": ["TrainMover", "CoCoQuant", "NanoCP", "Zeppelin"],
    "2025": ["MxMoE", "Tropical", "SampleAttention"],
    "2024": ["SKVQ", "Proteus", "MuxServe", "Centauri", "SpotServe", "Parcae"],
    "Survey": ["Efficient Training of Large Language Models"],
}


def _grouped_titles(html: str) -> dict[str, list[str]]:
    """Each heading of the paper list, with its papers' titles."""
    papers = html.split('id="publications-h"')[1].split("</section>")[0]
    groups = re.split(r'<h3[^>]*class="pub-group"[^>]*>([^<]+)</h3>', papers)[1:]
    return {heading: titles(body) for heading, body in zip(groups[::2], groups[1::2], strict=True)}


def test_the_demo_keeps_each_seed_pages_preprints_in_their_year(client, demo) -> None:
    """Both seed pages ordered by year list their preprints among that year's papers; the
    owners chose it (``unpublished_in_year``), so nothing comes under "Preprints"."""
    html = client.get(f"{P}/people/jiangfei-duan").get_data(as_text=True)
    shown = _grouped_titles(html)
    assert list(shown) == list(DUAN_SEED_ORDER)
    for heading, starts in DUAN_SEED_ORDER.items():
        assert len(shown[heading]) == len(starts), heading
        assert all(map(str.startswith, shown[heading], starts)), (heading, shown[heading])
    assert html.count("tag--preprint") == 1  # NanoCP is still marked as a preprint
    wei = titles(client.get(f"{P}/people/xingda-wei").get_data(as_text=True))
    assert [wei.index(title) for _, _, title in SEED] == sorted(
        wei.index(title) for _, _, title in SEED
    )  # the seed's head in its order: the two 2024 preprints after 2024's EuroSys paper


def test_the_owner_chooses_to_list_unpublished_papers_in_their_year(
    client, db, make_person
) -> None:
    """Through the "Paper list and CV" form: recorded; the profile, the complete paper list and
    the editor's paper list then file a preprint with a year in that year, and the editor moves
    it among that year's papers; a preprint without a year stays under its status."""
    wei = make_person("Xingda Wei", user_key="wei")
    pubs = add_seed(db, wei, selected_every=False)
    for row in db.scalars(select(m.ProfilePublication)):
        row.selected = False
    undated = m.Publication(title="An Undated Preprint", status="preprint", venue="arXiv")
    undated.authorships.append(m.Authorship(position=0, name=wei.full_name, person=wei))
    db.add(undated)
    db.flush()
    db.add(m.ProfilePublication(person_id=wei.id, publication_id=undated.id, position=99))
    db.commit()
    html = client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    assert headings(html) == ["Preprints", "2026", "2025", "2024", "2023"]
    login(client, "wei")
    url = f"{P}/people/xingda-wei/edit/papers-and-cv"
    form = client.get(url).get_data(as_text=True)
    assert "checked" not in form.split('name="unpublished_in_year"')[0].rsplit("<input", 1)[1]
    response = post(client, url, {"unpublished_in_year": "y", "version": wei.version,
                                  **{f"cv_{name}": str(i) for i, (name, _) in
                                     enumerate(m.CV_SECTIONS, start=1)}})  # fmt: skip
    assert response.status_code == 302
    record = db.scalars(select(ChangeRecord).where(ChangeRecord.entity_kind == "person")).one()
    assert record.after["unpublished_in_year"] is True
    html = client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    assert headings(html) == ["Preprints", "2026", "2025", "2024", "2023"]
    preprints = html.split(">Preprints</h3>")[1].split("</h3>")[0]
    assert titles(preprints) == ["An Undated Preprint"]  # no year: still under its status
    in_2024 = titles(html.split(">2024</h3>")[1].split("</h3>")[0])
    assert in_2024 == [SEED[7][2], SEED[8][2], SEED[9][2]]
    complete = client.get(f"{P}/people/xingda-wei/publications").get_data(as_text=True)
    assert titles(complete)[:4] == ["An Undated Preprint", *(t for _, _, t in SEED[:3])]
    # The editor moves the first preprint up among 2024's papers, above the EuroSys paper.
    move = post(client, f"{P}/people/xingda-wei/edit/publications/{pubs[8].id}/move",
                {"direction": "up"})  # fmt: skip
    assert move.status_code == 302
    in_2024 = titles(client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
                     .split(">2024</h3>")[1].split("</h3>")[0])  # fmt: skip
    assert in_2024 == [SEED[8][2], SEED[7][2], SEED[9][2]]
