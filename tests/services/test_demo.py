"""The demo department: the three seed pages, complete, loaded idempotently."""

from __future__ import annotations

import html as htmllib
import re

from sqlalchemy import func, select

from directory import models as m


def text_of(client, slug: str) -> str:
    response = client.get(f"/directory/people/{slug}")
    assert response.status_code == 200
    body = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", htmllib.unescape(body))


def counts(db) -> dict:
    return {
        model.__name__: db.scalar(select(func.count()).select_from(model))
        for model in (m.Person, m.Publication, m.Authorship, m.AdvisingRelation, m.ResearchProject)
    }


def test_loading_the_demo_twice_changes_nothing(runner, db, demo) -> None:
    first = counts(db)
    assert first["Person"] == 23
    result = runner.invoke(args=["directory", "load-demo"])
    assert result.exit_code == 0, result.output
    assert counts(db) == first
    result = runner.invoke(args=["directory", "load-demo", "--if-empty"])
    assert "demo not loaded" in result.output


def test_xingda_wei_page_shows_the_facts_of_his_seed_page(client, demo) -> None:
    text = text_of(client, "xingda-wei")
    for fact in (
        "Associate Professor (Tenure Track)",
        "wxdwfc at sjtu dot edu dot cn",
        "Zip/Postal Code: 200240",
        "华为火花奖",
        "ACM 中国优秀博士学位论文提名奖 (ACM China Doctoral Dissertation Award)",
        "Rongxin Cheng (since 2022; with Rong Chen)",
        "Kaixi Zhang (since 2026)",
        "Artifacts Available",
        "Results Reproduced",
        "Extended version of",
        "The Morning Paper",
        "OSDI'26",
        "2027 : NSDI, OSDI",
        "ASPLOS (Fall)",
        "Co-instructor",
        "Best Paper Award",
    ):
        assert fact in text, fact


def test_danyang_zhuo_page_shows_students_service_and_teaching(client, demo) -> None:
    text = text_of(client, "danyang-zhuo")
    for fact in (
        "Alexander Du (with Matthew Lentz)",
        "Yongji Wu (2024; with Matthew Lentz) · Postdoc at UC Berkeley",
        "Samantha Miller (2023; with Tom Anderson) · Databricks",
        "I am recruiting PhD students for Fall 2026",
        "Introduction to Operating Systems (CompSci 310)",
        "2026 : ASPLOS, MLSys, NSDI, SIGMOD",
        "NSF CAREER Award",
        "Husky",
        "Harmonic",
    ):
        assert fact in text, fact


def test_jiangfei_duan_page_shows_news_internships_and_marks(client, demo) -> None:
    text = text_of(client, "jiangfei-duan")
    for fact in (
        "[Jul 2026] I will attend OSDI '26.",  # the locale's month and year (Babel, "en")
        "Older news",
        "Hosts: Liangfu Chen, Zhen Jia, Zhihao Jia, Yida Wang",
        "Applied Scientist Intern · Santa Clara, CA",
        "Thesis: Efficient and Affordable Large Language Systems",
        "Video (Chinese)",
        "Distinguished Artifact Award",
        "IEEE Micro Top Picks Honorable Mention",
        "Survey",
        "article 9",
        "Spotlight",
        "First-class Academic Scholarship",
    ):
        assert fact in text, fact
