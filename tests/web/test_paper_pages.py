"""A public page per paper: what Google Scholar (Highwire ``citation_*`` tags), schema.org
readers (JSON-LD, read back with extruct) and people (the record, the Cite block) find there,
and who may see it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import extruct
import pytest

from directory import models as m
from directory.formats.citations import venue_badge
from tests.conftest import login

P = "/directory"


class HeadReader(HTMLParser):
    """The page's ``<meta name>`` pairs in document order and its canonical link."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: list[tuple[str, str]] = []
        self.canonical: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and a.get("name"):
            self.meta.append((a["name"], a.get("content") or ""))
        if tag == "link" and a.get("rel") == "canonical":
            self.canonical = a.get("href")


def read(html: str) -> tuple[HeadReader, dict]:
    reader = HeadReader()
    reader.feed(html)
    [article] = extruct.extract(html, syntaxes=["json-ld"], uniform=True)["json-ld"]
    return reader, article


def citation(reader: HeadReader, name: str) -> list[str]:
    return [content for key, content in reader.meta if key == name]


@pytest.fixture
def wei(make_person):
    return make_person("Xingda Wei")


def test_a_conference_paper_page_carries_every_field_for_scholar_and_schema_org(
    client, db, wei, make_publication
) -> None:
    pub = make_publication(
        "Fast RDMA-based Ordered Key-Value Store using Remote Learned Cache",
        authors=(wei, "Rong Chen", "Haibo Chen"),
        year=2020, month=11, type="conference", venue_short="OSDI 2020",
        venue="14th USENIX Symposium on Operating Systems Design and Implementation",
        pages="117--135", doi="10.5555/3488766.3488773",
        abstract="Key-value stores are everywhere.\n\nWe cache the learned index remotely.",
    )  # fmt: skip
    pub.links.append(m.PublicationLink(kind="paper", url="https://www.usenix.org/xstore.pdf"))
    pub.links.append(m.PublicationLink(kind="code", url="https://github.com/SJTU-IPADS/xstore"))
    pub.awards.append(m.PublicationAward(name="Best Paper Award"))
    db.commit()

    response = client.get(f"{P}/publications/{pub.uid}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    reader, article = read(html)
    url = f"http://directory.test{P}/publications/{pub.uid}"

    assert reader.canonical == url
    assert citation(reader, "citation_title") == [pub.title]
    assert citation(reader, "citation_author") == ["Xingda Wei", "Rong Chen", "Haibo Chen"]
    assert citation(reader, "citation_publication_date") == ["2020/11"]
    assert citation(reader, "citation_conference_title") == [pub.venue]
    assert citation(reader, "citation_journal_title") == []
    assert citation(reader, "citation_firstpage") == ["117"]
    assert citation(reader, "citation_lastpage") == ["135"]
    assert citation(reader, "citation_doi") == ["10.5555/3488766.3488773"]
    assert citation(reader, "citation_pdf_url") == ["https://www.usenix.org/xstore.pdf"]

    assert article["@type"] == "ScholarlyArticle"
    assert article["url"] == url
    assert article["name"] == pub.title
    assert [a["name"] for a in article["author"]] == ["Xingda Wei", "Rong Chen", "Haibo Chen"]
    assert article["author"][0]["url"] == f"http://directory.test{P}/people/xingda-wei"
    assert "url" not in article["author"][1]
    assert article["datePublished"] == "2020-11"
    assert article["publication"] == {"@type": "PublicationEvent", "name": pub.venue}
    assert article["pagination"] == "117--135"
    assert "https://doi.org/10.5555/3488766.3488773" in article["sameAs"]
    assert article["award"] == ["Best Paper Award"]
    assert article["abstract"].startswith("Key-value stores")
    assert article["dateModified"].endswith("+00:00")

    # What a reader sees: the badge derived from the short venue and the paper's year, the
    # abstract's two paragraphs, the member linked, the code chip, the Cite block.
    assert '<span class="tag tag--venue">OSDI\'20</span>' in html.replace("&#39;", "'")
    assert "<p>Key-value stores are everywhere.</p><p>We cache" in html
    assert f'href="{P}/people/xingda-wei"' in html
    assert 'href="https://github.com/SJTU-IPADS/xstore"' in html
    assert '<summary>Citation <span class="muted">(APA)</span></summary>' in html
    assert "Wei, X., Chen, R., &amp; Chen, H. (2020). Fast RDMA-based" in html
    assert "@inproceedings{" in html and "pages = {117--135}" in html


def test_a_journal_article_gives_volume_issue_and_pages(client, db, wei, make_publication):
    pub = make_publication(
        "XStore: A Fast RDMA-based Ordered Key-Value Store with Remote Learned Cache",
        authors=(wei, "Rong Chen"), year=2021, month=8, type="journal",
        venue="ACM Transactions on Storage", venue_short="ACM TOS", volume="17", number="3",
        pages="18:1-18:32", publisher="ACM",
    )  # fmt: skip
    reader, article = read(client.get(f"{P}/publications/{pub.uid}").get_data(as_text=True))
    assert citation(reader, "citation_journal_title") == ["ACM Transactions on Storage"]
    assert citation(reader, "citation_journal_abbrev") == ["ACM TOS"]
    assert citation(reader, "citation_conference_title") == []
    assert citation(reader, "citation_volume") == ["17"]
    assert citation(reader, "citation_issue") == ["3"]
    assert citation(reader, "citation_firstpage") == ["18:1"]
    assert citation(reader, "citation_lastpage") == ["18:32"]
    assert citation(reader, "citation_publisher") == ["ACM"]
    assert citation(reader, "citation_publication_date") == ["2021/08"]
    assert article["isPartOf"] == {
        "@type": "Periodical", "name": "ACM Transactions on Storage",
        "volumeNumber": "17", "issueNumber": "3",
    }  # fmt: skip
    assert article["publisher"] == {"@type": "Organization", "name": "ACM"}


def test_an_arxiv_preprint_gives_its_id_and_no_pdf_unless_the_link_is_one(
    client, db, wei, make_publication
) -> None:
    pub = make_publication(
        "PARALLELGPUOS: A Concurrent OS-level GPU Checkpoint and Restore System",
        authors=("Zhuobin Huang", wei), year=2024, type="preprint", status="preprint",
        venue="arXiv", arxiv_id="2405.12079",
    )  # fmt: skip
    pub.links.append(m.PublicationLink(kind="paper", url="https://arxiv.org/abs/2405.12079"))
    db.commit()
    html = client.get(f"{P}/publications/{pub.uid}").get_data(as_text=True)
    reader, article = read(html)
    assert citation(reader, "citation_arxiv_id") == ["2405.12079"]
    assert citation(reader, "citation_pdf_url") == []  # an abstract page, not a PDF
    assert citation(reader, "citation_publication_date") == ["2024"]
    assert article["datePublished"] == "2024"
    assert article["creativeWorkStatus"] == "preprint"
    assert "https://arxiv.org/abs/2405.12079" in article["sameAs"]
    assert "tag--preprint" in html


def test_a_paper_with_no_authors_still_has_a_page(client, db, wei, make_publication) -> None:
    pub = make_publication("Proceedings front matter", authors=(), year=None, type="other")
    db.add(m.ProfilePublication(person_id=wei.id, publication_id=pub.id))
    db.commit()
    response = client.get(f"{P}/publications/{pub.uid}")
    assert response.status_code == 200
    reader, article = read(response.get_data(as_text=True))
    assert citation(reader, "citation_title") == ["Proceedings front matter"]
    assert citation(reader, "citation_author") == []
    assert citation(reader, "citation_publication_date") == []
    assert "author" not in article and "datePublished" not in article


def test_the_page_follows_the_read_rules(client, db, make_person, make_publication) -> None:
    ada = make_person("Ada Lovelace")
    hidden = make_person("Hidden Person", visibility="private")
    members = make_publication("Members only", authors=(ada,), visibility="members")
    only_hidden = make_publication("Known from a hidden profile", authors=(hidden,))
    unlisted = make_publication("On nobody's profile", authors=("Someone Else",))
    assert client.get(f"{P}/publications/{members.uid}").status_code == 404
    assert client.get(f"{P}/publications/{only_hidden.uid}").status_code == 404
    assert client.get(f"{P}/publications/{unlisted.uid}").status_code == 404
    assert client.get(f"{P}/publications/no-such-paper").status_code == 404
    login(client, "someone-signed-in")
    assert client.get(f"{P}/publications/{members.uid}").status_code == 200
    assert client.get(f"{P}/publications/{only_hidden.uid}").status_code == 404


def test_profile_and_department_lists_link_titles_to_the_page_and_the_sitemap_lists_it(
    client, db, wei, make_person, make_publication
) -> None:
    pub = make_publication("Public paper", authors=(wei,))
    private = make_publication("Private paper", authors=(wei,), visibility="members")
    link = f'href="{P}/publications/{pub.uid}"'
    assert link in client.get(f"{P}/people/xingda-wei").get_data(as_text=True)
    assert link in client.get(f"{P}/publications").get_data(as_text=True)
    sitemap = client.get(f"{P}/sitemap.xml").get_data(as_text=True)
    assert f"<loc>http://directory.test{P}/publications/{pub.uid}</loc>" in sitemap
    assert private.uid not in sitemap


def test_related_versions_are_linked_both_ways(client, db, wei, make_publication) -> None:
    conf = make_publication("Fast Store", authors=(wei,), year=2020, venue_short="OSDI")
    journal = make_publication("XStore", authors=(wei,), year=2021, venue_short="ACM TOS",
                               type="journal")  # fmt: skip
    journal.relations.append(m.PublicationRelation(target=conf, kind="extended_version_of"))
    db.commit()
    of_journal = client.get(f"{P}/publications/{journal.uid}").get_data(as_text=True)
    assert f'Extended version of: <a href="{P}/publications/{conf.uid}">OSDI&#39;20: Fast' in (
        of_journal
    )
    of_conf = client.get(f"{P}/publications/{conf.uid}").get_data(as_text=True)
    assert f'Extended version: <a href="{P}/publications/{journal.uid}">ACM TOS&#39;21: XStore' in (
        of_conf
    )


def test_the_profile_json_ld_types_organisations_and_lists_the_papers(
    client, db, make_person, make_publication
) -> None:
    """Read back with extruct: the affiliation typed by what it is, alumniOf from education,
    worksFor and hasOccupation, the papers as ScholarlyArticle items, a zoned dateModified."""
    lab = make_person("Lab Researcher", title="Research Scientist", institution="NVIDIA Research")
    prof = make_person("Ada Lovelace", title="Assistant Professor", unit="Computer Science")
    db.add_all([
        m.Education(owner_id=prof.id, degree="PhD", institution="University of Washington",
                    position=0),
        m.Education(owner_id=prof.id, degree="BS", institution="Tsinghua University",
                    position=1),
    ])  # fmt: skip
    db.commit()
    pub = make_publication("Engines", authors=(prof, lab), year=2025, venue="SOSP")

    def entity(slug: str) -> dict:
        html = client.get(f"{P}/people/{slug}").get_data(as_text=True)
        [page] = extruct.extract(html, syntaxes=["json-ld"])["json-ld"]
        assert page["@type"] == "ProfilePage"
        assert re.search(r"[+-]\d\d:\d\d$|Z$", page["dateModified"])
        return page["mainEntity"]

    ada = entity("ada-lovelace")
    assert ada["worksFor"] == {
        "@type": "Organization", "name": "Computer Science",
        "parentOrganization": {"@type": "CollegeOrUniversity", "name": "Example University"},
    }  # fmt: skip
    assert ada["affiliation"] == ada["worksFor"]
    assert ada["hasOccupation"] == {"@type": "Occupation", "name": "Assistant Professor"}
    assert ada["alumniOf"] == [
        {"@type": "CollegeOrUniversity", "name": "University of Washington"},
        {"@type": "CollegeOrUniversity", "name": "Tsinghua University"},
    ]
    [article] = ada["subjectOf"]
    assert article["@type"] == "ScholarlyArticle" and article["name"] == "Engines"
    assert article["url"] == f"http://directory.test{P}/publications/{pub.uid}"
    assert [a["name"] for a in article["author"]] == ["Ada Lovelace", "Lab Researcher"]

    researcher = entity("lab-researcher")
    assert researcher["worksFor"] == {"@type": "ResearchOrganization", "name": "NVIDIA Research"}
    assert "alumniOf" not in researcher


def test_the_department_list_gives_its_papers_as_scholarly_articles(
    client, wei, make_publication
) -> None:
    pub = make_publication("Listed paper", authors=(wei,), year=2025, venue="NSDI",
                           type="conference")  # fmt: skip
    html = client.get(f"{P}/publications").get_data(as_text=True)
    [page] = extruct.extract(html, syntaxes=["json-ld"])["json-ld"]
    [item] = page["mainEntity"]["itemListElement"]
    assert item["item"]["@type"] == "ScholarlyArticle"
    assert item["item"]["url"] == f"http://directory.test{P}/publications/{pub.uid}"
    assert item["item"]["author"] == [
        {"@type": "Person", "name": "Xingda Wei",
         "url": f"http://directory.test{P}/people/xingda-wei"},
    ]  # fmt: skip


def test_a_citation_style_citeproc_does_not_know_leaves_the_bibtex(
    client, app, wei, make_publication, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_CITATION_STYLE", "no-such-style")
    pub = make_publication("Styled paper", authors=(wei,))
    response = client.get(f"{P}/publications/{pub.uid}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "cite-text" not in html and "title = {Styled paper}" in html


STYLES = ["ieee", "chicago-author-date", "association-for-computing-machinery"]


@pytest.mark.parametrize("style", STYLES)
def test_the_department_chooses_the_citation_style(
    client, app, wei, make_publication, monkeypatch, style
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_CITATION_STYLE", style)
    pub = make_publication("Styled paper", authors=(wei, "Rong Chen"), year=2023,
                           venue="Proceedings of NSDI", pages="1--14")  # fmt: skip
    html = client.get(f"{P}/publications/{pub.uid}").get_data(as_text=True)
    text = re.search(r'<p class="cite__text" id="cite-text">([^<]+)</p>', html)[1]
    expected = {
        "ieee": "X. Wei and R. Chen, “Styled paper”, in Proceedings of NSDI, 2023, pp. 1–14.",
        "chicago-author-date": "Wei, X., and R. Chen. 2023. “Styled Paper”. Proceedings of "
        "NSDI, 1–14.",
        "association-for-computing-machinery": "Xingda Wei and Rong Chen. 2023. Styled paper. "
        "In Proceedings of NSDI, 2023. 1–14.",
    }[style]
    assert text.replace("&#34;", '"') == expected


@pytest.mark.parametrize(
    ("short", "year", "badge"),
    [
        ("OSDI", 2026, "OSDI'26"),
        ("OSDI 2026", 2026, "OSDI'26"),
        ("OSDI ’26", 2026, "OSDI'26"),
        ("OSDI-26", 2026, "OSDI'26"),
        # Two digits glued to the name, as a home page writes them (a seed: "SIGCOMM24").
        ("SIGCOMM24", 2024, "SIGCOMM'24"),
        ("NeurIPS25", 2025, "NeurIPS'25"),
        ("EuroSys2024", 2024, "EuroSys'24"),
        # ... but only when they are the paper's year: otherwise they belong to the name.
        ("NSDI23", 2024, "NSDI23'24"),
        ("ISCA 50", 2023, "ISCA 50'23"),
        ("F1000", 2000, "F1000'00"),
        ("ACM TOS", 2021, "ACM TOS'21"),
    ],
)
def test_the_venue_badge_is_derived_one_way_for_every_paper(short, year, badge) -> None:
    assert venue_badge(short, year) == badge
