"""People ranked by what they work on (directory.services.expertise): the model loads with the
network cut off, exact names and acronyms still win, a paper a viewer may not see never lifts
anyone for them, the recruiting topic filter combines with the others, the API's ranked order
is stable and paged, and the vectors follow every write."""

from __future__ import annotations

import os
import re
import socket
from datetime import date

import pytest
from sqlalchemy import select

from directory import models as m
from directory.services import health
from directory.services.expertise import model, ranking, vectors
from directory.services.expertise.ranking import paper_weight
from directory.services.identity import ANONYMOUS, Viewer
from tests.conftest import login
from tests.support.pages import ATOM, atom_entries, get, notice_owners

ADMIN = Viewer(key="admin", is_admin=True)


# ----------------------------------------------------------------------------- the model


@pytest.fixture
def network_cut(monkeypatch):
    """Every connection but to this machine refused, and the proxies pointed at a dead port:
    what a server that reaches no model hub sees."""
    real_connect = socket.socket.connect

    def guarded(sock, address):
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost") and sock.family != socket.AF_UNIX:
            raise OSError(f"network cut off: {address!r}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return guarded


@pytest.mark.engine_independent
def test_the_model_loads_with_the_network_cut_off(network_cut) -> None:
    with pytest.raises(OSError, match="network cut off"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)
    model._model.cache_clear()
    assert model.available()
    vectors_ = model.embed(
        ["efficient serving of large language models", "LLM inference systems", "bird songs"]
    )
    assert vectors_.shape == (3, model.DIMENSIONS)
    assert abs(float((vectors_[0] ** 2).sum()) - 1) < 1e-4
    # Meaning, not words: the paraphrase is nearer than the unrelated text.
    assert vectors_[0] @ vectors_[1] > vectors_[0] @ vectors_[2]
    # Loaded from the package's own folder: its weights and tokenizer are there.
    folder = model.package_folder()
    assert any((folder / "weights").glob("*.safetensors"))
    assert any((folder / "tokenizers").glob("*.json"))
    assert os.environ["HTTPS_PROXY"] == "http://127.0.0.1:9"


# ----------------------------------------------------------------------------- a department


def _paper(make_publication, title, author, *, abstract=None, year=2024, **overrides):
    return make_publication(title, authors=(author,), abstract=abstract, year=year, **overrides)


@pytest.fixture
def department(make_person, make_publication):
    """Four people: an RDMA specialist, a mixture-of-experts specialist who never writes
    "RDMA", a person named Lantern who works on compilers, and a networking generalist."""
    rdma = make_person("Riya Datta", interests="Distributed systems")
    for i in range(6):
        _paper(make_publication, f"Fast RDMA key-value store number {i}", rdma)
    moe = make_person("Mo Eckert", interests="Machine learning systems")
    _paper(make_publication, "MoE routing for sparse models", moe)
    _paper(make_publication, "Training mixture of experts models at scale", moe)
    lantern = make_person("Ada Lantern", interests="Compilers")
    _paper(make_publication, "Register allocation in optimizing compilers", lantern)
    net = make_person("Nils Netz", interests="Computer networks, datacenter networking")
    _paper(make_publication, "Congestion control for lantern-shaped datacenter topologies", net)
    _paper(make_publication, "Remote direct memory access networking at scale", net)
    return {"rdma": rdma, "moe": moe, "lantern": lantern, "net": net}


def ranked(db, query, viewer=ANONYMOUS, **options) -> list[str]:
    found = ranking.rank_people(db, query, viewer, **options)
    slugs = dict(db.execute(select(m.Person.id, m.Person.slug)).all())
    return [slugs[i] for i in found.people]


def test_acronyms_and_exact_names_still_win(db, department) -> None:
    assert ranked(db, "RDMA")[0] == "riya-datta"
    assert ranked(db, "MoE")[0] == "mo-eckert"
    # The name wins over a paper that has the word in its title.
    lantern = ranked(db, "Lantern")
    assert lantern[0] == "ada-lantern" and "nils-netz" in lantern
    assert ranked(db, "Riya Datta")[0] == "riya-datta"


def test_a_paraphrase_finds_people_by_meaning(db, department) -> None:
    """No word of the question is in any title or interest: keywords find no one."""
    question = "who builds sparse expert neural nets?"
    assert ranked(db, question, use="keyword") == []
    assert ranked(db, question)[0] == "mo-eckert"


def test_a_paper_the_viewer_may_not_see_never_lifts_anyone(
    db, make_person, make_publication, client
) -> None:
    hidden_topic = "Quantum annealing schedules for spin glasses"
    ivy = make_person("Ivy Quill", interests="Teaching")
    private = _paper(make_publication, hidden_topic, ivy, visibility="private")
    members = make_person("Max Moor", interests="Teaching")
    _paper(make_publication, hidden_topic + " revisited", members, visibility="members")
    hider = make_person("Hal Hide", interests="Teaching")
    hidden = _paper(make_publication, hidden_topic + " again", hider)
    row = db.scalar(select(m.ProfilePublication).where(m.ProfilePublication.person_id == hider.id))
    row.hidden = True
    db.commit()
    for question in ("quantum annealing", "spin glass optimisation"):
        assert ranked(db, question) == [], question
        assert ranked(db, question, Viewer(key="someone")) == ["max-moor"], question
        assert set(ranked(db, question, ADMIN)) == {"ivy-quill", "max-moor"}, question
    # Nor on the search page, the API or as a reason.
    html = get(client, "/directory/search?q=quantum+annealing&kind=person")
    assert "ivy-quill" not in html and "max-moor" not in html and private.title not in html
    api = client.get("/directory/api/v1/people?topic=quantum+annealing").get_json()
    assert api["items"] == [] and api["total"] == 0
    login(client, "someone")
    html = get(client, "/directory/search?q=quantum+annealing&kind=person")
    assert "max-moor" in html and "ivy-quill" not in html and hidden.title not in html


def test_search_page_people_say_why(client, department) -> None:
    html = get(client, "/directory/search?q=RDMA&kind=person")
    people = re.findall(r'search-hit__title"><a href="/directory/people/([^"]+)"', html)
    assert people[0] == "riya-datta"
    first = html.split('class="search-hit search-hit--person"')[1]
    reasons = re.findall(r'<li class="search-reason search-reason--(\w+)">', first)
    assert reasons[:3] == ["paper", "paper", "paper"]
    assert "Fast <mark>RDMA</mark> key-value store" in first
    assert 'href="/directory/people/riya-datta#pub-' in first


# ----------------------------------------------------------------------------- recruiting


@pytest.fixture
def recruiting(db, make_person, make_publication):
    systems = m.ResearchArea(slug="systems", name="Systems")
    db.add(systems)
    owners = {}
    for slug_name, level, term, work, area in (
        ("Sam Serve", "phd", "Fall 2026", "LLM serving", True),
        ("Gus Graph", "phd", "Fall 2026", "Computer graphics", True),
        ("Ian Intern", "intern", "Fall 2026", "LLM serving", True),
        ("Sue Spring", "phd", "Spring 2027", "LLM serving", True),
        ("Al Noarea", "phd", "Fall 2026", "LLM serving", False),
    ):
        person = make_person(slug_name, interests=work)
        owners[slug_name] = person
        notice = m.RecruitingNotice(
            owner_id=person.id, level=level, term=term, description=f"Join us: {work}."
        )
        if area:
            notice.areas.append(systems)
        db.add(notice)
        if work == "LLM serving":
            _paper(make_publication, "Serving large language models with paged KV caches", person)
        else:
            _paper(make_publication, "Real-time ray tracing of participating media", person)
    db.commit()
    return owners


def test_recruiting_topic_combines_with_level_term_and_area(client, recruiting) -> None:
    page = "/directory/recruiting?topic=LLM+serving"
    assert sorted(notice_owners(get(client, page))) == [
        "al-noarea/PhD students",
        "ian-intern/Research interns",
        "sam-serve/PhD students",
        "sue-spring/PhD students",
    ]
    assert sorted(notice_owners(get(client, page + "&level=phd&term=Fall+2026"))) == [
        "al-noarea/PhD students",
        "sam-serve/PhD students",
    ]
    both = get(client, page + "&level=phd&term=Fall+2026&area=systems")
    assert notice_owners(both) == ["sam-serve/PhD students"]
    assert "Working on “LLM serving”" in both
    # A paraphrase finds them too; the graphics professor never.
    meaning = notice_owners(get(client, "/directory/recruiting?topic=inference+for+chatbots"))
    assert "gus-graph/PhD students" not in meaning
    # The feed takes the same filters.
    feed = "/directory/recruiting.atom?topic=LLM+serving&level=phd&term=Fall+2026&area=systems"
    entries = atom_entries(client, feed)
    assert [e.find(f"{ATOM}author/{ATOM}name").text for e in entries] == ["Sam Serve"]
    # So does the API's positions list.
    positions = client.get(
        "/directory/api/v1/positions?topic=LLM+serving&level=phd&term=Fall+2026&area=systems"
    ).get_json()
    assert [p["person"]["slug"] for p in positions["items"]] == ["sam-serve"]


# ----------------------------------------------------------------------------- the API


def test_api_topic_order_is_ranked_stable_and_paged(client, department, recruiting) -> None:
    url = "/directory/api/v1/people?topic=LLM+serving+and+RDMA+networking"
    whole = client.get(url + "&per_page=50").get_json()
    order = [p["slug"] for p in whole["items"]]
    assert whole["total"] == len(order) >= 5
    assert client.get(url + "&per_page=50").get_json()["items"] == whole["items"]
    paged = []
    for page in range(1, whole["total"] // 2 + 2):
        answer = client.get(f"{url}&per_page=2&page={page}").get_json()
        assert answer["total"] == whole["total"] and answer["per_page"] == 2
        paged += [p["slug"] for p in answer["items"]]
    assert paged == order
    # Combined with the listing's filters (everyone here is faculty).
    faculty = client.get(url + "&role=faculty&per_page=50").get_json()
    assert [p["slug"] for p in faculty["items"]] == order
    assert client.get(url + "&role=phd_student").get_json()["total"] == 0
    bad = client.get("/directory/api/v1/people?topic=" + "x" * 201)
    assert bad.status_code == 400 and "topic" in bad.get_json()["detail"]


# ----------------------------------------------------------------------------- the write path


def test_vectors_follow_every_write_and_reindex_rebuilds_them(db, runner, department) -> None:
    assert vectors.out_of_step(db) == {}
    pub = db.scalar(select(m.Publication).where(m.Publication.title.like("MoE%")))
    before = db.scalar(
        select(m.ExpertiseVector.digest).where(m.ExpertiseVector.object_id == pub.id)
    )
    pub.title = "Quantised MoE routing"
    db.commit()
    after = db.scalar(select(m.ExpertiseVector.digest).where(m.ExpertiseVector.object_id == pub.id))
    assert after != before and vectors.out_of_step(db) == {}
    department["net"].interests = "Photonics"
    db.commit()
    assert vectors.out_of_step(db) == {}
    result = runner.invoke(args=["directory", "reindex"])
    assert result.exit_code == 0 and "Embedded 15 paper(s) and profile(s)." in result.output
    assert vectors.count(db) == 4 + 11


def test_check_says_which_mode_is_on(app, department, monkeypatch) -> None:
    (finding,) = health.expertise_findings(app)
    assert finding.ok and finding.message.startswith("hybrid mode")
    monkeypatch.setattr(model, "WordLlama", None)
    (finding,) = health.expertise_findings(app)
    assert finding.ok and finding.message.startswith("keyword mode")


def test_without_the_model_people_are_ranked_by_keywords(db, department, monkeypatch) -> None:
    monkeypatch.setattr(model, "WordLlama", None)
    assert ranking.mode() == ranking.KEYWORD
    assert ranked(db, "RDMA") == ["riya-datta"]
    assert ranked(db, "who builds sparse expert neural nets?") == []


def test_a_new_paper_lifts_its_author_at_once(db, department, make_publication) -> None:
    """The worker's matrix follows a write (the state row's stamp moved on), and a paper
    removed stops counting."""
    assert ranked(db, "tidal energy turbines") == []
    paper = _paper(
        make_publication, "Tidal energy turbines for coastal grids", department["lantern"]
    )
    assert ranked(db, "tidal energy turbines")[0] == "ada-lantern"
    assert ranked(db, "harnessing ocean currents for electricity", use="semantic")[0] == (
        "ada-lantern"
    )
    db.delete(paper)
    db.commit()
    assert ranked(db, "tidal energy turbines") == []


def _held(db) -> dict[tuple[str, int], tuple[int, bytes]]:
    found = vectors.matrices(db)
    return {
        (kind, int(object_id)): (int(stamp), vector.tobytes())
        for kind in vectors.KINDS
        for object_id, stamp, vector in zip(
            found[kind].ids, found[kind].stamps, found[kind].vectors, strict=True
        )
    }


def test_a_worker_matrix_follows_writes_as_a_fresh_read(
    db, department, make_publication, monkeypatch
) -> None:
    """Read a few rows a statement, with no room to spare: a changed paper's row is replaced
    in place, a new one grows the arrays, and the worker then holds what a fresh worker reads."""
    monkeypatch.setattr(vectors, "READ_BATCH", 3)
    monkeypatch.setattr(vectors, "ROOM", 0)
    vectors._MATRICES.clear()
    vectors._STAMPS.clear()
    first = _held(db)
    assert len(first) == vectors.count(db) == 4 + 11
    pub = db.scalar(select(m.Publication).where(m.Publication.title.like("MoE%")))
    pub.title = "Quantised MoE routing"
    db.commit()
    for i in range(3):
        _paper(make_publication, f"Tidal energy turbines {i}", department["lantern"])
    followed = _held(db)
    assert len(followed) == len(first) + 3
    assert followed[("publication", pub.id)] != first[("publication", pub.id)]
    vectors._MATRICES.clear()
    vectors._STAMPS.clear()
    assert _held(db) == followed


def test_a_natural_question_finds_papers_by_its_topic_words(
    client, department, make_publication
) -> None:
    """No paper has "who", "works" or "on": the publications of a question are found by its
    topic words when nothing has every word, by the same read rules; without words that only
    ask, every word must still match."""
    _paper(make_publication, "Private RDMA notes", department["rdma"], visibility="private")
    html = get(client, "/directory/search?q=who+works+on+RDMA%3F&kind=publication")
    titles = re.findall(r'search-hit__title"><a href="[^"]*">(.*?)</a>', html)
    assert len(titles) == 6 and all("<mark>RDMA</mark>" in t for t in titles)
    assert "Private RDMA notes" not in html
    every = get(client, "/directory/search?q=who+works+on+RDMA%3F")
    counts = dict(re.findall(r'kind=(\w+)">[^<]+<span class="count">(\d+)</span>', every))
    assert counts["publication"] == "6" and "Fast <mark>RDMA</mark> key-value store" in every
    # "RDMA" and "networking" are in no one title: no paper, as before.
    html = get(client, "/directory/search?q=RDMA+networking&kind=publication")
    assert "search-hit--publication" not in html


@pytest.mark.engine_independent
def test_the_nearest_papers_are_those_a_full_partition_finds() -> None:
    """The sampled bound only narrows where the 200 highest cosines are looked for."""
    rng = model.np.random.default_rng(29)
    for size in (0, 1, 150, 200, 201, 5000, 40_000):
        for spread in (1.0, 1e-4):
            sims = (rng.standard_normal(size) * spread).astype("float32")
            take = min(200, size)
            expected = set(model.np.argsort(-sims, kind="stable")[:take].tolist())
            assert set(ranking.nearest(sims, 200).tolist()) == expected, size


def test_a_papers_weight_by_role_and_age() -> None:
    """First (or co-first) author 1, a student's 1.25, last 0.8, any other 0.4; halved every
    eight years, never below a quarter; a paper of no year counts as eight years old."""
    today = date(2026, 6, 1)
    assert paper_weight(0, 3, False, "faculty", 2026, today) == 1.0
    assert paper_weight(0, 3, False, "phd_student", 2026, today) == 1.25
    assert paper_weight(1, 3, True, "faculty", 2026, today) == 1.0
    assert paper_weight(2, 3, False, "faculty", 2026, today) == 0.8
    assert paper_weight(1, 3, False, "faculty", 2026, today) == 0.4
    assert paper_weight(0, 1, False, "faculty", 2018, today) == 0.5
    assert paper_weight(0, 1, False, "faculty", None, today) == 0.5
    assert paper_weight(0, 1, False, "faculty", 1980, today) == 0.25
    assert paper_weight(0, 1, False, "faculty", 2030, today) == 1.0  # a future year: no age
